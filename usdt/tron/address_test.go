package tron_test

import (
	"context"

	tron "github.com/paygate/gateway/usdt/tron"
	tronsim "github.com/paygate/gateway/web/sandbox/usdt/tron"

	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/paygate/gateway/usdt"
)

// chainVectors is the usdt_chains family of provider/testdata's vectors.
type chainVectors struct {
	TronAddresses []struct{ Name, Hex, Base58 string } `json:"tron_addresses"`
	Amounts       []struct {
		Name, Payable string
		TRC20Units    string `json:"trc20_units"`
	} `json:"amounts"`
}

func loadVectors(t *testing.T) chainVectors {
	t.Helper()
	b, err := os.ReadFile("../../provider/testdata/provider-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var all struct {
		Families struct {
			Chains chainVectors `json:"usdt_chains"`
		} `json:"families"`
	}
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Families.Chains.TronAddresses) == 0 {
		t.Fatal("no tron_addresses in the vectors")
	}
	return all.Families.Chains
}

func TestAddressVectors(t *testing.T) {
	for _, v := range loadVectors(t).TronAddresses {
		t.Run(v.Name, func(t *testing.T) {
			got, err := tron.AddressFromHex(v.Hex)
			if err != nil || got != v.Base58 {
				t.Errorf("AddressFromHex(%s) = %q, %v; want %s", v.Hex, got, err, v.Base58)
			}
			back, err := tron.AddressHex(v.Base58)
			if err != nil || back != v.Hex {
				t.Errorf("AddressHex(%s) = %q, %v; want %s", v.Base58, back, err, v.Hex)
			}
			bare, err := tron.AddressFromHex(v.Hex[2:])
			if err != nil || bare != v.Base58 {
				t.Errorf("AddressFromHex(bare %s) = %q, %v", v.Hex[2:], bare, err)
			}
		})
	}
}

func TestAddressRefused(t *testing.T) {
	good := "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"
	cases := []struct{ name, addr string }{
		{"one character changed", "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNS"},
		{"two characters swapped", "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzNrR"},
		{"character outside base58", "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrN0"},
		{"truncated", good[:len(good)-1]},
		{"extended", good + "1"},
		{"empty", ""},
		{"hex, not base58", "417d65d39303e3d6db786a3c9f0b2cd03f6a324eb3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tron.ParseAddress(tc.addr); !errors.Is(err, tron.ErrAddress) {
				t.Errorf("ParseAddress(%q) = %v, want ErrAddress", tc.addr, err)
			}
		})
	}
	if _, err := tron.ParseAddress(good); err != nil {
		t.Fatalf("ParseAddress(%s): %v", good, err)
	}
	if _, err := tron.AddressFromHex("427d65d39303e3d6db786a3c9f0b2cd03f6a324eb3"); !errors.Is(err, tron.ErrAddress) {
		t.Errorf("a non-0x41 prefix was accepted: %v", err)
	}
}

func TestUnitsVectors(t *testing.T) {
	n := newNode(t)
	for _, v := range loadVectors(t).Amounts {
		if v.TRC20Units == "" {
			continue
		}
		u, err := usdt.Units(v.Payable, 6)
		if err != nil || u.String() != v.TRC20Units {
			t.Fatalf("Units(%s, 6) = %v, %v; want %s", v.Payable, u, err, v.TRC20Units)
		}
		hash := n.add(t, tronsim.TransferSpec{To: ours, Units: u, Success: true})
		got, err := n.client.Tx(context.Background(), hash)
		if err != nil || len(got.Transfers) != 1 || got.Transfers[0].Units.String() != v.TRC20Units {
			t.Errorf("decoded %+v, %v; want %s units", got.Transfers, err, v.TRC20Units)
		}
	}
}
