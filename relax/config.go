package relax

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/quasar-verify/quasar/lts"
)

// Mode selects the relaxation.
type Mode int

const (
	// Exact is the anchored, late-only relaxation of docs/verdicts.md §2.2 (the default).
	Exact Mode = iota
	// Window is the paper's Algorithms 2-4 as intended (docs/verdicts.md §2.3).
	Window
)

func (m Mode) String() string {
	switch m {
	case Exact:
		return "exact"
	case Window:
		return "window"
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// ParseMode reads a mode's name: "exact" or "window".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "exact":
		return Exact, nil
	case "window":
		return Window, nil
	}
	return Exact, fmt.Errorf("expected exact or window, found %q", s)
}

// Class is a set of event patterns whose events may be displaced by at most
// Bound positions, counted among the events of the class.
type Class struct {
	Patterns []lts.Pattern
	Bound    int
}

// Config is the quasi factor of a check. The zero value relaxes nothing: it
// is plain trace refinement.
type Config struct {
	Mode Mode
	// Classes are the relaxed classes. An event belongs to the first class
	// with a matching pattern; events in no class are rigid.
	Classes []Class
	// All, when Classes is empty, makes every visible event that is not a
	// barrier one class with this bound ("quasi 2").
	All int
	// Barriers are rigid events that may occur only when no obligation is
	// pending (exact mode) or only as a window of their own (window mode).
	// Barriers take precedence over classes.
	Barriers []lts.Pattern
	// Complete (exact mode only) asks that no obligation remain at the end
	// of a trace; use Relaxed.Settled on the final states. Default: open.
	Complete bool
}

// WithBound returns c with every class's bound set to k (All, when c has no
// classes): the same classes and barriers at another quasi factor. c is
// not modified.
func (c Config) WithBound(k int) Config {
	if len(c.Classes) == 0 {
		c.All = k
		return c
	}
	c.Classes = append([]Class(nil), c.Classes...)
	for i := range c.Classes {
		c.Classes[i].Bound = k
	}
	return c
}

// MaxBound limits bounds: slacks are stored in one byte (exact mode) and the
// number of permutations explodes (window mode).
const (
	MaxExactBound  = 100
	MaxWindowBound = 6
)

// Validate reports a configuration error.
func (c Config) Validate() error {
	if c.Mode != Exact && c.Mode != Window {
		return fmt.Errorf("unknown mode %d", int(c.Mode))
	}
	if c.All < 0 {
		return fmt.Errorf("negative quasi factor %d", c.All)
	}
	if c.All > 0 && len(c.Classes) > 0 {
		return fmt.Errorf("quasi factor %d for all events given together with classes", c.All)
	}
	for i, cl := range c.Classes {
		if cl.Bound < 0 {
			return fmt.Errorf("class %d: negative bound %d", i+1, cl.Bound)
		}
		if len(cl.Patterns) == 0 {
			return fmt.Errorf("class %d: no pattern", i+1)
		}
		for _, p := range cl.Patterns {
			if p.Base == "" {
				return fmt.Errorf("class %d: empty pattern", i+1)
			}
		}
	}
	for _, p := range c.Barriers {
		if p.Base == "" {
			return fmt.Errorf("empty barrier pattern")
		}
	}
	max := MaxExactBound
	if c.Mode == Window {
		max = MaxWindowBound
		if c.Complete {
			return fmt.Errorf("complete mode applies to exact mode only")
		}
		for _, cl := range c.Classes {
			if cl.Bound != c.Classes[0].Bound {
				return fmt.Errorf("window mode takes one quasi factor, found %d and %d", c.Classes[0].Bound, cl.Bound)
			}
		}
	}
	for _, b := range c.bounds() {
		if b > max {
			return fmt.Errorf("quasi factor %d too large for %s mode (at most %d)", b, c.Mode, max)
		}
	}
	return nil
}

func (c Config) bounds() []int {
	if len(c.Classes) == 0 {
		return []int{c.All}
	}
	var out []int
	for _, cl := range c.Classes {
		out = append(out, cl.Bound)
	}
	return out
}

