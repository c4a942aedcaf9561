package schema

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Order is the order record as every side stores and reads it.
type Order struct {
	ID              string
	AppID           string
	Sandbox         bool
	ClientOrderID   string
	Amount          Amount
	Currency        string
	Method          Method
	Status          Status
	Description     string
	CustomerName    string
	CustomerEmail   string
	CustomerPhone   string
	NotifyURL       string
	ReturnURL       string
	Lang            string
	AllowedMethods  string // comma-separated, only for select
	FiatpspSystemID string
	ProviderURL     string // where the provider sends the payer, when it does
	NextAction      string // the choice the payer must make first, if any
	QRPayload       string // what the QR image encodes, for QR methods
	PayableAmount   string // exact USDT amount for usdt_direct
	PayCurrency     string // cryptopsp: the cryptocurrency the payer chose
	Network         string // usdt_direct: the chain the payer sends on (TRC20, BEP20, ...)
	TxHash          string // usdt_direct: the payer's transaction hash, lower case, once submitted
	Review          string // usdt_direct: the review's state: "", waiting (for an administrator), approved, rejected
	// ReviewReason is why the last review rejected the hash or could not
	// decide: a reviewer's word (usdt.Decision.Reason: wrong_amount, ...)
	// or an administrator's text. After a rejection the order awaits a
	// transfer again and the payer pages show this; a new hash clears it.
	ReviewReason string
	// ReviewProgress is where the automatic review of TxHash stands.
	ReviewProgress USDTProgress
	// What the provider charges when it is not the order's own amount: a
	// USD order charged in BDT, at FXRate (BDT per USD) recorded when the
	// provider was initialised and never recomputed (DESIGN.md's FX row).
	ChargeAmount   Amount
	ChargeCurrency string
	FXRate         string
	ProviderRef    string // the provider's id of the payment (session, charge, invoice)
	// Fee is the fee schedule in force when the order was initialised
	// (FeeSchedule's form, "" for none); Cost is the provider account's
	// cost in the same form, which the channel routing records. The ledger
	// prices the payment from them, never from today's settings.
	Fee  string
	Cost string
	// Channel is the provider account the order went to ("" is the
	// method's only one, "default").
	Channel         string
	PaidWithBalance bool
	// Expired says the order was cancelled because its payment window
	// ended, not by its payer, its merchant or its provider: the status is
	// cancelled either way (SPEC.md), and only this tells a merchant's
	// order.expired from order.cancelled. It stays if the order is paid
	// late.
	Expired bool
	// Refunded is what the order's succeeded refunds gave back;
	// RefundReserved also counts the pending ones, and never exceeds Amount.
	Refunded       Amount
	RefundReserved Amount
	ClientIP       string
	// Door is the merchant door the order came in by: "" for SPEC.md's API,
	// DoorEpay for the epay-compatible one, whose orders are notified and
	// returned in that protocol's form. DoorType is the protocol's type
	// word the merchant sent (its notification names it again), DoorParam
	// its param, passed through untouched.
	Door        string
	DoorType    string
	DoorParam   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CompletedAt time.Time // zero until paid
	Version     int64
}

// Hash field names. They are short because a live order is a Redis hash and
// its size is most of Redis's memory per order; they are also the keys of the
// JSON snapshot in stream events, so renaming one is a schema change.
const (
	FID          = "id"
	FAppID       = "appid"
	FSandbox     = "sb"
	FClientOrder = "coid"
	FAmount      = "amt"
	FCurrency    = "cur"
	FMethod      = "m"
	FStatus      = "st"
	FDescription = "desc"
	FCustName    = "cn"
	FCustEmail   = "ce"
	FCustPhone   = "cp"
	FNotifyURL   = "nu"
	FReturnURL   = "ru"
	FLang        = "lang"
	FAllowed     = "allow"
	FFiatpspSys  = "fsys"
	FProviderURL = "purl"
	FNextAction  = "next"
	FQRPayload   = "qr"
	FPayable     = "pay"
	FPayCurrency = "pcur"
	FNetwork     = "net"
	FTxHash      = "txh"
	FReview      = "rv"
	FReviewWhy   = "rvr"
	FChargeAmt   = "ca"
	FChargeCur   = "cc"
	FFXRate      = "fx"
	FProviderRef = "pref"
	FFee         = "fee"
	FCost        = "cost"
	FChannel     = "chan"
	FPaidBalance = "pwb"
	FExpired     = "exp"
	FClientIP    = "ip"
	FDoor        = "door"
	FDoorType    = "dty"
	FDoorParam   = "dpar"
	FRefunded    = "rfd"
	FRefundRes   = "rfr"
	FCreatedAt   = "ct"
	FUpdatedAt   = "ut"
	FCompletedAt = "dt"
	FVersion     = "v"
)

