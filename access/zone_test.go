package access

import (
	"context"
	"errors"
	"testing"
)

// TestTimeZonePreference: a person's zone is kept with their account and
// read by every session of theirs; a name that is not an IANA zone is
// refused and changes nothing; UTC clears it.
func TestTimeZonePreference(t *testing.T) {
	e := newEnv(t, generousLimits)
	u := e.mkUser(t, RealmMerchant, "owner@shop.test", RoleOwner, false)
	ctx := context.Background()
	s1, err := e.login(u, goodPassword, "", ip1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := e.login(u, goodPassword, "", ip1)
	if err != nil {
		t.Fatal(err)
	}
	zone := func(s *Session) string {
		t.Helper()
		got, err := e.a.Session(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.TimeZone
	}
	steps := []struct {
		name, set, want string
		err             error
	}{
		{"default UTC", "", "", nil},
		{"an IANA zone", "Asia/Shanghai", "Asia/Shanghai", nil},
		{"not a zone", "Mars/Olympus", "Asia/Shanghai", ErrBadZone},
		{"the server's zone", "Local", "Asia/Shanghai", ErrBadZone},
		{"a path", "../../etc/passwd", "Asia/Shanghai", ErrBadZone},
		{"back to UTC", "UTC", "", nil},
	}
	for _, st := range steps {
		if st.set != "" || st.name != "default UTC" {
			if err := e.a.SetTimeZone(ctx, s1, st.set); !errors.Is(err, st.err) {
				t.Fatalf("%s: set %q: %v, want %v", st.name, st.set, err, st.err)
			}
		}
		if got := zone(s2); got != st.want {
			t.Errorf("%s: the other session reads %q, want %q", st.name, got, st.want)
		}
	}
}
