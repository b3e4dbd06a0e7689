package lang

import "strconv"

func quote(s string) string   { return strconv.Quote(s) }
func quoteRune(r rune) string { return strconv.QuoteRune(r) }
