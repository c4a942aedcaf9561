package platform

import "testing"

func TestCursorPage(t *testing.T) {
	cases := []struct {
		name, before, limit string
		b                   int64
		n                   int
		bad                 bool
	}{
		{"defaults", "", "", 0, 50, false},
		{"a cursor and a limit", "1764320000000", "100", 1764320000000, 100, false},
		{"a cursor that is not a number", "abc", "", 0, 0, true},
		{"a zero cursor", "0", "", 0, 0, true},
		{"a limit of 0", "", "0", 0, 0, true},
		{"a limit past 100", "", "101", 0, 0, true},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			b, n, err := CursorPage(tt.before, tt.limit)
			if (err != nil) != tt.bad || b != tt.b || n != tt.n {
				t.Fatalf("%d %d %v", b, n, err)
			}
		})
	}
}
