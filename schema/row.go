package schema

import "time"

// OrderRow is the order as the projector inserts it, in OrderColumns order.
func OrderRow(o *Order, eventAt time.Time) []any {
	return []any{
		o.AppID, o.CreatedAt.UTC().Truncate(time.Second), o.ID, uint64(o.Version), b2u(o.Sandbox),
		o.ClientOrderID, int64(o.Amount), o.Currency, string(o.Method), uint8(o.Status), o.Description,
		o.CustomerName, o.CustomerEmail, o.CustomerPhone, o.NotifyURL, o.ReturnURL, o.Lang,
		o.AllowedMethods, o.FiatpspSystemID, o.ProviderURL, o.NextAction, o.QRPayload, o.PayableAmount,
		b2u(o.PaidWithBalance), ms(o.CreatedAt), ms(o.UpdatedAt), ms(o.CompletedAt), ms(eventAt),
		o.PayCurrency, int64(o.ChargeAmount), o.ChargeCurrency, o.FXRate, o.ProviderRef, int64(o.Refunded),
	}
}

// OrderSelect is the column list that ScanOrder reads, for the query side.
const OrderSelect = "id, appid, version, sandbox, client_order_id, amount, currency, method, status, description, " +
	"customer_name, customer_email, customer_phone, notify_url, return_url, lang, allowed_methods, " +
	"fiatpsp_system_id, provider_url, next_action, qr_payload, payable_amount, paid_with_balance, " +
	"created_ms, updated_ms, completed_ms, pay_currency, charge_amount, charge_currency, fx_rate, provider_ref, refunded_amount"

// Scanner is what a ClickHouse row offers.
type Scanner interface {
	Scan(dest ...any) error
}

// ScanOrder reads one row selected with OrderSelect.
func ScanOrder(r Scanner) (Order, error) {
	var (
		o                      Order
		version, cms, ums, dms uint64
		sandbox, status, pwb   uint8
		amount, charge, rfd    int64
		method                 string
	)
	err := r.Scan(&o.ID, &o.AppID, &version, &sandbox, &o.ClientOrderID, &amount, &o.Currency, &method, &status,
		&o.Description, &o.CustomerName, &o.CustomerEmail, &o.CustomerPhone, &o.NotifyURL, &o.ReturnURL, &o.Lang,
		&o.AllowedMethods, &o.FiatpspSystemID, &o.ProviderURL, &o.NextAction, &o.QRPayload, &o.PayableAmount,
		&pwb, &cms, &ums, &dms, &o.PayCurrency, &charge, &o.ChargeCurrency, &o.FXRate, &o.ProviderRef, &rfd)
	if err != nil {
		return Order{}, err
	}
	o.Version, o.Sandbox, o.Status, o.PaidWithBalance = int64(version), sandbox == 1, Status(status), pwb == 1
	o.Amount, o.Method, o.ChargeAmount, o.Refunded = Amount(amount), Method(method), Amount(charge), Amount(rfd)
	o.CreatedAt, o.UpdatedAt, o.CompletedAt = msTime(int64(cms)), msTime(int64(ums)), msTime(int64(dms))
	return o, nil
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func ms(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixMilli())
}
