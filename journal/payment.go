package journal

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/channel"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// Transaction kinds and the prefixes of their keys ("<kind>:<id>").
const (
	KindPayment        = "payment"
	KindRefund         = "refund"
	KindRefundReversal = "refund_reversal"
	KindSettlement     = "settlement"
	KindReserveRelease = "reserve_release"
	KindTopUp          = "topup"
	KindAdjustment     = "adjustment"
	KindOpening        = "opening"
	KindBalanceDebit   = "balance_debit"
	KindBalanceRevert  = "balance_reversal"
	KindBalanceOrder   = "balance_order"
	KindRecon          = "recon" // a statement line that cleared a receivable
)

// Source is where a provider-paid order's money came from: the receivable
// of the provider account (channel) it went to, named by mode, method and
// id ("channel:wallet_a.default:receivable"), since ids are unique only
// within a method and sandbox money must never meet live money.
func Source(o *schema.Order) string { return Receivable(channel.OfOrder(o).String()) }

// Priced is a paid order's money, as the ledger reads it off the order.
type Priced struct {
	Gross, Fee, Net schema.Amount // in the order's currency
	Cost            schema.Amount // in the charged currency
}

// Price reads what o's payment is worth: the fee from the schedule recorded
// on it, capped at the amount; the provider account's cost on the charge.
func Price(o *schema.Order) (Priced, error) {
	fee, err := schema.ParseFeeSchedule(o.Fee)
	if err != nil {
		return Priced{}, fmt.Errorf("order %s: %w", o.ID, err)
	}
	cost, err := schema.ParseFeeSchedule(o.Cost)
	if err != nil {
		return Priced{}, fmt.Errorf("order %s: cost: %w", o.ID, err)
	}
	charged, _ := o.Charge()
	p := Priced{Gross: o.Amount, Fee: fee.Fee(o.Amount), Cost: cost.Fee(charged)}
	p.Net = p.Gross - p.Fee
	return p, nil
}

// PaymentTx posts paid order o, whose money came from source (Source(o)
// for a provider's payment, Transit for a balance transfer): the gross into
// the merchant's pending balance, or available when it settles at once,
// the fee to platform:fees, a charge in another currency through
// platform:fx, the provider account's cost. A payment that settles later
// carries its settlement as the Due entry, added in the same step.
func PaymentTx(o *schema.Order, t merchant.Terms, source string, instant bool) (Tx, error) {
	p, err := Price(o)
	if err != nil {
		return Tx{}, err
	}
	paid := o.CompletedAt
	if paid.IsZero() {
		paid = o.UpdatedAt
	}
	tx := Tx{Key: KindPayment + ":" + o.ID, Kind: KindPayment, AppID: o.AppID, Ref: o.ID, At: paid}
	charged, ccur := o.Charge()
	add := func(acct, cur string, n schema.Amount) {
		if n != 0 {
			tx.Postings = append(tx.Postings, Posting{Account: acct, Currency: cur, Amount: n})
		}
	}
	// The provider keeps its cost: it owes the platform the charge less it.
	add(source, ccur, -charged+p.Cost)
	add(Cost(channelOf(source)), ccur, -p.Cost)
	if ccur != o.Currency {
		add(FX, ccur, charged)
		add(FX, o.Currency, -p.Gross)
	}
	add(Fees, o.Currency, p.Fee)
	settleAt := t.SettleAt(paid)
	if instant || !settleAt.After(paid) {
		reserve := reserveOf(p.Net, t)
		add(Merchant(o.AppID, Available), o.Currency, p.Gross-p.Fee-reserve)
		add(Merchant(o.AppID, Reserve), o.Currency, reserve)
		if reserve > 0 {
			tx.Due = releaseDue(o.AppID, o.ID, o.Currency, reserve, paid.Add(reserveHold(t)))
		}
		return tx, nil
	}
	add(Merchant(o.AppID, Pending), o.Currency, p.Net)
	if p.Net > 0 {
		tx.Due = &Due{Key: schema.SettleDueKey(schema.HomeShard(o.AppID)), At: settleAt,
			Member: DueMove{Kind: KindSettlement, AppID: o.AppID, Ref: o.ID, Currency: o.Currency, Amount: p.Net,
				Reserve: reserveOf(p.Net, t), Hold: reserveHold(t)}.String()}
	}
	return tx, nil
}

