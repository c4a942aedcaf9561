package fiatpsp

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"sort"
	"strings"
)

// requestBase is what our calls sign: every value but the signature, sorted
// by key name (byte order) and joined with '|'.
func requestBase(values map[string]string) string {
	keys := make([]string, 0, len(values))
	for k := range values {
		if k != "signature" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = values[k]
	}
	return strings.Join(parts, "|")
}

// signRequest is a call's signature: hex HMAC-SHA256 of requestBase keyed
// with the API key.
func signRequest(values map[string]string, apiKey string) string {
	m := hmac.New(sha256.New, []byte(apiKey))
	m.Write([]byte(requestBase(values)))
	return hex.EncodeToString(m.Sum(nil))
}

// requestSigned reports that values carry the signature of the others,
// compared in constant time (the simulator checks our calls with it).
func RequestSigned(values map[string]string, apiKey string) bool {
	got := values["signature"]
	return got != "" && hmac.Equal([]byte(got), []byte(signRequest(values, apiKey)))
}

// notificationBase is what a notification signs: MERCHANT_ID, AMOUNT
// exactly as the provider sent it, secret2 and MERCHANT_ORDER_ID, joined
// with ':'.
func notificationBase(merchantID, amount, secret2, orderID string) string {
	return merchantID + ":" + amount + ":" + secret2 + ":" + orderID
}

// SignNotification is the notification's SIGN: lower-case hex MD5 of its
// base.
func SignNotification(merchantID, amount, secret2, orderID string) string {
	sum := md5.Sum([]byte(notificationBase(merchantID, amount, secret2, orderID)))
	return hex.EncodeToString(sum[:])
}

// notificationSigned reports that sign is the notification's SIGN. The
// comparison is exact (lower-case hex, as the vectors give it) and in
// constant time.
func notificationSigned(merchantID, amount, orderID, sign, secret2 string) bool {
	want := SignNotification(merchantID, amount, secret2, orderID)
	return subtle.ConstantTimeCompare([]byte(sign), []byte(want)) == 1
}