// windowFactor is the single quasi factor of window mode.
func (c Config) windowFactor() int {
	if len(c.Classes) == 0 {
		return c.All
	}
	return c.Classes[0].Bound
}

// String renders c in the syntax read by ParseConfig.
func (c Config) String() string {
	var sb strings.Builder
	switch {
	case len(c.Classes) == 0:
		sb.WriteString(strconv.Itoa(c.All))
	case len(c.Classes) == 1:
		sb.WriteString(strconv.Itoa(c.Classes[0].Bound))
		sb.WriteString(" on {")
		n := 0
		for _, cl := range c.Classes {
			for _, p := range cl.Patterns {
				if n > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(p.String())
				n++
			}
		}
		sb.WriteString("}")
	default:
		sb.WriteString("{")
		for i, cl := range c.Classes {
			if i > 0 {
				sb.WriteString(", ")
			}
			if len(cl.Patterns) == 1 {
				sb.WriteString(cl.Patterns[0].String())
			} else {
				sb.WriteString("{" + joinPatterns(cl.Patterns) + "}")
			}
			sb.WriteString(": ")
			sb.WriteString(strconv.Itoa(cl.Bound))
		}
		sb.WriteString("}")
	}
	if len(c.Barriers) > 0 {
		sb.WriteString(" barrier {" + joinPatterns(c.Barriers) + "}")
	}
	if c.Mode == Window {
		sb.WriteString(" window")
	}
	if c.Complete {
		sb.WriteString(" complete")
	}
	return sb.String()
}

// SyntaxError is an error in the text of a quasi factor. Col is the 1-based
// column (in bytes) within the text given to ParseConfig; the caller adds
// the file position of the text.
type SyntaxError struct {
	Col int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("col %d: %s", e.Col, e.Msg) }

// ParseConfig reads the text that follows "quasi" in an assertion:
//
//	2                                 one class: every visible event, bound 2
//	2 on {deq}                        deq relaxed by 2, all other events rigid
//	2 on {deq} barrier {deq.0}        and deq.0 a barrier
//	{deq: 2, pop: 1} barrier {deq.0}  one class per entry
//	2 window                          the windowed algorithm
//	1 on {deq} barrier {deq.0} complete
//
// The clauses after the factor may come in any order, each at most once.
func ParseConfig(text string) (Config, error) {
	p := &cfgParser{src: text}
	p.next()
	var c Config
	switch p.tok {
	case tokInt:
		n, err := p.int()
		if err != nil {
			return c, err
		}
		c.All = n
	case '{':
		p.next()
		for {
			var pats []lts.Pattern
			if p.tok == '{' {
				set, err := p.set()
				if err != nil {
					return c, err
				}
				pats = set
			} else {
				pat, err := p.pattern()
				if err != nil {
					return c, err
				}
				pats = []lts.Pattern{pat}
			}
			if err := p.expect(':'); err != nil {
				return c, err
			}
			n, err := p.int()
			if err != nil {
				return c, err
			}
			c.Classes = append(c.Classes, Class{Patterns: pats, Bound: n})
			if p.tok == ',' {
				p.next()
				continue
			}
			if err := p.expect('}'); err != nil {
				return c, err
			}
			break
		}
	default:
		return c, p.errorf("expected quasi factor (a number or {class: bound, ...}), found %s", p.desc())
	}
	seen := map[string]bool{}
	for p.tok != tokEOF {
		if p.tok != tokIdent {
			return c, p.errorf("expected on, barrier, window, exact or complete, found %s", p.desc())
		}
		kw, col := p.lit, p.col
		if seen[kw] {
			return c, &SyntaxError{Col: col, Msg: "repeated " + kw}
		}
		seen[kw] = true
		p.next()
		switch kw {
		case "on":
			if len(c.Classes) > 0 {
				return c, &SyntaxError{Col: col, Msg: "on {..} needs a single quasi factor, not a class map"}
			}
			pats, err := p.set()
			if err != nil {
				return c, err
			}
			c.Classes = []Class{{Patterns: pats, Bound: c.All}}
			c.All = 0
		case "barrier":
			pats, err := p.set()
			if err != nil {
				return c, err
			}
			c.Barriers = pats
		case "window":
			if seen["exact"] {
				return c, &SyntaxError{Col: col, Msg: "window and exact both given"}
			}
			c.Mode = Window
		case "exact":
			if seen["window"] {
				return c, &SyntaxError{Col: col, Msg: "window and exact both given"}
			}
			c.Mode = Exact
		case "complete":
			c.Complete = true
		default:
			return c, &SyntaxError{Col: col, Msg: fmt.Sprintf("expected on, barrier, window, exact or complete, found %q", kw)}
		}
	}
	if err := c.Validate(); err != nil {
		return c, &SyntaxError{Col: 1, Msg: err.Error()}
	}
	return c, nil
}

