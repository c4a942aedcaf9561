package chaos

import (
	"strings"
	"testing"
	"time"
)

// TestFloors: a scenario passes on what a busy machine answers, and fails
// when a kind of activity is missing or tiny, or the baseline failed
// anything.
func TestFloors(t *testing.T) {
	rates := Rates{Creates: 1000, Pays: 250, SelfPays: 100, Transfers: 30}
	healthy := Activity{Duration: 10 * time.Second, Creates: 9000, PaidWebhooks: 2300, BalancePayments: 1200}
	busy := Activity{Duration: 10 * time.Second, Creates: 1500, PaidWebhooks: 400, BalancePayments: 200}
	cases := []struct {
		name     string
		rates    Rates
		a        Activity
		baseline bool
		want     string // "" passes, else a substring of a problem
	}{
		{"healthy", rates, healthy, true, ""},
		{"busy machine answers 15% of the offered load", rates, busy, false, ""},
		{"every pay fails", rates, with(healthy, func(a *Activity) { a.PaidWebhooks = 0 }), false, "paid orders"},
		{"webhooks never acknowledged", rates, with(healthy, func(a *Activity) { a.PaidWebhooks = 3 }), false, "paid orders"},
		{"balance payments fail", rates, with(healthy, func(a *Activity) { a.BalancePayments = 10 }), false, "balance payments"},
		{"creates barely answered", rates, with(healthy, func(a *Activity) { a.Creates = 200 }), false, "answered creates"},
		{"baseline with one failed request", rates, with(healthy, func(a *Activity) { a.FailedRequests = 1 }), true, "baseline"},
		{"a fault may fail requests", rates, with(healthy, func(a *Activity) { a.FailedRequests = 500 }), false, ""},
		{"tiny load still needs the minimum", Rates{Creates: 1, Pays: 1, SelfPays: 1}, Activity{Duration: time.Second}, false, "answered creates"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(DefaultFloors.Check(tc.rates, tc.a, tc.baseline), "; ")
			switch {
			case tc.want == "" && got != "":
				t.Errorf("want a pass, got %s", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("want a problem about %q, got %q", tc.want, got)
			}
		})
	}
}

func with(a Activity, f func(*Activity)) Activity {
	f(&a)
	return a
}
