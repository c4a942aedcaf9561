package access

import (
	"context"
	_ "embed"
	"errors"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

var (
	//go:embed scripts/create.lua
	createLua    string
	createScript = audit.Script(createLua)
	//go:embed scripts/reissue.lua
	reissueLua    string
	reissueScript = audit.Script(reissueLua)
	//go:embed scripts/update.lua
	updateLua    string
	updateScript = audit.Script(updateLua)
)

// Team manages accounts: creates them, reissues their setup links,
// changes their role, disables and enables them, unlocks their second
// factor and sets a merchant's TOTP policy. Each change is checked against
// who may manage the account (a merchant's owner, an admin, the CLI) and
// audited in the script that makes it. It works on the Accounts' store;
// logins, setup and sessions stay on Accounts.
type Team struct{ a *Accounts }

// NewTeam is the team management over a's accounts.
func NewTeam(a *Accounts) *Team { return &Team{a: a} }

// NewUser is an account to create.
type NewUser struct {
	Realm Realm
	AppID string // the merchant, for RealmMerchant
	Email string
	Role  Role
}

// authorize says whether actor may manage realm's accounts (of merchant
// appid): the CLI may; an operator with the permission may; a merchant
// user may manage only its own merchant's users, and only as an owner.
func authorize(actor Actor, realm Realm, appid string) error {
	switch {
	case actor.Realm == audit.RealmCLI:
		return nil
	case actor.Realm == string(RealmOperator) && actor.Role.Valid(RealmOperator):
		if (realm == RealmMerchant && Allowed(actor.Role, PermConsoleUsersWrite)) ||
			(realm == RealmOperator && Allowed(actor.Role, PermOperatorsManage)) {
			return nil
		}
	case actor.Realm == string(RealmMerchant) && actor.Role.Valid(RealmMerchant):
		if realm == RealmMerchant && appid != "" && actor.AppID == appid && Allowed(actor.Role, PermUsersManage) {
			return nil
		}
	}
	return domain(platform.KindForbidden, "you may not manage these accounts", ErrForbidden)
}

// Create makes an account without a password and returns the one-time
// setup token its person sets a password (and TOTP) with; the token is
// shown once, and only its hash is kept.
func (t *Team) Create(ctx context.Context, actor Actor, nu NewUser) (*Account, string, error) {
	email, ok := normEmail(nu.Email)
	if !ok || !nu.Role.Valid(nu.Realm) || (nu.Realm == RealmMerchant) != (nu.AppID != "") {
		return nil, "", domain(platform.KindInvalidParameter, "an e-mail address and a role of the realm (and, for a merchant user, its appid) are required", nil)
	}
	if err := authorize(actor, nu.Realm, nu.AppID); err != nil {
		return nil, "", err
	}
	if nu.Realm == RealmMerchant {
		if _, err := merchant.NewStore(t.a.rdb).Get(ctx, nu.AppID); err != nil {
			if errors.Is(err, merchant.ErrNotFound) {
				return nil, "", domain(platform.KindInvalidAppID, "no such merchant", err)
			}
			return nil, "", err
		}
	}
	id, token := newID(), newToken()
	now := t.a.now()
	sk := setupKey(digest(token))
	keys := []string{userKey(id), emailKey(nu.Realm, email), membersKey(nu.Realm, nu.AppID), sk, auditKey()}
	args := []any{id, string(nu.Realm), nu.AppID, email, string(nu.Role), now.UnixMilli(), t.a.cfg.SetupTTL.Milliseconds(), sk,
		now.Add(t.a.cfg.SetupTTL).UnixMilli()}
	e := t.a.entry(actor, "user.create", "user:"+id, nu.AppID, map[string]string{"email": email, "role": string(nu.Role), "realm": string(nu.Realm)})
	res, err := t.a.run(ctx, createScript, keys, args, e)
	if err != nil {
		return nil, "", err
	}
	if res.(int64) == 0 {
		return nil, "", domain(platform.KindConflict, "an account with this e-mail exists", ErrExists)
	}
	acct, err := t.a.Get(ctx, id)
	return acct, token, err
}

// Reissue gives an account a new setup token (a lost link, a forgotten
// password, a lost authenticator); the previous token stops working.
func (t *Team) Reissue(ctx context.Context, actor Actor, id string) (string, error) {
	acct, err := t.a.Get(ctx, id)
	if err != nil {
		return "", err
	}
	if err := authorize(actor, acct.Realm, acct.AppID); err != nil {
		return "", err
	}
	token := newToken()
	sk := setupKey(digest(token))
	e := t.a.entry(actor, "user.reissue_setup", "user:"+id, acct.AppID, nil)
	res, err := t.a.run(ctx, reissueScript, []string{userKey(id), sk, auditKey()}, []any{t.a.cfg.SetupTTL.Milliseconds(), sk, t.a.now().Add(t.a.cfg.SetupTTL).UnixMilli()}, e)
	if err != nil {
		return "", err
	}
	if res.(int64) == 0 {
		return "", ErrNotFound
	}
	return token, nil
}

// SetRole changes an account's role within its realm.
func (t *Team) SetRole(ctx context.Context, actor Actor, id string, role Role) error {
	acct, err := t.a.Get(ctx, id)
	if err != nil {
		return err
	}
	if !role.Valid(acct.Realm) {
		return domain(platform.KindInvalidParameter, "not a role of this console", nil)
	}
	return t.update(ctx, actor, acct, "user.set_role", "role", string(role),
		map[string]string{"role": string(role), "old_role": string(acct.Role)})
}

// SetDisabled disables an account (its sessions end at once) or enables it.
func (t *Team) SetDisabled(ctx context.Context, actor Actor, id string, disabled bool) error {
	acct, err := t.a.Get(ctx, id)
	if err != nil {
		return err
	}
	action := "user.enable"
	if disabled {
		action = "user.disable"
	}
	return t.update(ctx, actor, acct, action, "disabled", flag(disabled), nil)
}

func (t *Team) update(ctx context.Context, actor Actor, acct *Account, action, field, value string, d map[string]string) error {
	if err := authorize(actor, acct.Realm, acct.AppID); err != nil {
		return err
	}
	e := t.a.entry(actor, action, "user:"+acct.ID, acct.AppID, d)
	res, err := t.a.run(ctx, updateScript, []string{userKey(acct.ID), sessionsKey(acct.ID), auditKey()}, []any{field, value, sessionPrefix}, e)
	if err != nil {
		return err
	}
	if res.(int64) == 0 {
		return ErrNotFound
	}
	return nil
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
