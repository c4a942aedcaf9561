package events

import (
	"context"
	"testing"
)

// TestListMany: one read of several merchants answers each its own
// endpoints as List does, and none for a merchant without.
func TestListMany(t *testing.T) {
	e := newStoreEnv(t)
	ctx := context.Background()
	for _, a := range []string{"1001", "1001", "1002"} {
		if _, err := e.s.Add(ctx, Endpoint{AppID: a, URL: "https://hooks.example/" + a, Enabled: true}, who()); err != nil {
			t.Fatal(err)
		}
	}
	got, err := e.s.ListMany(ctx, []string{"1001", "1002", "1003"})
	if err != nil {
		t.Fatal(err)
	}
	for a, n := range map[string]int{"1001": 2, "1002": 1, "1003": 0} {
		list, _ := e.s.List(ctx, a)
		if len(got[a]) != n || len(list) != n {
			t.Fatalf("merchant %s: %d endpoints read, %d listed, want %d", a, len(got[a]), len(list), n)
		}
		for i := range list {
			if got[a][i].ID != list[i].ID || got[a][i].AppID != a {
				t.Fatalf("merchant %s: %+v, want %+v", a, got[a], list)
			}
		}
	}
}
