package operator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Money is the operator's view of and hand on a merchant's money: its
// terms, its journal and balances, and manual adjustments with a second
// operator's approval above a threshold. Admins change; support and
// auditors read (merchants.write, merchants.read).
type Money struct {
	cfg MoneyConfig
	rdb redis.UniversalClient
	st  *merchant.Store
	j   *journal.Journal
	log Auditor
	now func() time.Time
	lg  *slog.Logger
	// payouts remembers who changed a merchant's payout settings, so that
	// the same operator cannot then approve that merchant's payouts.
	payouts ChangeNoter
}

// ChangeNoter records an operator's change of a merchant's payout settings:
// a *payout.Store.
type ChangeNoter interface {
	NoteChange(ctx context.Context, appid, changer string) error
}

// WithPayouts makes every change of terms noted in n (maker-checker).
func (m *Money) WithPayouts(n ChangeNoter) *Money { m.payouts = n; return m }

// MoneyConfig bounds what one operator moves alone.
type MoneyConfig struct {
	// ApprovalAbove: an adjustment larger than this (either sign, in the
	// currency's minor units) is a request a second admin approves
	// (GATEWAY_ADJUST_APPROVAL_ABOVE, default 1000.00).
	ApprovalAbove schema.Amount
	// Keep is how long a decided adjustment's record stays listed (the
	// journal and the audit log keep it for ever).
	Keep time.Duration
}

// MoneyDefaults: above 1000.00 needs a second admin; records kept 90 days.
func MoneyDefaults() MoneyConfig {
	return MoneyConfig{ApprovalAbove: 100000, Keep: 90 * 24 * time.Hour}
}

func (c MoneyConfig) withDefaults() MoneyConfig {
	d := MoneyDefaults()
	if c.ApprovalAbove == 0 {
		c.ApprovalAbove = d.ApprovalAbove
	}
	if c.Keep == 0 {
		c.Keep = d.Keep
	}
	return c
}

// Validate refuses a negative threshold and a record kept under a day.
func (c MoneyConfig) Validate() error {
	if c.ApprovalAbove < 0 {
		return fmt.Errorf("adjustment approval threshold %s: not negative", c.ApprovalAbove)
	}
	if c.Keep < 24*time.Hour {
		return fmt.Errorf("adjustment records kept %s: at least 24h", c.Keep)
	}
	return nil
}

// NewMoney wraps the merchant store and the journal.
func NewMoney(cfg MoneyConfig, rdb redis.UniversalClient, st *merchant.Store, j *journal.Journal, log Auditor, lg *slog.Logger) (*Money, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	return &Money{cfg: cfg, rdb: rdb, st: st, j: j, log: log, now: time.Now, lg: lg}, nil
}

// ApprovalAbove is the threshold, for the pages to say.
func (m *Money) ApprovalAbove() schema.Amount { return m.cfg.ApprovalAbove }

// Terms are appid's terms as the ledger applies them.
func (m *Money) Terms(ctx context.Context, actor access.Actor, appid string) (merchant.Terms, error) {
	if err := allow(actor, access.PermMerchantsRead); err != nil {
		return merchant.Terms{}, err
	}
	a, err := m.st.Get(ctx, appid)
	if err != nil {
		return merchant.Terms{}, notFoundMerchant(err)
	}
	return a.Terms, nil
}

// SetTerms replaces appid's terms, the change and its entry one step
// (merchant.Store.Audited). Every process picks it up with the account.
func (m *Money) SetTerms(ctx context.Context, actor access.Actor, appid string, t merchant.Terms) (*merchant.Account, error) {
	if err := allow(actor, access.PermMerchantsWrite); err != nil {
		return nil, err
	}
	if err := t.Validate(); err != nil {
		return nil, invalid(err.Error())
	}
	e, err := checked(entry(m.now(), actor, "merchant.set_terms", "merchant:"+appid, appid,
		map[string]string{"terms": TermsText(t)}))
	if err != nil {
		return nil, err
	}
	if _, err := m.st.Get(ctx, appid); err != nil {
		return nil, notFoundMerchant(err)
	}
	// Noted before the change: a change that fails after it only keeps
	// this operator from approving for a while, never the other way round.
	if err := m.notePayoutChange(ctx, actor, appid); err != nil {
		return nil, err
	}
	return m.st.Audited(e).SetTerms(ctx, appid, t)
}

// TermsText is terms in one line, as the audit entry and the CLI show
// them: "D+1 00:00 UTC, reserve 500 bps for 90 days, refund returns fee,
// may go negative".
func TermsText(t merchant.Terms) string {
	parts := []string{"instant"}
	if !t.Instant {
		tz := t.TimeZone
		if tz == "" {
			tz = "UTC"
		}
		parts[0] = fmt.Sprintf("D+%d %02d:00 %s", t.DelayDays, t.CutoffHour, tz)
	}
	if t.ReserveBps > 0 {
		parts = append(parts, "reserve "+strconv.Itoa(t.ReserveBps)+" bps for "+strconv.Itoa(t.ReserveDays)+" days")
	}
	if t.RefundReturnsFee {
		parts = append(parts, "refund returns fee")
	}
	if t.AllowNegative {
		parts = append(parts, "may go negative")
	}
	for _, cur := range t.PayoutCurrencies() {
		p := t.PayoutsFor(cur)
		review := "all reviewed"
		if p.AutoApproveBelow > 0 {
			review = "auto-approved below " + p.AutoApproveBelow.String()
		}
		parts = append(parts, fmt.Sprintf("payouts in %s from %s, fee %s, %s", cur, p.Min, p.Fee, review))
	}
	return strings.Join(parts, ", ")
}

// JournalPage is a page of a merchant's journal with its balances now.
type JournalPage struct {
	Entries  []journal.Entry
	Next     string // the cursor of the following page, "" at the start
	Balances []journal.Balance
}

// MaxJournalPage bounds one page of a merchant's journal.
const MaxJournalPage = 200

// Journal is a page of appid's journal, newest first, before the cursor
// before ("" for the newest), with its balances.
func (m *Money) Journal(ctx context.Context, actor access.Actor, appid, before string, limit int) (JournalPage, error) {
	if err := allow(actor, access.PermMerchantsRead); err != nil {
		return JournalPage{}, err
	}
	if before != "" && !validCursor(before) {
		return JournalPage{}, invalid("the page cursor is not a journal entry id")
	}
	limit = min(max(limit, 1), MaxJournalPage)
	var p JournalPage
	var err error
	if p.Entries, p.Next, err = m.j.MerchantEntries(ctx, appid, before, limit); err != nil {
		return JournalPage{}, err
	}
	p.Balances, err = m.j.Balances(ctx, appid)
	return p, err
}

// validCursor: a stream id, "<ms>-<seq>".
func validCursor(s string) bool {
	a, b, ok := strings.Cut(s, "-")
	_, e1 := strconv.ParseUint(a, 10, 64)
	_, e2 := strconv.ParseUint(b, 10, 64)
	return ok && e1 == nil && e2 == nil
}

// notFoundMerchant makes the store's missing account a 404.
func notFoundMerchant(err error) error {
	if errors.Is(err, merchant.ErrNotFound) {
		return platform.Errorf(platform.KindNotFound, "no such merchant")
	}
	return err
}
