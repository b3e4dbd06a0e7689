package main

import (
	"fmt"
	"strconv"
	"strings"
)

// parseSize reads a memory size: a number of bytes with an optional unit,
// decimal (kB, MB, GB, TB) or binary (KiB, MiB, GiB, TiB); K, M, G and T
// alone are binary, as in "--mem 4G".
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("invalid size %q: expected a number with an optional unit such as 512MiB or 4G", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
		"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
	}[strings.ToLower(unit)]
	if mult == 0 {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (use B, KiB, MiB, GiB, TiB, kB, MB, GB, TB)", s, unit)
	}
	n := x * mult
	if n > 1<<62 {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return int64(n), nil
}
