package operator

import (
	"context"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/epay"
)

// EpayTypes is the operator's mapping of the epay door's type words to
// method codes (docs/epay-api.md): read by every operator, changed by who
// may change the channels' routing data (the admin), each change an audit
// entry with the mapping before and after. It is kept in Redis; without
// one, GATEWAY_EPAY_TYPES is in force.
type EpayTypes struct {
	store *epay.TypeStore
	log   Auditor
	now   func() time.Time
}

// NewEpayTypes wraps the store the doors read.
func NewEpayTypes(store *epay.TypeStore, log Auditor) *EpayTypes {
	return &EpayTypes{store: store, log: log, now: time.Now}
}

// EpayTypesView is what the page shows: the mapping in force word by
// word, the configured default, and the operator's own when one is kept.
type EpayTypesView struct {
	InForce []EpayType
	Default string
	Stored  string
	Custom  bool // the operator's mapping is in force, not the default
}

// EpayType is one word and the method it stands for.
type EpayType struct{ Word, Method string }

// View reads the mapping for actor.
func (e *EpayTypes) View(ctx context.Context, actor access.Actor) (EpayTypesView, error) {
	if err := allow(actor, access.PermSettingsRead); err != nil {
		return EpayTypesView{}, err
	}
	raw, stored, err := e.store.Stored(ctx)
	if err != nil {
		return EpayTypesView{}, err
	}
	t, err := e.store.Types(ctx)
	if err != nil {
		return EpayTypesView{}, err
	}
	v := EpayTypesView{Default: e.store.Default().String(), Stored: raw, Custom: stored}
	for _, w := range t.Words() {
		m, _ := t.Method(w)
		v.InForce = append(v.InForce, EpayType{Word: w, Method: string(m)})
	}
	return v, nil
}

// Set makes mapping ("word=method,...", epay.ParseTypes' form) the one in
// force; a malformed one is refused and nothing changes.
func (e *EpayTypes) Set(ctx context.Context, actor access.Actor, mapping string) error {
	if err := allow(actor, access.PermChannelsWrite); err != nil {
		return err
	}
	t, err := epay.ParseTypes(mapping)
	if err != nil {
		return invalid(err.Error())
	}
	return e.change(ctx, actor, "epay_types.set", map[string]string{"types": t.String(), "mode": "operator"}, func() error {
		_, err := e.store.Set(ctx, mapping)
		return err
	})
}

// Reset drops the operator's mapping: GATEWAY_EPAY_TYPES is in force again.
func (e *EpayTypes) Reset(ctx context.Context, actor access.Actor) error {
	if err := allow(actor, access.PermChannelsWrite); err != nil {
		return err
	}
	d := map[string]string{"types": e.store.Default().String(), "mode": "default"}
	return e.change(ctx, actor, "epay_types.reset", d, func() error { return e.store.Reset(ctx) })
}

// change checks the audit entry (the mapping in force after the change,
// and whether it is the operator's or the default), makes the change, then
// records it.
func (e *EpayTypes) change(ctx context.Context, actor access.Actor, action string, d map[string]string, do func() error) error {
	ae, err := checked(entry(e.now(), actor, action, "epay:types", "", d))
	if err != nil {
		return err
	}
	if err := do(); err != nil {
		return err
	}
	return record(ctx, e.log, ae)
}
