package chaos

import (
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
)

// TestFloors: a scenario passes on what a busy machine answers, measured
// against the same run's baseline, and fails when a kind of activity is
// missing or tiny next to it, or the baseline failed anything.
func TestFloors(t *testing.T) {
	// The last full run's baseline on a quiet machine, and its redis-kill9.
	quiet := Activity{Duration: 16 * time.Second, Creates: 7613, CreatesSent: 7613, PaidWebhooks: 748, BalancePayments: 1659}
	redisKill := Activity{Duration: 20 * time.Second, Creates: 4892, CreatesSent: 11410, PaidWebhooks: 492, BalancePayments: 1124}
	// A machine busy with other work: a tenth of that in the baseline,
	// and redis-kill9 as low as the run that failed the offered-load floor
	// (175 paid orders with acknowledged webhooks).
	busy := Activity{Duration: 14 * time.Second, Creates: 700, CreatesSent: 700, PaidWebhooks: 70, BalancePayments: 150}
	busyKill := Activity{Duration: 22 * time.Second, Creates: 1700, CreatesSent: 5200, PaidWebhooks: 175, BalancePayments: 360}
	cases := []struct {
		name string
		ref  *Activity // nil: the baseline itself
		a    Activity
		want string // "" passes, else a substring of a problem
	}{
		{"quiet baseline", nil, quiet, ""},
		{"busy baseline", nil, busy, ""},
		{"quiet redis-kill9", &quiet, redisKill, ""},
		{"busy machine: baseline low and scenario low", &busy, busyKill, ""},
		{"the machine got busy after a quiet baseline", &quiet,
			Activity{Duration: 22 * time.Second, Creates: 600, CreatesSent: 1500, PaidWebhooks: 55, BalancePayments: 130}, ""},
		{"planted: every pay fails", &quiet, with(redisKill, func(a *Activity) { a.PaidWebhooks = 0 }), "paid orders"},
		{"planted: every pay fails, in the baseline too", nil, with(quiet, func(a *Activity) { a.PaidWebhooks = 0 }), "paid orders"},
		{"planted: every pay fails on a busy machine", &busy, with(busyKill, func(a *Activity) { a.PaidWebhooks = 0 }), "paid orders"},
		{"nine pays in ten fail", &quiet, with(redisKill, func(a *Activity) { a.PaidWebhooks = 49 }), "paid orders"},
		{"three pays in five fail", &quiet, with(redisKill, func(a *Activity) { a.PaidWebhooks = 197 }), "paid orders"},
		{"webhooks never acknowledged", &quiet, with(redisKill, func(a *Activity) { a.PaidWebhooks = 3 }), "paid orders"},
		{"balance payments fail", &quiet, with(redisKill, func(a *Activity) { a.BalancePayments = 10 }), "balance payments"},
		{"balance payments fail on a busy machine", &busy, with(busyKill, func(a *Activity) { a.BalancePayments = 60 }), "balance payments"},
		{"creates barely answered", &quiet, with(redisKill, func(a *Activity) { a.Creates = 200 }), "answered creates"},
		{"zero", &quiet, Activity{Duration: 20 * time.Second, CreatesSent: 9000}, "answered creates"},
		{"zero, nothing even sent", &quiet, Activity{Duration: 20 * time.Second}, "paid orders"},
		{"zero baseline", nil, Activity{Duration: 16 * time.Second}, "answered creates"},
		{"zero baseline, then zero", &Activity{Duration: 16 * time.Second}, Activity{Duration: 20 * time.Second}, "balance payments"},
		{"baseline with one failed request", nil, with(quiet, func(a *Activity) {
			a.FailedRequests, a.FailedBy = 1, map[string]int{"query " + ReasonTimeout: 1}
		}), "baseline: 1 failed requests (query time-out 1)"},
		{"a fault may fail requests", &quiet, with(redisKill, func(a *Activity) { a.FailedRequests = 6518 }), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(DefaultFloors.Check(tc.ref, tc.a), "; ")
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

// TestClientTimeoutOutwaitsTheGateway: the load waits longer than the
// gateway makes a listing wait by design (the fair gate's read wait), so
// a time-out is a hang, not the gate's queue (a baseline once failed four
// listings the gateway answered 200 after the load's 5 s).
func TestClientTimeoutOutwaitsTheGateway(t *testing.T) {
	if gate := platform.Defaults().ClickHouseReadWait; DefaultClientTimeout <= gate {
		t.Errorf("the load gives up after %s, before the gateway's longest designed wait, %s", DefaultClientTimeout, gate)
	}
}
