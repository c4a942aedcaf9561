package merchant

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"

	"golang.org/x/crypto/argon2"
)

// PasswordHasher is the gateway's one way of hashing passwords: the payer
// login here and the console accounts (package access) share it, so both
// store the same PHC form and a cost raised once is raised for both.
type PasswordHasher struct {
	kdf    kdf
	slots  chan struct{} // hashes running at once
	hashed atomic.Int64  // hashes computed, for tests of the timing paths
}

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

// NewPasswordHasher allows one hash per CPU at once.
func NewPasswordHasher() *PasswordHasher {
	return &PasswordHasher{kdf: defaultKDF, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// Hash returns password's argon2id hash in the PHC string form, which keeps
// the salt and the parameters beside the hash.
func (h *PasswordHasher) Hash(ctx context.Context, password string) (string, error) {
	if len(password) < MinPasswordLen || len(password) > MaxPasswordLen {
		return "", fmt.Errorf("password must be %d to %d bytes long", MinPasswordLen, MaxPasswordLen)
	}
	salt := make([]byte, saltLen)
	_, _ = rand.Read(salt)
	sum, err := h.argon(ctx, []byte(password), salt, h.kdf)
	if err != nil {
		return "", err
	}
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version,
		h.kdf.memory, h.kdf.time, h.kdf.threads, enc.EncodeToString(salt), enc.EncodeToString(sum)), nil
}

// Waste spends one hash's time on password and a throwaway salt, for the
// paths that have nothing to compare with (unknown account, no password):
// their answer then takes as long as a wrong password's.
func (h *PasswordHasher) Waste(ctx context.Context, password string) error {
	_, err := h.argon(ctx, []byte(password[:min(len(password), MaxPasswordLen)]), make([]byte, saltLen), h.kdf)
	return err
}

// Verify hashes password with the stored hash's salt and parameters and
// compares in constant time.
func (h *PasswordHasher) Verify(ctx context.Context, stored, password string) (bool, error) {
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
	if len(password) > MaxPasswordLen {
		return false, nil
	}
	got, err := h.argon(ctx, []byte(password), salt, k)
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// Hashed is how many hashes h computed: tests use it to show that a refused
// attempt (rate limited, say) cost no hash, or that every path cost one.
func (h *PasswordHasher) Hashed() int64 { return h.hashed.Load() }

// argon runs one hash when a slot is free: each takes 19 MiB, and a burst of
// logins must not take the process's memory with it.
func (h *PasswordHasher) argon(ctx context.Context, password, salt []byte, k kdf) ([]byte, error) {
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-h.slots }()
	h.hashed.Add(1)
	return argon2.IDKey(password, salt, k.time, k.memory, k.threads, hashLen), nil
}
