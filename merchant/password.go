package merchant

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Passwords let an account log in as a payer at /merchant/login and pay an
// order from its balance (SPEC.md's balance method).
//
// bcrypt reads at most 72 bytes of a password and we accept up to 128, and
// argon2id is memory-hard, so a stolen hash costs an attacker memory as well
// as time per guess. The parameters are OWASP's minimum (19 MiB, 2 passes,
// one lane) and are kept in each stored hash (the PHC string form), so they
// can be raised later without invalidating older passwords.

// Password length bounds, in bytes.
const (
	MinPasswordLen = 10
	MaxPasswordLen = 128
)

// ErrBadCredentials is any failed password check: unknown account, no
// password set, disabled account or wrong password. One error for all, so
// a caller cannot tell which accounts exist.
var ErrBadCredentials = errors.New("wrong account or password")

// Hash fields of the password, beside the account's own. They are not in
// Account, so no listing or JSON output can carry them.
const (
	fPassword    = "pwHash"
	fPasswordVer = "pwVer" // changes with every password; sessions made under another end
)

// SetPassword sets the account's password; sessions made under the old
// one end with it.
func (s *Store) SetPassword(ctx context.Context, appid, password string) error {
	stored, err := s.pw.Hash(ctx, password)
	if err != nil {
		return err
	}
	_, err = s.update(ctx, appid, map[string]any{fPassword: stored, fPasswordVer: rand.Text()})
	return err
}

// CheckPassword returns the account whose password this is, or
// ErrBadCredentials. Every path spends one hash's time, so the answer's
// timing does not tell an unknown account from a wrong password.
func (s *Store) CheckPassword(ctx context.Context, appid, password string) (*Account, error) {
	a, _, err := s.checkPassword(ctx, appid, password)
	return a, err
}

// checkPassword also returns the password version, which a session keeps.
func (s *Store) checkPassword(ctx context.Context, appid, password string) (*Account, string, error) {
	a, h, err := s.getWithSecrets(ctx, appid)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, "", err
	}
	stored := h[fPassword]
	if stored == "" || len(password) > MaxPasswordLen {
		// Nothing to compare with: spend the same time on a throwaway hash.
		if err := s.pw.Waste(ctx, password); err != nil {
			return nil, "", err
		}
		return nil, "", ErrBadCredentials
	}
	ok, err := s.pw.Verify(ctx, stored, password)
	if err != nil {
		return nil, "", err
	}
	if !ok || a.Disabled {
		return nil, "", ErrBadCredentials
	}
	return a, h[fPasswordVer], nil
}

// getWithSecrets reads an account with its hash fields, password included.
func (s *Store) getWithSecrets(ctx context.Context, appid string) (*Account, map[string]string, error) {
	if appid == "" {
		return nil, nil, ErrNotFound
	}
	h, err := s.rdb.HGetAll(ctx, schema.MerchantKey(appid)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, fmt.Errorf("read merchant %s: %w", appid, err)
	}
	if len(h) == 0 {
		return nil, nil, ErrNotFound
	}
	return accountFrom(h), h, nil
}
