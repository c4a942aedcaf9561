package selfservice

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// action is one use case as a page calls it for w on merchant appid's
// data; prep makes what it acts on (a delivery, a user) before the
// fingerprint is taken, and hands it to do.
type action struct {
	name    string
	allowed []access.Role
	write   bool // changes state: a refused call must leave everything as it was
	prep    func(e *env, appid string) string
	do      func(e *env, w access.Actor, arg string) error
}

var (
	ownerOnly  = []access.Role{access.RoleOwner}
	developers = []access.Role{access.RoleOwner, access.RoleDeveloper}
	everyone   = []access.Role{access.RoleOwner, access.RoleDeveloper, access.RoleFinance, access.RoleViewer}
)

func actions() []action {
	ctx := context.Background()
	dead := func(e *env, appid string) string {
		return e.deadDelivery(appid, time.Now().Add(-time.Hour), "HTTP 500")
	}
	userOf := func(role access.Role) func(e *env, appid string) string {
		return func(e *env, appid string) string { return e.user(appid, rand()+"@shop.test", role).ID }
	}
	return []action{
		{"resend", developers, true, dead, func(e *env, w access.Actor, id string) error { return e.svc.Webhooks.Resend(ctx, w, id, "") }},
		{"resend dead", developers, true, dead, func(e *env, w access.Actor, _ string) error {
			return ignore(e.svc.Webhooks.ResendDead(ctx, w, time.Now().Add(-2*time.Hour), time.Now()))
		}},
		{"rotate API key", developers, true, nil, func(e *env, w access.Actor, _ string) error { return ignore(e.svc.Keys.RotateAPIKey(ctx, w, -1)) }},
		{"confirm webhook key", developers, true, func(e *env, appid string) string {
			if _, err := e.merchants.RotateKey(ctx, appid, time.Hour); err != nil {
				panic(err)
			}
			return ""
		}, func(e *env, w access.Actor, _ string) error { return e.svc.Keys.ConfirmWebhookKey(ctx, w) }},
		{"rotate query key", developers, true, nil, func(e *env, w access.Actor, _ string) error { return ignore(e.svc.Keys.RotateQueryKey(ctx, w, -1)) }},
		{"rotate webhook secret", developers, true, nil, func(e *env, w access.Actor, _ string) error {
			return ignore(e.svc.Keys.RotateWebhookSecret(ctx, w, time.Hour))
		}},
		{"set callback", developers, true, nil, func(e *env, w access.Actor, _ string) error {
			return e.svc.Webhooks.SetCallback(ctx, w, "http://93.184.216.34/hook")
		}},
		{"signature debugger", developers, false, nil, func(e *env, w access.Actor, _ string) error {
			return ignore(e.svc.Keys.DebugSignature(ctx, w, "createorder", schema.Params{"amount": "1.00"}))
		}},
		{"invite", ownerOnly, true, nil, func(e *env, w access.Actor, _ string) error {
			_, _, err := e.svc.Team.Invite(ctx, w, rand()+"@shop.test", access.RoleViewer)
			return err
		}},
		{"set role", ownerOnly, true, userOf(access.RoleDeveloper), func(e *env, w access.Actor, id string) error {
			return e.svc.Team.SetRole(ctx, w, id, access.RoleFinance)
		}},
		{"remove user", ownerOnly, true, userOf(access.RoleViewer), func(e *env, w access.Actor, id string) error {
			return e.svc.Team.SetDisabled(ctx, w, id, true)
		}},
		{"reissue setup link", ownerOnly, true, userOf(access.RoleViewer), func(e *env, w access.Actor, id string) error {
			return ignore(e.svc.Team.Reissue(ctx, w, id))
		}},
		{"require TOTP", ownerOnly, true, nil, func(e *env, w access.Actor, _ string) error { return e.svc.Team.RequireTOTP(ctx, w, true) }},
		{"audit log", ownerOnly, false, nil, func(e *env, w access.Actor, _ string) error {
			return ignore(e.svc.AuditLog.Search(ctx, w, audit.Filter{}))
		}},
		{"deliveries", everyone, false, nil, func(e *env, w access.Actor, _ string) error {
			return ignore(e.svc.Webhooks.Deliveries(ctx, w, dispatcher.ListFilter{}))
		}},
		{"success rate", everyone, false, nil, func(e *env, w access.Actor, _ string) error { return ignore(e.svc.Webhooks.SuccessRate(ctx, w)) }},
		{"credentials", everyone, false, nil, func(e *env, w access.Actor, _ string) error { return ignore(e.svc.Keys.Credentials(ctx, w)) }},
		{"balances", everyone, false, nil, func(e *env, w access.Actor, _ string) error { return ignore(e.svc.Balance.Overview(ctx, w)) }},
		{"team", everyone, false, nil, func(e *env, w access.Actor, _ string) error { return ignore(e.svc.Team.Roster(ctx, w)) }},
	}
}

// TestEveryRoleOnEveryUseCase: each role may do what the role table says
// and nothing more; a refused write is 403 and leaves every key as it was
// (no audit entry either); an operator's session, the CLI or none at all is refused
// everything; an allowed write appends an audit entry.
func TestEveryRoleOnEveryUseCase(t *testing.T) {
	for _, a := range append(actions(), endpointActions()...) {
		t.Run(a.name, func(t *testing.T) {
			e := newEnv(t, false)
			appid := e.sandbox.AppID
			refused := []access.Actor{operator(appid), access.ActorOf(nil, "198.51.100.9"), access.CLI()}
			for _, r := range everyone {
				if !slices.Contains(a.allowed, r) {
					refused = append(refused, who(appid, r))
				}
			}
			arg := func() string {
				if a.prep == nil {
					return ""
				}
				return a.prep(e, appid)
			}
			for _, w := range refused {
				x := arg()
				before := e.fingerprint()
				if err := a.do(e, w, x); kindOf(err) != platform.KindForbidden {
					t.Fatalf("%s: %v, want forbidden", describe(w), err)
				}
				if a.write && e.fingerprint() != before {
					t.Fatalf("%s was refused but something changed", describe(w))
				}
			}
			for _, r := range a.allowed {
				x := arg()
				n := e.auditCount()
				err := a.do(e, e.who(appid, r), x)
				if k := kindOf(err); k == platform.KindForbidden || (err != nil && !(a.name == "audit log" && k == platform.KindUnavailable)) {
					t.Fatalf("%s: %v", r, err)
				}
				if a.write && e.auditCount() <= n {
					t.Fatalf("%s: the change appended no audit entry", r)
				}
			}
		})
	}
}

func describe(w access.Actor) string {
	if w.Realm == "" {
		return "no session"
	}
	return w.Realm + " " + string(w.Role)
}
