package account

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
)

// row is the Team page's table row of email.
func row(t *testing.T, body, email string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<tr data-user="` + regexp.QuoteMeta(email) + `">.*?</tr>`).FindString(body)
	if m == "" {
		t.Fatalf("no row for %s", email)
	}
	return m
}

// TestTeamOffersOnlyWhatWorks: the only owner is offered neither a role
// change nor Remove (the use case would answer 409), with a sentence
// saying why; nobody is offered removing themselves; once a second owner
// exists, each owner's role can be changed and each can remove the other.
// Every role is described on the page, for every role that reads it.
func TestTeamOffersOnlyWhatWorks(t *testing.T) {
	e := newEnv(t)
	owner := e.person(access.RoleOwner)
	dev := e.person(access.RoleDeveloper)
	cases := []struct {
		name           string
		as             *access.Session
		user           string
		roleForm, drop bool
	}{
		{"the only owner, seen by themselves", owner, "owner@shop.test", false, false},
		{"a developer, seen by the owner", owner, "developer@shop.test", true, true},
	}
	check := func(t *testing.T, s *access.Session, user string, roleForm, drop bool) {
		t.Helper()
		code, body := e.page(s, "/team")
		if code != http.StatusOK {
			t.Fatalf("team page %d", code)
		}
		r := row(t, body, user)
		if got := strings.Contains(r, "data-role-form"); got != roleForm {
			t.Errorf("%s: role form offered %v, want %v", user, got, roleForm)
		}
		if got := strings.Contains(r, "data-remove-form"); got != drop {
			t.Errorf("%s: Remove offered %v, want %v", user, got, drop)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, c.as, c.user, c.roleForm, c.drop) })
	}
	if _, body := e.page(owner, "/team"); !strings.Contains(row(t, body, "owner@shop.test"), "data-only-owner") {
		t.Error("the only owner's row does not say why nothing is offered")
	}
	// A second owner: roles can change, each removes the other, not themselves.
	other := teamUser(t, e, "second@shop.test")
	if err := access.NewTeam(e.accounts).SetRole(t.Context(), access.CLI(), other, access.RoleOwner); err != nil {
		t.Fatal(err)
	}
	check(t, owner, "owner@shop.test", true, false)
	check(t, owner, "second@shop.test", true, true)
	for _, r := range allRoles {
		s := map[access.Role]*access.Session{access.RoleOwner: owner, access.RoleDeveloper: dev}[r]
		if s == nil {
			s = e.person(r)
		}
		_, body := e.page(s, "/team")
		for _, role := range access.Roles(access.RealmMerchant) {
			m := regexp.MustCompile(`data-role-desc="` + string(role) + `">([^<]*)<`).FindStringSubmatch(body)
			if m == nil || len(m[1]) < 20 || strings.Contains(m[1], "desk_role_desc") {
				t.Errorf("%s's Team page does not describe the role %s: %v", r, role, m)
			}
		}
	}
}

// TestFormProblemsInline: a callback URL or an invitation the use case
// refuses comes back on its page with the refusal next to the field and
// what was typed kept, and nothing changes.
func TestFormProblemsInline(t *testing.T) {
	e := newEnv(t)
	owner := e.person(access.RoleOwner)
	for _, tc := range []struct {
		name   string
		path   string
		vals   url.Values
		status int
		want   []string
	}{
		{"callback not https", "/developers/callback", url.Values{"callback": {"ftp://shop.test/hook"}}, http.StatusBadRequest,
			[]string{`data-field-error="callback"`, `value="ftp://shop.test/hook"`, `aria-invalid="true"`}},
		{"callback to a private address", "/developers/callback", url.Values{"callback": {"https://10.0.0.7/hook"}}, http.StatusBadRequest,
			[]string{`data-field-error="callback"`, `value="https://10.0.0.7/hook"`}},
		{"invite of an existing address", "/team/invite", url.Values{"email": {"owner@shop.test"}, "role": {"finance"}}, http.StatusConflict,
			[]string{`data-field-error="email"`, `value="owner@shop.test"`, `<option value="finance" selected>`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.vals.Set("csrf", owner.CSRF)
			before := e.fingerprint()
			res := e.do(owner, http.MethodPost, tc.path, tc.vals)
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.status {
				t.Fatalf("answered %d, want %d", res.StatusCode, tc.status)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			if e.fingerprint() != before {
				t.Fatal("refused, but something changed")
			}
		})
	}
}
