package chaos

import (
	"fmt"
	"math"
	"time"
)

// Floors are the least activity a scenario must show, so that no rule
// passes on nothing: a run where every pay fails would otherwise pass the
// webhook and balance rules with no webhook and no balance payment to
// check. A floor is a fraction of what the load offered during the
// scenario, so it scales with the rates, with an absolute minimum, so it
// is never zero. The fraction is well below one: the gateway may answer
// less than it is offered (a machine busy with other work, a fault that
// takes processes away for seconds), which is not what the audit judges,
// but it may not answer next to nothing.
type Floors struct {
	Fraction float64 // of the offered count, for every kind below
	// Absolute minimums per scenario.
	Creates, PaidWebhooks, BalancePayments int
}

// DefaultFloors: a twentieth of the offered load, and at least 50 answered
// creates, 10 paid orders whose webhook the merchant acknowledged and 5
// balance payments (own-balance creates and transfers) per scenario. A
// tenth failed redis-kill9 in make test on a quiet 2-core machine: the six
// processes answer about a third of the 1,000 creates/s offered there, and
// Redis is down for a third of the scenario (289 paid with webhooks, floor
// 315); a twentieth still refuses a run where nearly every pay fails.
var DefaultFloors = Floors{Fraction: 0.05, Creates: 50, PaidWebhooks: 10, BalancePayments: 5}

// Activity is what a scenario achieved, counted by the load and the
// receiver.
type Activity struct {
	Duration        time.Duration // the load ran this long
	Creates         int           // answered 2xx
	PaidWebhooks    int           // orders paid by the load whose webhook was acknowledged
	BalancePayments int           // balance creates and transfers answered OK
	FailedRequests  int           // of every kind
}

// Check lists the floors a scenario's activity fell below; a baseline (no
// fault) must also have no failed request at all.
func (f Floors) Check(rates Rates, a Activity, baseline bool) []string {
	secs := a.Duration.Seconds()
	var out []string
	below := func(what string, got int, rate float64, minimum int) {
		want := max(minimum, int(math.Floor(f.Fraction*rate*secs)))
		if got < want {
			out = append(out, fmt.Sprintf("activity floor: %d %s in %s, want ≥ %d (%.0f%% of %.0f/s offered, at least %d)",
				got, what, a.Duration.Round(time.Second), want, 100*f.Fraction, rate, minimum))
		}
	}
	below("answered creates", a.Creates, rates.Creates, f.Creates)
	// Every pay needs a payable order; a create of "select" is not one.
	below("paid orders with acknowledged webhooks", a.PaidWebhooks, rates.Pays, f.PaidWebhooks)
	below("balance payments", a.BalancePayments, rates.SelfPays+rates.Transfers, f.BalancePayments)
	if baseline && a.FailedRequests > 0 {
		out = append(out, fmt.Sprintf("baseline: %d failed requests, want 0", a.FailedRequests))
	}
	return out
}
