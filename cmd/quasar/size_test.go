package main

import "testing"

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"512", 512, true},
		{"512B", 512, true},
		{"4G", 4 << 30, true},
		{"4g", 4 << 30, true},
		{"1.5GiB", 3 << 29, true},
		{"100MB", 100e6, true},
		{"2 MiB", 2 << 20, true},
		{"10kB", 10000, true},
		{"", 0, false},
		{"G", 0, false},
		{"12 parsecs", 0, false},
		{"-1G", 0, false},
		{"1e30", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseSize(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("parseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}