const (
	tokEOF   = -1
	tokInt   = -2
	tokIdent = -3 // a name, possibly dotted with integer data: deq.0
	tokBad   = -4
)

type cfgParser struct {
	src string
	pos int // offset after the current token
	tok int
	lit string
	col int // 1-based column of the current token
}

func (p *cfgParser) next() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
	p.col = p.pos + 1
	if p.pos >= len(p.src) {
		p.tok, p.lit = tokEOF, ""
		return
	}
	c := p.src[p.pos]
	start := p.pos
	switch {
	case c >= '0' && c <= '9':
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		p.tok = tokInt
	case isIdentStart(c):
		for p.pos < len(p.src) && (isIdentStart(p.src[p.pos]) || p.src[p.pos] >= '0' && p.src[p.pos] <= '9' || p.src[p.pos] == '.' ||
			p.src[p.pos] == '-' && p.pos > start && p.src[p.pos-1] == '.') {
			p.pos++
		}
		p.tok = tokIdent
	case c == '{' || c == '}' || c == ',' || c == ':':
		p.pos++
		p.tok = int(c)
	default:
		p.pos++
		p.tok = tokBad
	}
	p.lit = p.src[start:p.pos]
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func (p *cfgParser) desc() string {
	switch p.tok {
	case tokEOF:
		return "end of text"
	default:
		return strconv.Quote(p.lit)
	}
}

func (p *cfgParser) errorf(format string, args ...any) error {
	return &SyntaxError{Col: p.col, Msg: fmt.Sprintf(format, args...)}
}

func (p *cfgParser) expect(tok int) error {
	if p.tok != tok {
		return p.errorf("expected %q, found %s", string(rune(tok)), p.desc())
	}
	p.next()
	return nil
}

func (p *cfgParser) int() (int, error) {
	if p.tok != tokInt {
		return 0, p.errorf("expected a bound (a number), found %s", p.desc())
	}
	n, err := strconv.Atoi(p.lit)
	if err != nil || n > 1000 {
		return 0, p.errorf("bound %s too large", p.lit)
	}
	p.next()
	return n, nil
}

func (p *cfgParser) pattern() (lts.Pattern, error) {
	if p.tok != tokIdent {
		return lts.Pattern{}, p.errorf("expected an event pattern such as deq or deq.0, found %s", p.desc())
	}
	lit := p.lit
	if strings.HasSuffix(lit, ".") || strings.Contains(lit, "..") {
		return lts.Pattern{}, p.errorf("malformed event pattern %q", lit)
	}
	p.next()
	return lts.ParsePattern(lit), nil
}

func (p *cfgParser) set() ([]lts.Pattern, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	var out []lts.Pattern
	for {
		pat, err := p.pattern()
		if err != nil {
			return nil, err
		}
		out = append(out, pat)
		if p.tok == ',' {
			p.next()
			continue
		}
		if err := p.expect('}'); err != nil {
			return nil, err
		}
		return out, nil
	}
}

// joinPatterns renders patterns separated by ", ".
func joinPatterns(ps []lts.Pattern) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return strings.Join(out, ", ")
}