// Fields renders the order as hash fields, leaving empty values out so a small
// order stays small; a missing field reads back as the zero value. Values an
// order's other fields give are left out too (a live order's hash is most of
// Redis's memory per order, held to ≤ 400 B): the creation time when it is the
// one the id carries, the update time while it is the creation time, the
// language when it is the default (DefaultLang), and a select order's next
// action while it is the method choice (a choice writes the method and the
// next action together; update.lua reads the guard the same way). The
// id is always the first field; the create script stores all but it (the
// key names the order), and the created event carries it.
func (o *Order) Fields() []string {
	f := make([]string, 0, 2*36)
	o.eachField(func(k any, v string) { f = append(f, k.(string), v) })
	return f
}

// AppendFieldArgs appends what Fields returns to dst as script arguments.
// The names reach add as constants, which Go boxes without allocating, so
// only the values cost an allocation each: the create path's arguments,
// where CPU per create counts, without a []string in between.
func (o *Order) AppendFieldArgs(dst []any) []any {
	o.eachField(func(k any, v string) { dst = append(dst, k, v) })
	return dst
}

// eachField gives emit every non-empty field in Fields' order. A name is
// an any so that a caller building script arguments boxes nothing.
func (o *Order) eachField(emit func(k any, v string)) {
	add := func(k any, v string) {
		if v != "" {
			emit(k, v)
		}
	}
	add(FID, o.ID)
	add(FPacked, o.packed())
	add(FMethod, string(o.Method))
	add(FStatus, strconv.Itoa(int(o.Status)))
	add(FReturnURL, o.ReturnURL)
	add(FFiatpspSys, o.FiatpspSystemID)
	add(FProviderURL, o.ProviderURL)
	if o.Method != MethodSelect || o.NextAction != NextMethodSelect {
		add(FNextAction, o.NextAction)
	}
	add(FQRPayload, o.QRPayload)
	add(FPayable, o.PayableAmount)
	add(FPayCurrency, o.PayCurrency)
	add(FNetwork, o.Network)
	add(FTxHash, o.TxHash)
	add(FReview, o.Review)
	add(FReviewWhy, o.ReviewReason)
	o.ReviewProgress.fields(add)
	if o.ChargeAmount != 0 {
		add(FChargeAmt, strconv.FormatInt(int64(o.ChargeAmount), 10))
	}
	add(FChargeCur, o.ChargeCurrency)
	add(FFXRate, o.FXRate)
	add(FFee, o.Fee)
	add(FCost, o.Cost)
	add(FChannel, o.Channel)
	add(FProviderRef, o.ProviderRef)
	add(FPaidBalance, boolField(o.PaidWithBalance))
	add(FExpired, boolField(o.Expired))
	if o.Refunded != 0 {
		add(FRefunded, strconv.FormatInt(int64(o.Refunded), 10))
	}
	if o.RefundReserved != 0 {
		add(FRefundRes, strconv.FormatInt(int64(o.RefundReserved), 10))
	}
	created := msField(o.CreatedAt)
	if byID, ok := OrderIDTime(o.ID); !ok || msField(byID) != created {
		add(FCreatedAt, created)
	}
	if updated := msField(o.UpdatedAt); updated != created {
		add(FUpdatedAt, updated)
	}
	add(FCompletedAt, msField(o.CompletedAt))
	add(FVersion, strconv.FormatInt(o.Version, 10))
}

// packed is FPacked's value: the create-time fields (packedNames).
func (o *Order) packed() string {
	lang := o.Lang
	if lang == DefaultLang {
		lang = ""
	}
	amount := ""
	if o.Amount != 0 {
		amount = strconv.FormatInt(int64(o.Amount), 10)
	}
	return packValues(&[len(packedNames)]string{
		o.AppID, boolField(o.Sandbox), o.ClientOrderID, amount, o.Currency, o.Description,
		o.CustomerName, o.CustomerEmail, o.CustomerPhone, o.NotifyURL, lang, o.AllowedMethods,
		o.ClientIP, o.Door, o.DoorType, o.DoorParam,
	})
}

