package channel

import (
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

func TestSettingsValidate(t *testing.T) {
	tests := []struct {
		name string
		s    Settings
		bad  string // a fragment of the error, "" for valid
	}{
		{"defaults", Defaults(), ""},
		{"weight too big", Settings{Weight: MaxWeight + 1}, "weight"},
		{"min above max", Settings{MinAmount: 10, MaxAmount: 5}, "above max"},
		{"negative cap", Settings{DailyCount: -1}, "negative"},
		{"bad zone", Settings{TimeZone: "Mars/Olympus"}, "time zone"},
		{"bad hours", Settings{Active: "9-17"}, "active hours"},
		{"empty span", Settings{Active: "09:00-09:00"}, "active hours"},
		{"list and group", Settings{Merchants: []string{"1"}, Group: "g"}, "not both"},
		{"markup group", Settings{Group: "<b>"}, "group"},
		{"bad cost", Settings{Cost: schema.FeeSchedule{Bps: -1}}, "cost"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			if tc.bad == "" && err != nil {
				t.Fatalf("valid settings refused: %v", err)
			}
			if tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)) {
				t.Fatalf("error %v, want one about %q", err, tc.bad)
			}
		})
	}
}

func TestCheckID(t *testing.T) {
	for _, id := range []string{"a", "default", "acct-2", "x_1"} {
		if CheckID(id) != nil {
			t.Errorf("%q refused", id)
		}
	}
	for _, id := range []string{"", "A", "<script>", "a.b", "a/b", "-a", strings.Repeat("a", MaxIDLen+1)} {
		if CheckID(id) == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestRefRoundTrip(t *testing.T) {
	for _, r := range []Ref{{Method: schema.MethodWalletA, ID: "default"}, {Sandbox: true, Method: schema.MethodUSDTDirect, ID: "alt"}} {
		got, err := ParseRef(r.String())
		if err != nil || got != r {
			t.Fatalf("%s parsed as %+v, %v", r, got, err)
		}
	}
	if _, err := ParseRef("walleta.<b>"); err == nil {
		t.Fatal("markup id parsed")
	}
	if s := (Ref{Method: schema.MethodWalletA}).String(); s != "wallet_a.default" {
		t.Fatalf("empty id spelled %q", s)
	}
}

func TestKeywordsThatMatchEverythingAreRefused(t *testing.T) {
	for _, kw := range [][]string{{""}, {" "}, {"a"}, {"..."}, {"  ab "}, {"...."}, {"----"}, {" :::: "}, {"。。"}, {"！？！？"}} {
		if CheckKeywords(kw) == nil {
			t.Errorf("keywords %q accepted", kw)
		}
	}
	if err := CheckKeywords([]string{"account restricted", "风控"}); err != nil {
		t.Fatalf("sound keywords refused: %v", err)
	}
	if k := MatchKeyword([]string{"Account Restricted"}, "code 40004: ACCOUNT RESTRICTED by risk"); k == "" {
		t.Fatal("case-insensitive match missed")
	}
	if k := MatchKeyword([]string{"account restricted"}, "invalid amount"); k != "" {
		t.Fatalf("matched %q in an unrelated message", k)
	}
}

func TestCapDayIsTheChannelsZone(t *testing.T) {
	// 16:30 UTC on the 28th is 00:30 on the 29th in Shanghai.
	at := time.Date(2026, 11, 28, 16, 30, 0, 0, time.UTC)
	if d := (Settings{}).Day(at); d != "20261128" {
		t.Fatalf("UTC day %s", d)
	}
	if d := (Settings{TimeZone: "Asia/Shanghai"}).Day(at); d != "20261129" {
		t.Fatalf("Shanghai day %s, want 20261129", d)
	}
}

func TestSettingsRoundTripWithCost(t *testing.T) {
	s := Settings{Weight: 3, DailyCount: 10, Cost: schema.FeeSchedule{Bps: 120, Fixed: 30}}
	v, err := encodeSettings(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeSettings(v)
	if err != nil || got.Cost != s.Cost || got.Weight != 3 || got.DailyCount != 10 {
		t.Fatalf("round trip %+v, %v", got, err)
	}
}
