package tron

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// AddressPrefix is the first byte of every TRON mainnet address.
const AddressPrefix = 0x41

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// ErrAddress is an address that is not a TRON address: a wrong length,
// character, prefix or checksum (a mistyped address is refused here).
var ErrAddress = errors.New("tron: not a TRON address")

// Address is the base58check form (T...) of a 21-byte address
// (0x41 + 20 bytes).
func Address(raw []byte) (string, error) {
	if len(raw) != 21 || raw[0] != AddressPrefix {
		return "", fmt.Errorf("%w: %d bytes starting %#x", ErrAddress, len(raw), first(raw))
	}
	sum := checksum(raw)
	return base58(append(append([]byte(nil), raw...), sum[:]...)), nil
}

// AddressFromHex is the base58check form of an address in hex: 41 + 40
// hex digits, as the node answers with visible=false; a bare 20-byte hex
// (as in event logs) gets the prefix.
func AddressFromHex(h string) (string, error) {
	h = strings.TrimPrefix(strings.ToLower(h), "0x")
	if len(h) == 40 {
		h = "41" + h
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return "", fmt.Errorf("%w: %q", ErrAddress, h)
	}
	return Address(raw)
}

// ParseAddress checks a base58check address and returns its 21 bytes.
func ParseAddress(s string) ([]byte, error) {
	n := new(big.Int)
	for _, c := range []byte(s) {
		i := strings.IndexByte(base58Alphabet, c)
		if i < 0 {
			return nil, fmt.Errorf("%w: %q has %q", ErrAddress, s, c)
		}
		n.Mul(n, big.NewInt(58)).Add(n, big.NewInt(int64(i)))
	}
	b := n.Bytes()
	for i := 0; i < len(s) && s[i] == '1'; i++ {
		b = append([]byte{0}, b...)
	}
	if len(b) != 25 || b[0] != AddressPrefix {
		return nil, fmt.Errorf("%w: %q", ErrAddress, s)
	}
	sum := checksum(b[:21])
	if !bytes.Equal(sum[:], b[21:]) {
		return nil, fmt.Errorf("%w: %q fails its checksum", ErrAddress, s)
	}
	return b[:21], nil
}

// AddressHex is the 41-prefixed hex of a base58check address.
func AddressHex(s string) (string, error) {
	raw, err := ParseAddress(s)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(raw), nil
}

// checksum is the first four bytes of the double SHA-256.
func checksum(b []byte) [4]byte {
	h1 := sha256.Sum256(b)
	h2 := sha256.Sum256(h1[:])
	return [4]byte(h2[:4])
}

// base58 encodes b, each leading zero byte as a '1'.
func base58(b []byte) string {
	n := new(big.Int).SetBytes(b)
	var out []byte
	mod, base := new(big.Int), big.NewInt(58)
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, base58Alphabet[mod.Int64()])
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

func first(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
