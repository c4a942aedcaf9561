// Package base58check is Bitcoin's base58check, which TRON addresses use:
// base58 of the payload and the first four bytes of its double SHA-256.
// One copy for the network checks of package usdt and the TRON client.
package base58check

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math/big"
	"strings"
)

const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// ErrInvalid is a string that is not base58, or whose checksum fails (a
// mistyped character).
var ErrInvalid = errors.New("not base58check")

// Encode is payload with its checksum in base58, each leading zero byte a '1'.
func Encode(payload []byte) string {
	b := append(append([]byte(nil), payload...), checksum(payload)...)
	n := new(big.Int).SetBytes(b)
	var out []byte
	mod, base := new(big.Int), big.NewInt(58)
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, '1')
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// Decode is the payload of s once its checksum holds.
func Decode(s string) ([]byte, error) {
	n, radix := new(big.Int), big.NewInt(58)
	for _, c := range []byte(s) {
		d := strings.IndexByte(alphabet, c)
		if d < 0 {
			return nil, ErrInvalid
		}
		n.Mul(n, radix).Add(n, big.NewInt(int64(d)))
	}
	zeros := len(s) - len(strings.TrimLeft(s, "1"))
	b := append(make([]byte, zeros), n.Bytes()...)
	if len(b) < 5 || !bytes.Equal(checksum(b[:len(b)-4]), b[len(b)-4:]) {
		return nil, ErrInvalid
	}
	return b[:len(b)-4], nil
}

func checksum(b []byte) []byte {
	h1 := sha256.Sum256(b)
	h2 := sha256.Sum256(h1[:])
	return h2[:4]
}
