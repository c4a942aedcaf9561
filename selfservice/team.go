package selfservice

import (
	"context"
	"errors"
	"sort"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
)

// Team is the use cases of the merchant's users (the Team & security
// page): access.Team's account changes, held to the merchant's own users
// and to the rules a merchant keeps (an enabled owner, nobody removing
// themselves).
type Team struct {
	accounts *access.Accounts
	team     *access.Team
}

// Roster is what the Team & security page shows: the merchant's users and
// whether it requires TOTP of all of them.
type Roster struct {
	Users       []*access.Account // owners first, then by e-mail
	RequireTOTP bool
	// ViewerTOTP says whether the person looking has TOTP enrolled: one
	// without it is not offered to require it, which would end their own
	// session.
	ViewerTOTP bool
}

// Roster reads the merchant's users and TOTP policy.
func (d *Team) Roster(ctx context.Context, actor access.Actor) (*Roster, error) {
	appid, err := may(actor, access.PermUsersRead)
	if err != nil {
		return nil, err
	}
	users, err := d.accounts.List(ctx, access.RealmMerchant, appid)
	if err != nil {
		return nil, err
	}
	rank := map[access.Role]int{access.RoleOwner: 0, access.RoleDeveloper: 1, access.RoleFinance: 2, access.RoleViewer: 3}
	sort.Slice(users, func(i, j int) bool {
		if rank[users[i].Role] != rank[users[j].Role] {
			return rank[users[i].Role] < rank[users[j].Role]
		}
		return users[i].Email < users[j].Email
	})
	req, err := d.accounts.TOTPRequired(ctx, appid)
	if err != nil {
		return nil, err
	}
	mine, err := secondFactor{d.accounts}.enrolled(ctx, actor)
	if err != nil {
		return nil, err
	}
	return &Roster{Users: users, RequireTOTP: req, ViewerTOTP: mine}, nil
}

// Invite makes a user of the merchant with role and returns the one-time
// setup token its link carries (shown once; only its hash is kept). The
// account script appends the audit entry.
func (d *Team) Invite(ctx context.Context, actor access.Actor, email string, role access.Role) (*access.Account, string, error) {
	appid, err := may(actor, access.PermUsersManage)
	if err != nil {
		return nil, "", err
	}
	return d.team.Create(ctx, actor, access.NewUser{Realm: access.RealmMerchant, AppID: appid, Email: email, Role: role})
}

// Reissue gives one of the merchant's users a new setup link (a lost link,
// password or authenticator); the old link stops working.
func (d *Team) Reissue(ctx context.Context, actor access.Actor, userID string) (string, error) {
	if _, err := d.member(ctx, actor, userID); err != nil {
		return "", err
	}
	return d.team.Reissue(ctx, actor, userID)
}

// SetRole changes one of the merchant's users' role. The last enabled
// owner keeps the role: a merchant always has someone who can manage it.
func (d *Team) SetRole(ctx context.Context, actor access.Actor, userID string, role access.Role) error {
	u, err := d.member(ctx, actor, userID)
	if err != nil {
		return err
	}
	if !role.Valid(access.RealmMerchant) {
		return invalid("role must be owner, developer, finance or viewer")
	}
	if u.Role == access.RoleOwner && role != access.RoleOwner {
		if err := d.keepAnOwner(ctx, actor.AppID, u.ID); err != nil {
			return err
		}
	}
	return d.team.SetRole(ctx, actor, userID, role)
}

// SetDisabled removes (disables, ending its sessions) or restores one of
// the merchant's users. Nobody removes themselves, and the last enabled
// owner stays.
func (d *Team) SetDisabled(ctx context.Context, actor access.Actor, userID string, disabled bool) error {
	u, err := d.member(ctx, actor, userID)
	if err != nil {
		return err
	}
	if disabled && u.ID == actor.ID {
		return platform.Errorf(platform.KindConflict, "you cannot remove yourself; ask another owner")
	}
	if disabled && u.Role == access.RoleOwner {
		if err := d.keepAnOwner(ctx, actor.AppID, u.ID); err != nil {
			return err
		}
	}
	return d.team.SetDisabled(ctx, actor, userID, disabled)
}

// UnlockSecondFactor lets one of the merchant's users' authenticator codes
// work again after too many wrong ones locked them; audited by the account
// script.
func (d *Team) UnlockSecondFactor(ctx context.Context, actor access.Actor, userID string) error {
	if _, err := d.member(ctx, actor, userID); err != nil {
		return err
	}
	return d.team.UnlockSecondFactor(ctx, actor, userID)
}

// ErrRequireTOTPFirst refuses to require TOTP of everyone to a person
// without it: the rule would end their own session at once.
var ErrRequireTOTPFirst = &platform.Error{Kind: platform.KindConflict,
	Msg: "set up TOTP for yourself first: requiring it of everyone would end your own session (ask another owner for a new setup link)"}

// RequireTOTP sets whether every user of the merchant must use TOTP;
// turning it on ends the sessions of those without it.
func (d *Team) RequireTOTP(ctx context.Context, actor access.Actor, on bool) error {
	appid, err := may(actor, access.PermUsersManage)
	if err != nil {
		return err
	}
	if on {
		mine, err := secondFactor{d.accounts}.enrolled(ctx, actor)
		if err != nil {
			return err
		}
		if !mine {
			return ErrRequireTOTPFirst
		}
	}
	return d.team.RequireTOTP(ctx, actor, appid, on)
}

// member is user id when the asker may manage users and it is a user of
// the asker's merchant; another merchant's user is not found, like a
// missing one.
func (d *Team) member(ctx context.Context, actor access.Actor, id string) (*access.Account, error) {
	appid, err := may(actor, access.PermUsersManage)
	if err != nil {
		return nil, err
	}
	u, err := d.accounts.Get(ctx, id)
	if errors.Is(err, access.ErrNotFound) || (err == nil && (u.Realm != access.RealmMerchant || u.AppID != appid)) {
		return nil, notFound("no such user")
	}
	return u, err
}

// keepAnOwner refuses a change that would leave appid with no enabled owner
// but the user leaving.
func (d *Team) keepAnOwner(ctx context.Context, appid, leaving string) error {
	users, err := d.accounts.List(ctx, access.RealmMerchant, appid)
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.ID != leaving && u.Role == access.RoleOwner && !u.Disabled {
			return nil
		}
	}
	return platform.Errorf(platform.KindConflict, "the merchant must keep an enabled owner; make someone else owner first")
}
