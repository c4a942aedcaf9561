package bsc_test

import (
	"encoding/json"
	"os"
	"testing"

	bsc "github.com/paygate/gateway/usdt/bsc"
	bscsim "github.com/paygate/gateway/web/sandbox/usdt/bsc"

	"github.com/paygate/gateway/usdt"
)

// chainVectors is the usdt_chains family of provider/testdata's vectors.
type chainVectors struct {
	Amounts []struct {
		Name, Payable string
		BEP20Units    string `json:"bep20_units"`
		BEP20Data     string `json:"bep20_data"`
	} `json:"amounts"`
	Log struct {
		Topics         []string
		Data, From, To string
		AmountUnits    string `json:"amount_units"`
		USDT           string `json:"usdt"`
	} `json:"bep20_transfer_log"`
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
	if len(all.Families.Chains.Log.Topics) == 0 || len(all.Families.Chains.Amounts) == 0 {
		t.Fatal("no BEP20 vectors")
	}
	return all.Families.Chains
}

func TestTransferLogVector(t *testing.T) {
	v := loadVectors(t).Log
	l := bsc.Log{Address: bscsim.USDTContract, Topics: v.Topics, Data: v.Data}
	got, ok := bsc.DecodeTransfer(l)
	if !ok || got.From != v.From || got.To != v.To || got.Units.String() != v.AmountUnits || got.Contract != bscsim.USDTContract {
		t.Fatalf("DecodeTransfer = %+v, %v; want %s -> %s of %s", got, ok, v.From, v.To, v.AmountUnits)
	}
	want, err := usdt.Units(v.USDT, 18)
	if err != nil || want.Cmp(got.Units) != 0 {
		t.Errorf("Units(%s, 18) = %v, %v; the log says %s", v.USDT, want, err, got.Units)
	}
	bad := map[string]bsc.Log{
		"not a Transfer": {Address: bscsim.USDTContract, Topics: append([]string{"0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925"}, v.Topics[1:]...), Data: v.Data},
		"removed":        {Address: bscsim.USDTContract, Topics: v.Topics, Data: v.Data, Removed: true},
		"short data":     {Address: bscsim.USDTContract, Topics: v.Topics, Data: v.Data[:len(v.Data)-2]},
		"dirty padding":  {Address: bscsim.USDTContract, Topics: []string{v.Topics[0], "0x01" + v.Topics[1][4:], v.Topics[2]}, Data: v.Data},
		"no recipient":   {Address: bscsim.USDTContract, Topics: v.Topics[:2], Data: v.Data},
	}
	for name, l := range bad {
		if got, ok := bsc.DecodeTransfer(l); ok {
			t.Errorf("%s: decoded %+v", name, got)
		}
	}
}

func TestAmountVectors(t *testing.T) {
	for _, v := range loadVectors(t).Amounts {
		t.Run(v.Payable+" "+v.Name, func(t *testing.T) {
			payable, err := usdt.Units(v.Payable, 18)
			if err != nil {
				t.Fatal(err)
			}
			seen, ok := bsc.WordUint(v.BEP20Data)
			if v.BEP20Data == "" {
				seen, ok = bsc.WordUint("0x" + bscsim.WordHex(mustUnits(t, v.BEP20Units)))
			}
			if !ok || seen.String() != v.BEP20Units {
				t.Fatalf("amount word %s reads %v, want %s", v.BEP20Data, seen, v.BEP20Units)
			}
			// A vector without a name is the payable amount itself; a
			// named one ("one unit short") must not match.
			if match := seen.Cmp(payable) == 0; match != (v.Name == "") {
				t.Errorf("%s units match %s at 18 decimals: %v", seen, v.Payable, match)
			}
		})
	}
}