// Charge is what the provider charges: the recorded conversion when there
// is one, else the order's own amount and currency.
func (o *Order) Charge() (Amount, string) {
	if o.ChargeCurrency != "" {
		return o.ChargeAmount, o.ChargeCurrency
	}
	return o.Amount, o.Currency
}

// OrderFromFields reads an order back from fields that hold its id (a
// snapshot, an event); a hash read by its key is OrderFromHash's.
func OrderFromFields(h map[string]string) (Order, error) {
	return orderFrom(func(k string) string { return h[k] })
}

// OrderFromHash reads back order id from its hash, which holds no id since the
// compact layout (its key names it); one stored before holds it too.
func OrderFromHash(id string, h map[string]string) (Order, error) {
	return orderFrom(func(k string) string {
		if k == FID {
			return id
		}
		return h[k]
	})
}

// OrderIDFromKey is the id an order hash's key names.
func OrderIDFromKey(key string) string { return key[strings.LastIndexByte(key, ':')+1:] }

// orderFrom reads an order from its hash fields, wherever they are held (a
// hash read, a stream entry).
func orderFrom(get func(string) string) (Order, error) {
	if get(FID) == "" {
		return Order{}, fmt.Errorf("order record has no id")
	}
	var errs []error
	num := func(k string) int64 {
		v := get(k)
		if v == "" {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("field %s=%q: %w", k, v, err))
		}
		return n
	}
	o := Order{
		ID: get(FID), AppID: get(FAppID), Sandbox: get(FSandbox) == "1", ClientOrderID: get(FClientOrder),
		Amount: Amount(num(FAmount)), Currency: get(FCurrency), Method: Method(get(FMethod)),
		Status: Status(num(FStatus)), Description: get(FDescription),
		CustomerName: get(FCustName), CustomerEmail: get(FCustEmail), CustomerPhone: get(FCustPhone),
		NotifyURL: get(FNotifyURL), ReturnURL: get(FReturnURL), Lang: get(FLang), AllowedMethods: get(FAllowed),
		FiatpspSystemID: get(FFiatpspSys), ProviderURL: get(FProviderURL), NextAction: get(FNextAction),
		QRPayload: get(FQRPayload), PayableAmount: get(FPayable), PaidWithBalance: get(FPaidBalance) == "1",
		Expired:     get(FExpired) == "1",
		PayCurrency: get(FPayCurrency), Network: get(FNetwork), TxHash: get(FTxHash), Review: get(FReview), ReviewReason: get(FReviewWhy), ChargeAmount: Amount(num(FChargeAmt)), ChargeCurrency: get(FChargeCur),
		FXRate: get(FFXRate), ProviderRef: get(FProviderRef), Fee: get(FFee), Cost: get(FCost), Channel: get(FChannel),
		ClientIP: get(FClientIP), Door: get(FDoor), DoorType: get(FDoorType), DoorParam: get(FDoorParam), CreatedAt: msTime(num(FCreatedAt)), UpdatedAt: msTime(num(FUpdatedAt)),
		CompletedAt: msTime(num(FCompletedAt)), Version: num(FVersion),
		Refunded: Amount(num(FRefunded)), RefundReserved: Amount(num(FRefundRes)),
	}
	if k := get(FPacked); k != "" {
		if err := o.unpack(k); err != nil {
			errs = append(errs, err)
		}
	}
	if o.CreatedAt.IsZero() {
		o.CreatedAt, _ = OrderIDTime(o.ID)
	}
	if o.Lang == "" {
		o.Lang = DefaultLang
	}
	if o.Method == MethodSelect && get(FNextAction) == "" {
		o.NextAction = NextMethodSelect
	}
	if o.UpdatedAt.IsZero() {
		o.UpdatedAt = o.CreatedAt
	}
	o.ReviewProgress = progressFrom(get, num)
	if len(errs) > 0 {
		return Order{}, fmt.Errorf("order %s: %v", o.ID, errs)
	}
	return o, nil
}

func boolField(b bool) string {
	if b {
		return "1"
	}
	return ""
}

func msField(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

func msTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// WireTime is DESIGN.md's time on the wire: RFC 3339, UTC, seconds.
func WireTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// DoorEpay is Order.Door for an order made through the epay-compatible door.
const DoorEpay = "epay"
