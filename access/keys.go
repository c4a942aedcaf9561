package access

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"

	"github.com/paygate/gateway/schema"
)

// Key names under schema.AccessPrefix. Tokens (sessions, setup links) are
// named by the SHA-256 of the token, so a dump of Redis yields none that
// works.
const (
	pfx            = schema.AccessPrefix
	userPrefix     = pfx + "user:"  // hash: the account
	sessionPrefix  = pfx + "sess:"  // hash: one session, by token hash
	sessionsPrefix = pfx + "usess:" // set: an account's session hashes
)

func userKey(id string) string              { return userPrefix + id }
func emailKey(realm Realm, e string) string { return pfx + "email:" + string(realm) + ":" + e }
func sessionKey(hash string) string         { return sessionPrefix + hash }
func sessionsKey(id string) string          { return sessionsPrefix + id }
func recoveryKey(id string) string          { return pfx + "rc:" + id }
func setupKey(hash string) string           { return pfx + "setup:" + hash }
func policyKey(appid string) string         { return pfx + "policy:" + appid }
func auditKey() string                      { return schema.AuditKey(schema.AccessTag) }

// membersKey is the set of a merchant's users, or of every operator.
func membersKey(realm Realm, appid string) string {
	if realm == RealmOperator {
		return pfx + "operators"
	}
	return pfx + "members:" + appid
}

// lockedKey is the set of a merchant's users, or of the operators, whose
// second factor is locked: what the owners' and admins' notice counts.
func lockedKey(realm Realm, appid string) string {
	if realm == RealmOperator {
		return pfx + "sflocked:operators"
	}
	return pfx + "sflocked:" + appid
}

// tokenLen is a token's length: 256 random bits, base64url.
const tokenLen = 43

func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// digest is the hex SHA-256 of a token or code: what Redis stores. The
// tokens and codes are random (≥ 50 bits), so a fast hash is enough; a
// slow one would only slow the login.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// newID is an account id: 128 random bits, hex.
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func parseInt(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }
