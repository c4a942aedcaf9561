package chaos

import (
	"fmt"
	"math"
	"time"
)

// Floors are the least activity a scenario must show, so that no rule
// passes on nothing: a run where every pay fails would otherwise pass the
// webhook and balance rules with no webhook and no balance payment to
// check.
//
// A floor is relative to what the same run achieved without a fault, not
// to what the load offered: the machine, not the gateway, decides how much
// of the offered load is answered (on this 2-core machine, busy with other
// work, redis-kill9 once answered 175 paid orders where a twentieth of the
// offered 267/s asked for 296, and passed its audit). The baseline runs
// first, so its rates measure the machine as it is during the run:
//
//   - creates: a Fraction of the creates the baseline answered per second
//     of load, over the scenario's duration; or, if less, of the creates
//     the load managed to send in the scenario times the share the baseline
//     answered (a machine that got busier after the baseline sends fewer);
//   - paid orders with an acknowledged webhook, and balance payments: a
//     PerCreate fraction of what the baseline achieved per answered create,
//     times the creates the scenario answered. Pays and balance payments are
//     made on the load's creates, so the share survives a busy machine; a
//     run where pays fail while creates work has a share near zero.
//
// Every floor also has an absolute minimum, so none is ever zero: a run
// with no paid order fails whatever the baseline did. The baseline itself
// has only the minimums, and must answer every request it sends.
type Floors struct {
	Fraction  float64 // of the baseline's answered creates per second
	PerCreate float64 // of the baseline's paid orders and balance payments per answered create
	// Absolute minimums per scenario.
	Creates, PaidWebhooks, BalancePayments int
}

// DefaultFloors: a tenth of the baseline's creates per second, half its
// paid orders and balance payments per answered create, and at least 50
// answered creates, 10 paid orders whose webhook the merchant acknowledged
// and 5 balance payments (own-balance creates and transfers) per scenario.
// The worst scenario yet answered 37 % of its baseline's creates per second
// (redis-kill9 in make chaos-quick, Redis gone for half the scenario; 45 %
// for combined-storm in the last full run), so a tenth leaves room for a
// machine nearly four times busier during a fault than during the
// baseline. Per answered create every scenario kept at least 95 % of the
// baseline's paid orders and 83 % of its balance payments, on a quiet and
// on a busy machine alike, so half still has room, and refuses a run where
// more than half the pays fail.
var DefaultFloors = Floors{Fraction: 0.1, PerCreate: 0.5, Creates: 50, PaidWebhooks: 10, BalancePayments: 5}

// Activity is what a scenario achieved, counted by the load and the
// receiver.
type Activity struct {
	Duration        time.Duration // the load ran this long
	Creates         int           // answered 2xx
	CreatesSent     int           // sent, answered or not
	PaidWebhooks    int           // orders paid by the load whose webhook was acknowledged
	BalancePayments int           // balance creates and transfers answered OK
	FailedRequests  int           // of every kind
	// FailedBy counts FailedRequests by "op reason" (status, time-out,
	// refused...), for the baseline's message.
	FailedBy map[string]int
}

// Want is the floors one scenario had to reach, and what they came from.
type Want struct {
	Creates, PaidWebhooks, BalancePayments int
	Basis                                  string // for the report
}

// For is the floors of activity a, with ref the same run's baseline (nil:
// a is the baseline, or none ran: the minimums only).
func (f Floors) For(ref *Activity, a Activity) Want {
	w := Want{Creates: f.Creates, PaidWebhooks: f.PaidWebhooks, BalancePayments: f.BalancePayments, Basis: "minimums"}
	if ref == nil || ref.Creates == 0 || ref.Duration <= 0 {
		return w
	}
	byTime := float64(ref.Creates) / ref.Duration.Seconds() * a.Duration.Seconds()
	bySent := float64(a.CreatesSent) * min(1, float64(ref.Creates)/float64(max(1, ref.CreatesSent)))
	perCreate := func(n int) float64 { return float64(n) / float64(ref.Creates) * float64(a.Creates) }
	w.Creates = max(w.Creates, share(f.Fraction, min(byTime, bySent)))
	w.PaidWebhooks = max(w.PaidWebhooks, share(f.PerCreate, perCreate(ref.PaidWebhooks)))
	w.BalancePayments = max(w.BalancePayments, share(f.PerCreate, perCreate(ref.BalancePayments)))
	w.Basis = fmt.Sprintf("%.0f%% of the baseline's %.0f creates/s (or of %d sent here); %.0f%% of its %.1f paid and %.1f balance payments per 100 creates",
		100*f.Fraction, float64(ref.Creates)/ref.Duration.Seconds(), a.CreatesSent, 100*f.PerCreate,
		100*float64(ref.PaidWebhooks)/float64(ref.Creates), 100*float64(ref.BalancePayments)/float64(ref.Creates))
	return w
}

func share(fraction, of float64) int { return int(math.Floor(fraction * of)) }

// Check lists the floors a scenario's activity fell below (ref as in For);
// the baseline (ref nil) must also have no failed request at all.
func (f Floors) Check(ref *Activity, a Activity) []string {
	w := f.For(ref, a)
	var out []string
	below := func(what string, got, want int) {
		if got < want {
			out = append(out, fmt.Sprintf("activity floor: %d %s in %s, want ≥ %d (%s)",
				got, what, a.Duration.Round(time.Second), want, w.Basis))
		}
	}
	below("answered creates", a.Creates, w.Creates)
	below("paid orders with acknowledged webhooks", a.PaidWebhooks, w.PaidWebhooks)
	below("balance payments", a.BalancePayments, w.BalancePayments)
	if ref == nil && a.FailedRequests > 0 {
		out = append(out, fmt.Sprintf("baseline: %d failed requests (%s), want 0", a.FailedRequests, reasonsLine(a.FailedBy)))
	}
	return out
}
