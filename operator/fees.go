package operator

import (
	"context"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/fees"
)

// Fees are the operator's fee schedules as the console and the CLI change
// them: anyone who reads settings may list them, only fees.write may set or
// clear one, and each change is written with its audit entry in one step
// (fees.Store), so the log holds every schedule ever in force.
type Fees struct {
	st  *fees.Store
	now func() time.Time
}

// NewFees wraps the store.
func NewFees(st *fees.Store) *Fees { return &Fees{st: st, now: time.Now} }

// FeeChange is one set or clear as typed: appid "" for the default.
type FeeChange struct {
	AppID, Method, Currency string
	fees.Input
}

// List is every schedule, the defaults first.
func (f *Fees) List(ctx context.Context, actor access.Actor) ([]fees.Schedule, error) {
	if err := allow(actor, access.PermSettingsRead); err != nil {
		return nil, err
	}
	return f.st.List(ctx)
}

// Set parses c and makes it the schedule of its target from now on;
// orders already initialised keep the schedule they recorded.
func (f *Fees) Set(ctx context.Context, actor access.Actor, c FeeChange) (fees.Schedule, error) {
	if err := allow(actor, access.PermFeesWrite); err != nil {
		return fees.Schedule{}, err
	}
	t, err := fees.ParseTarget(c.AppID, c.Method, c.Currency)
	if err != nil {
		return fees.Schedule{}, err
	}
	s, err := fees.Parse(c.Input)
	if err != nil {
		return fees.Schedule{}, err
	}
	e, err := checked(entry(f.now(), actor, "fees.set", t.String(), t.AppID,
		map[string]string{"method": string(t.Method), "currency": t.Currency, "fee": fees.Describe(s)}))
	if err != nil {
		return fees.Schedule{}, err
	}
	return fees.Schedule{Target: t, Fee: s}, f.st.Set(ctx, t, s, e)
}

// Clear removes the schedule of c's target: a merchant pays the default
// again, a default charges nothing.
func (f *Fees) Clear(ctx context.Context, actor access.Actor, c FeeChange) error {
	if err := allow(actor, access.PermFeesWrite); err != nil {
		return err
	}
	t, err := fees.ParseTarget(c.AppID, c.Method, c.Currency)
	if err != nil {
		return err
	}
	e, err := checked(entry(f.now(), actor, "fees.clear", t.String(), t.AppID,
		map[string]string{"method": string(t.Method), "currency": t.Currency}))
	if err != nil {
		return err
	}
	return f.st.Clear(ctx, t, e)
}
