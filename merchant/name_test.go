package merchant

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// set-name changes what payers read; a name a page cannot show in one line
// is refused and the old one kept.
func TestSetName(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	a, err := s.Create(ctx, NewAccount{Name: "shop", Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, to, want string
		ok             bool
	}{
		{"a new name", "  Lotus Tea House ", "Lotus Tea House", true},
		{"empty", "   ", "Lotus Tea House", false},
		{"too long", strings.Repeat("x", MaxNameLen+1), "Lotus Tea House", false},
		{"control characters", "Shop\nInjected", "Lotus Tea House", false},
		{"non-Latin", "莲花茶馆", "莲花茶馆", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.SetName(ctx, a.AppID, tc.to)
			if (err == nil) != tc.ok {
				t.Fatalf("SetName(%q): %v, want ok=%v", tc.to, err, tc.ok)
			}
			got, err := s.Get(ctx, a.AppID)
			if err != nil || got.Name != tc.want {
				t.Errorf("name %q (%v), want %q", got.Name, err, tc.want)
			}
		})
	}
	if _, err := s.SetName(ctx, "999999", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown account: %v, want ErrNotFound", err)
	}
}
