package command

import "github.com/paygate/gateway/schema"

// FeeSchedules are the operator's fee schedules as the create path and the
// payer's choice read them (a fees.Resolver: an in-process copy, so a
// lookup costs no Redis round trip).
type FeeSchedules interface {
	For(appid string, m schema.Method, cur string) schema.FeeSchedule
}

// noFees charges nothing: a process built without schedules (Deps.Fees nil).
type noFees struct{}

func (noFees) For(string, schema.Method, string) schema.FeeSchedule { return schema.FeeSchedule{} }

// recordFee writes the schedule in force for o's method on o, once, when
// the method is known: at create for a method given there, at the payer's
// choice for select. It is never recomputed, so an operator's later change
// reprices no order already initialised. A zero schedule records nothing.
func (h *initiator) recordFee(o *schema.Order) {
	if o.Method == schema.MethodSelect {
		return
	}
	o.Fee = h.fees.For(o.AppID, o.Method, o.Currency).String()
}

// feeFields are o's fee field for a choice's write: none when it is zero,
// so an order without a fee gains no hash field.
func feeFields(o *schema.Order) []string {
	if o.Fee == "" {
		return nil
	}
	return []string{schema.FFee, o.Fee}
}
