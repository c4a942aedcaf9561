package merchant

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/argon2"

	"github.com/paygate/gateway/schema"
)

// Passwords let an account log in as a payer at /merchant/login and pay an
// order from its balance (SPEC.md's balance method).
//
// They are hashed with argon2id (golang.org/x/crypto/argon2), not bcrypt:
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

// kdf is the argon2id cost.
type kdf struct {
	time, memory uint32
	threads      uint8
}

var defaultKDF = kdf{time: 2, memory: 19 * 1024, threads: 1}

const (
	saltLen = 16
	hashLen = 32
)

// SetPassword sets the account's password; sessions made under the old
// one end with it.
func (s *Store) SetPassword(ctx context.Context, appid, password string) error {
	if len(password) < MinPasswordLen || len(password) > MaxPasswordLen {
		return fmt.Errorf("password must be %d to %d bytes long", MinPasswordLen, MaxPasswordLen)
	}
	salt := make([]byte, saltLen)
	_, _ = rand.Read(salt)
	sum, err := s.argon(ctx, []byte(password), salt, s.kdf)
	if err != nil {
		return err
	}
	enc := base64.RawStdEncoding
	stored := fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version,
		s.kdf.memory, s.kdf.time, s.kdf.threads, enc.EncodeToString(salt), enc.EncodeToString(sum))
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
		if _, err := s.argon(ctx, []byte(password[:min(len(password), MaxPasswordLen)]), make([]byte, saltLen), s.kdf); err != nil {
			return nil, "", err
		}
		return nil, "", ErrBadCredentials
	}
	ok, err := s.verify(ctx, stored, password)
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

// verify hashes password with the stored hash's salt and parameters.
func (s *Store) verify(ctx context.Context, stored, password string) (bool, error) {
	parts := strings.Split(stored, "$")
	var version int
	var k kdf
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("stored password hash has an unknown form")
	}
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, fmt.Errorf("stored password hash: argon2 version %q", parts[2])
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &k.memory, &k.time, &k.threads); err != nil {
		return false, fmt.Errorf("stored password hash parameters: %w", err)
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err := errors.Join(err1, err2); err != nil || len(want) == 0 {
		return false, fmt.Errorf("stored password hash encoding: %w", err)
	}
	got, err := s.argon(ctx, []byte(password), salt, k)
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// argon runs one hash when a slot is free: each takes 19 MiB, and a burst of
// logins must not take the process's memory with it.
func (s *Store) argon(ctx context.Context, password, salt []byte, k kdf) ([]byte, error) {
	select {
	case s.hashing <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.hashing }()
	s.hashed.Add(1)
	return argon2.IDKey(password, salt, k.time, k.memory, k.threads, hashLen), nil
}
