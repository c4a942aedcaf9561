package exchange

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Sign is the signature of a query string: lower-case hex HMAC-SHA256 under
// secret of the string exactly as it goes on the wire.
func Sign(secret, query string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(query))
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether signature signs query, in constant time.
func Verify(secret, query, signature string) bool {
	want, err := hex.DecodeString(Sign(secret, query))
	got, err2 := hex.DecodeString(signature)
	return err == nil && err2 == nil && hmac.Equal(want, got)
}

// param is one query parameter; a slice of them keeps the order sent, which
// the signature depends on (url.Values would sort them).
type param struct{ key, value string }

// signedQuery is params, then timestamp and recvWindow, then the signature
// of all that: the whole query string of a signed call.
func signedQuery(secret string, now time.Time, params ...param) string {
	params = append(params, param{"timestamp", strconv.FormatInt(now.UnixMilli(), 10)},
		param{"recvWindow", strconv.Itoa(RecvWindow)})
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = url.QueryEscape(p.key) + "=" + url.QueryEscape(p.value)
	}
	q := strings.Join(parts, "&")
	return q + "&signature=" + Sign(secret, q)
}
