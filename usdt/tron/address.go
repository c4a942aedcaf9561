package tron

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/paygate/gateway/usdt/internal/base58check"
)

// AddressPrefix is the first byte of every TRON mainnet address.
const AddressPrefix = 0x41

// ErrAddress is an address that is not a TRON address: a wrong length,
// character, prefix or checksum (a mistyped address is refused here).
var ErrAddress = errors.New("tron: not a TRON address")

// Address is the base58check form (T...) of a 21-byte address
// (0x41 + 20 bytes).
func Address(raw []byte) (string, error) {
	if len(raw) != 21 || raw[0] != AddressPrefix {
		return "", fmt.Errorf("%w: %d bytes starting %#x", ErrAddress, len(raw), first(raw))
	}
	return base58check.Encode(raw), nil
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
	b, err := base58check.Decode(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrAddress, s, err)
	}
	if len(b) != 21 || b[0] != AddressPrefix {
		return nil, fmt.Errorf("%w: %q", ErrAddress, s)
	}
	return b, nil
}

// AddressHex is the 41-prefixed hex of a base58check address.
func AddressHex(s string) (string, error) {
	raw, err := ParseAddress(s)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(raw), nil
}

func first(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
