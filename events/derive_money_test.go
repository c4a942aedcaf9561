package events

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/payout"
)

const payoutID = "1001-mi3k2x-0123456789abcdef"

// payoutEntry is an entry of the payouts' stream as move.lua writes it.
func payoutEntry(state string) map[string]any {
	return map[string]any{"type": "payout." + state, "at": strconv.FormatInt(at.UnixMilli(), 10), "id": payoutID,
		"appid": "1001", "dest": "1001-mi3k00-aa", "kind": "bank", "cur": "USD", "amt": "6000", "fee": "100",
		"st": state, "by": "user:u1", "rev": "op:ann",
		"dat": strconv.FormatInt(at.UnixMilli(), 10), "done": strconv.FormatInt(at.UnixMilli(), 10)}
}

func destinationEntry(t *testing.T, removed bool) map[string]any {
	t.Helper()
	d := payout.Destination{ID: "1001-mi3k00-aa", AppID: "1001", Kind: payout.Bank, Holder: "Ana", Bank: "Banco Uno",
		Account: "ES9121000418450200051332", Created: at, Usable: at.Add(24 * time.Hour)}
	if removed {
		d.Removed = at.Add(48 * time.Hour)
	}
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"type": "payout_destination.changed", "at": strconv.FormatInt(at.UnixMilli(), 10),
		"id": d.ID, "destination": string(raw)}
}

// TestFromPayouts: every payout state the catalogue names is an event
// about the payout, sending is none; a destination added or removed is
// one, without its account number.
func TestFromPayouts(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]any
		want   string
		object string
		source string
	}{
		{"requested", payoutEntry("requested"), "payout.requested", "payout:" + payoutID, payoutID + ":requested"},
		{"approved", payoutEntry("approved"), "payout.approved", "payout:" + payoutID, payoutID + ":approved"},
		{"rejected", payoutEntry("rejected"), "payout.rejected", "payout:" + payoutID, payoutID + ":rejected"},
		{"paid", payoutEntry("paid"), "payout.paid", "payout:" + payoutID, payoutID + ":paid"},
		{"failed", payoutEntry("failed"), "payout.failed", "payout:" + payoutID, payoutID + ":failed"},
		{"sending", payoutEntry("sending"), "", "", ""},
		{"destination added", destinationEntry(t, false), "payout_destination.changed", "destination:1001-mi3k00-aa", "1001-mi3k00-aa:added"},
		{"destination removed", destinationEntry(t, true), "payout_destination.changed", "destination:1001-mi3k00-aa", "1001-mi3k00-aa:removed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := FromPayouts(tt.values)
			if err != nil {
				t.Fatal(err)
			}
			if got := types(ds); got != tt.want {
				t.Fatalf("derived %q, want %q", got, tt.want)
			}
			if len(ds) == 0 {
				return
			}
			d := ds[0]
			if d.AppID != "1001" || d.Object != tt.object || d.Event.ID != ID(Type(tt.want), tt.source) || !d.Event.Created.Equal(at) {
				t.Fatalf("derived %+v", d)
			}
			if strings.Contains(string(d.Event.Data), "ES9121000418450200051332") {
				t.Fatalf("an event carries the account number: %s", d.Event.Data)
			}
			var v struct{ ID, State, Amount string }
			if err := json.Unmarshal(d.Event.Data, &v); err != nil || v.ID == "" {
				t.Fatalf("data %s: %v", d.Event.Data, err)
			}
			if d.Object == "payout:"+payoutID && (v.Amount != "60.00" || v.State != strings.TrimPrefix(tt.want, "payout.")) {
				t.Fatalf("payout data %s", d.Event.Data)
			}
		})
	}
	if _, err := FromPayouts(map[string]any{"type": "payout.paid", "at": "x"}); err == nil {
		t.Fatal("an entry without a time was read")
	}
}

// TestFromSettlement: a settlement or a reserve's release is
// balance.settled with the balance after it; every other journal
// transaction is none.
func TestFromSettlement(t *testing.T) {
	m := func(b string) string { return journal.Merchant("1001", b) }
	tx := func(kind string, ps ...journal.Posting) journal.Entry {
		return journal.Entry{ID: "5-0", Key: kind + ":" + oid, Kind: kind, AppID: "1001", Ref: oid, At: at, Postings: ps}
	}
	tests := []struct {
		name      string
		e         journal.Entry
		ok        bool
		available string
		reserved  string
	}{
		{"a payment", tx(journal.KindPayment, journal.Posting{Account: m(journal.Pending), Currency: "USD", Amount: 9700},
			journal.Posting{Account: "platform:fees", Currency: "USD", Amount: 300}), false, "", ""},
		{"a settlement with a reserve", tx(journal.KindSettlement,
			journal.Posting{Account: m(journal.Pending), Currency: "USD", Amount: -9700},
			journal.Posting{Account: m(journal.Available), Currency: "USD", Amount: 9215},
			journal.Posting{Account: m(journal.Reserve), Currency: "USD", Amount: 485}), true, "92.15", "4.85"},
		{"a reserve released", tx(journal.KindReserveRelease,
			journal.Posting{Account: m(journal.Reserve), Currency: "USD", Amount: -485},
			journal.Posting{Account: m(journal.Available), Currency: "USD", Amount: 485}), true, "4.85", "-4.85"},
	}
	bal := journal.Balance{Currency: "USD", Available: 100000, Reserve: 485}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := SettlementOf(tt.e)
			if ok != tt.ok {
				t.Fatalf("a settlement: %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			d, err := FromSettlement(s, bal)
			if err != nil {
				t.Fatal(err)
			}
			var data SettledData
			if err := json.Unmarshal(d.Event.Data, &data); err != nil {
				t.Fatal(err)
			}
			if d.Event.Type != BalanceSettled || d.Object != "balance:USD" || d.AppID != "1001" || d.Event.ID != ID(BalanceSettled, tt.e.Key) ||
				data.Available != "1000.00" || data.Currency != "USD" || data.Settlement.Amount != tt.available ||
				data.Settlement.Reserved != tt.reserved || data.Settlement.PaymentID != oid || data.Settlement.Transaction != tt.e.Key {
				t.Fatalf("derived %+v: %s", d, d.Event.Data)
			}
		})
	}
	if _, err := FromSettlement(Settlement{Currency: "USD"}, journal.Balance{Currency: "EUR"}); err == nil {
		t.Fatal("a balance of another currency was taken")
	}
}
