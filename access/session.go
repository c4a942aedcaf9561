package access

import (
	"context"
	"crypto/subtle"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
)

var (
	//go:embed scripts/session.lua
	sessionLua    string
	sessionScript = redis.NewScript(sessionLua)
	//go:embed scripts/logout.lua
	logoutLua    string
	logoutScript = audit.Script(logoutLua)
	//go:embed scripts/revoke.lua
	revokeLua    string
	revokeScript = audit.Script(revokeLua)
)

// Session is a logged-in person as a page sees it. ID is the cookie value
// (opaque, 256 random bits); Redis keeps only its hash. The role and
// merchant are read from the account on every check, so a role change or
// a disabled account takes effect on the next request.
type Session struct {
	ID        string
	UserID    string
	Realm     Realm
	Role      Role
	AppID     string
	Email     string
	CreatedAt time.Time
	// CSRF is the session's form token: pages put it in every form and
	// compare what comes back with subtle.ConstantTimeCompare.
	CSRF string
	// TimeZone is the IANA zone the person's console shows times in, read
	// from the account on every check ("": UTC; SetTimeZone).
	TimeZone string
}

// open runs the login script: the second factor spent, the old session
// ended, a new one opened and the login audited, in one step.
func (a *Accounts) open(ctx context.Context, r LoginRequest, acct *Account, pwVer, factor, value string) (*Session, error) {
	id, csrf := newToken(), newToken()
	hash := digest(id)
	old := sessionKey(hash)
	if len(r.OldSession) == tokenLen {
		old = sessionKey(digest(r.OldSession))
	}
	now := a.now()
	keys := []string{userKey(acct.ID), recoveryKey(acct.ID), sessionKey(hash), sessionsKey(acct.ID), old, auditKey(),
		lockedKey(acct.Realm, acct.AppID)}
	args := []any{acct.ID, pwVer, factor, value, now.UnixMilli(), a.cfg.IdleTimeout.Milliseconds(), csrf, sessionPrefix, sessionsPrefix, hash}
	actor := Actor{ID: acct.ID, Email: acct.Email, Realm: string(acct.Realm), Role: acct.Role, AppID: acct.AppID, Source: r.IP.String()}
	details := map[string]string{"via": factor}
	if factor == "recovery" && acct.SecondFactorLocked {
		details["result"] = "second factor unlocked" // the script clears the lock
	}
	e := a.entry(actor, "session.login", "user:"+acct.ID, acct.AppID, details)
	res, err := a.run(ctx, loginScript, keys, args, e)
	if err != nil {
		return nil, err
	}
	switch res.(int64) {
	case -1:
		return nil, a.factorFailed(ctx, r, acct, ErrCodeReplayed)
	case -2:
		return nil, a.factorFailed(ctx, r, acct, ErrRecoveryUsed)
	case -3: // locked since the check
		return nil, a.factorFailed(ctx, r, acct, ErrFactorLocked)
	case 0: // password changed or account disabled since the check
		return nil, a.refused(ctx, r, acct, ErrWrongPassword)
	}
	a.log.Info("console login", "realm", acct.Realm, "user", acct.ID)
	return &Session{ID: id, UserID: acct.ID, Realm: acct.Realm, Role: acct.Role, AppID: acct.AppID, Email: acct.Email,
		CreatedAt: now.UTC().Truncate(time.Millisecond), CSRF: csrf}, nil
}

// Session checks a session id from a cookie and marks it used: ErrNoSession
// when it is unknown, idle past IdleTimeout, older than AbsoluteTimeout,
// logged out, or its account is disabled or changed its password. Pages
// must also check Realm (Can does).
func (a *Accounts) Session(ctx context.Context, id string) (*Session, error) {
	if len(id) != tokenLen {
		return nil, ErrNoSession
	}
	hash := digest(id)
	args := []any{a.now().UnixMilli(), a.cfg.IdleTimeout.Milliseconds(), a.cfg.AbsoluteTimeout.Milliseconds(), userPrefix, sessionsPrefix, hash}
	res, err := sessionScript.Run(ctx, a.rdb, []string{sessionKey(hash)}, args...).StringSlice()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("check session: %w", err)
	}
	created, _ := parseInt(res[5])
	return &Session{ID: id, UserID: res[0], Realm: Realm(res[1]), Role: Role(res[2]), AppID: res[3], Email: res[4],
		CreatedAt: time.UnixMilli(created).UTC(), CSRF: res[6], TimeZone: res[7]}, nil
}

// Alive reports which of the session ids still stand, without marking
// them used: one EXISTS each, in one pipeline (the keys share a hash tag).
// Streams that outlive their request (the console's live feed) ask it on
// every poll, so logging out, "log out everywhere", revoking the sessions
// or disabling the account ends them too (each deletes the session's key;
// an idle or absolute time-out expires it).
func (a *Accounts) Alive(ctx context.Context, ids []string) ([]bool, error) {
	out := make([]bool, len(ids))
	cmds := make([]*redis.IntCmd, len(ids))
	_, err := a.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			if len(id) == tokenLen {
				cmds[i] = p.Exists(ctx, sessionKey(digest(id)))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("check sessions: %w", err)
	}
	for i, c := range cmds {
		out[i] = c != nil && c.Val() == 1
	}
	return out, nil
}

// Logout ends the session; everywhere ends every session of its account
// ("log out everywhere"). Ending a session that is gone is fine.
func (a *Accounts) Logout(ctx context.Context, s *Session, source string, everywhere bool) error {
	if s == nil || len(s.ID) != tokenLen {
		return nil
	}
	hash := digest(s.ID)
	action := "session.logout"
	if everywhere {
		action = "session.logout_everywhere"
	}
	e := a.entry(ActorOf(s, source), action, "user:"+s.UserID, s.AppID, nil)
	_, err := a.run(ctx, logoutScript, []string{sessionKey(hash), auditKey()},
		[]any{flag(everywhere), sessionPrefix, sessionsPrefix, hash}, e)
	return err
}

// RevokeAll ends every session of account id (an operator's or owner's
// "log this person out", also what a lost laptop needs).
func (a *Accounts) RevokeAll(ctx context.Context, actor Actor, id string) error {
	acct, err := a.Get(ctx, id)
	if err != nil {
		return err
	}
	if err := authorize(actor, acct.Realm, acct.AppID); err != nil {
		return err
	}
	e := a.entry(actor, "user.revoke_sessions", "user:"+id, acct.AppID, nil)
	_, err = a.run(ctx, revokeScript, []string{sessionsKey(id), auditKey()}, []any{sessionPrefix}, e)
	return err
}

// CheckCSRF reports whether token is the session's form token, in
// constant time; pages call it on every state-changing request.
func (s *Session) CheckCSRF(token string) bool {
	return s != nil && len(s.CSRF) == tokenLen && subtle.ConstantTimeCompare([]byte(s.CSRF), []byte(token)) == 1
}