func channelOf(receivable string) string {
	s := strings.TrimPrefix(receivable, "channel:")
	s, _, _ = strings.Cut(s, ":")
	return s
}

// reserveOf is the rolling reserve held back from net under t (rounded
// down: the merchant gets the odd minor unit).
func reserveOf(net schema.Amount, t merchant.Terms) schema.Amount {
	if t.ReserveBps <= 0 || net <= 0 {
		return 0
	}
	n := new(big.Int).Mul(big.NewInt(int64(net)), big.NewInt(int64(t.ReserveBps)))
	return schema.Amount(n.Quo(n, big.NewInt(schema.MaxFeeBps)).Int64())
}

func reserveHold(t merchant.Terms) time.Duration {
	return time.Duration(t.ReserveDays) * 24 * time.Hour
}

func releaseDue(appid, ref, cur string, amt schema.Amount, at time.Time) *Due {
	return &Due{Key: schema.SettleDueKey(schema.HomeShard(appid)), At: at,
		Member: DueMove{Kind: KindReserveRelease, AppID: appid, Ref: ref, Currency: cur, Amount: amt}.String()}
}

// DueMove is one settlement move waiting in the due index: a payment's net
// from pending to available (less its reserve, held Hold), or a reserve's
// release to available.
type DueMove struct {
	Kind     string // KindSettlement or KindReserveRelease
	AppID    string
	Ref      string // the order id
	Currency string
	Amount   schema.Amount
	Reserve  schema.Amount // settlement: the part held in reserve
	Hold     time.Duration // settlement: how long the reserve is held
}

// String is the move as the due index's member: fields joined by "|".
func (d DueMove) String() string {
	return strings.Join([]string{d.Kind, d.AppID, d.Ref, d.Currency, strconv.FormatInt(int64(d.Amount), 10),
		strconv.FormatInt(int64(d.Reserve), 10), strconv.FormatInt(int64(d.Hold/time.Second), 10)}, "|")
}

// ParseDueMove reads a due index member.
func ParseDueMove(s string) (DueMove, error) {
	f := strings.Split(s, "|")
	if len(f) != 7 {
		return DueMove{}, fmt.Errorf("due move %q", s)
	}
	var n [3]int64
	for i := range n {
		v, err := strconv.ParseInt(f[4+i], 10, 64)
		if err != nil || v < 0 {
			return DueMove{}, fmt.Errorf("due move %q", s)
		}
		n[i] = v
	}
	d := DueMove{Kind: f[0], AppID: f[1], Ref: f[2], Currency: f[3], Amount: schema.Amount(n[0]),
		Reserve: schema.Amount(n[1]), Hold: time.Duration(n[2]) * time.Second}
	if (d.Kind != KindSettlement && d.Kind != KindReserveRelease) || d.Amount <= 0 || d.Reserve > d.Amount {
		return DueMove{}, fmt.Errorf("due move %q", s)
	}
	return d, nil
}

// Tx is the move's transaction, posted when it falls due at at: a
// settlement also schedules its reserve's release.
func (d DueMove) Tx(at time.Time) Tx {
	tx := Tx{Key: d.Kind + ":" + d.Ref, Kind: d.Kind, AppID: d.AppID, Ref: d.Ref, At: at}
	from := Pending
	if d.Kind == KindReserveRelease {
		from = Reserve
	}
	tx.Postings = append(tx.Postings, Posting{Account: Merchant(d.AppID, from), Currency: d.Currency, Amount: -d.Amount})
	if avail := d.Amount - d.Reserve; avail > 0 {
		tx.Postings = append(tx.Postings, Posting{Account: Merchant(d.AppID, Available), Currency: d.Currency, Amount: avail})
	}
	if d.Reserve > 0 {
		tx.Postings = append(tx.Postings, Posting{Account: Merchant(d.AppID, Reserve), Currency: d.Currency, Amount: d.Reserve})
		tx.Due = releaseDue(d.AppID, d.Ref, d.Currency, d.Reserve, at.Add(d.Hold))
	}
	// A refund may already have taken the pending money; settling it must
	// not refuse, so the move is allowed to leave pending below zero only
	// as the refund left it (the script checks the merchant's buckets).
	return tx
}
