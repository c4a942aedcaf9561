package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestAdminOnlyOnTheAdminListener: the operator console answers on
// GATEWAY_ADMIN_ADDR and nowhere else; the admin listener serves nothing
// but /admin; an empty GATEWAY_ADMIN_ADDR is refused at start.
func TestAdminOnlyOnTheAdminListener(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	e := newE2E(t)
	e.run("migrate")
	s := e.serve()
	defer s.stop(t)
	if s.adm == "" {
		t.Fatalf("serve logged no admin_addr\n%s", s.logs)
	}
	status := func(u string) int {
		t.Helper()
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, tc := range []struct {
		name string
		url  string
		want int
	}{
		{"public /admin", s.base + "/admin", 404},
		{"public /admin/", s.base + "/admin/exceptions", 404},
		{"admin /admin", s.adm + "/admin", 200},
		{"public view of a merchant's console", s.base + "/admin/merchants/1001/view", 404},
		{"public view of a merchant's order", s.base + "/admin/merchants/1001/view/orders/x", 404},
		{"admin view of a merchant's console (the login page)", s.adm + "/admin/merchants/1001/view", 200},
		{"admin listener has no merchant API", s.adm + "/api/order", 404},
		{"admin listener has no metrics", s.adm + "/metrics", 404},
		{"admin listener has no payer pages", s.adm + "/payment/x", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := status(tc.url); got != tc.want {
				t.Fatalf("GET %s: %d, want %d", tc.url, got, tc.want)
			}
		})
	}
	t.Run("empty GATEWAY_ADMIN_ADDR refused", func(t *testing.T) {
		if msg := e.serveRefused("GATEWAY_ADMIN_ADDR="); !strings.Contains(msg, "admin-addr") {
			t.Fatalf("stderr %s; want a refusal naming admin-addr", msg)
		}
	})
}
