package operator

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
)

// Exception is one payment that needs a person, with its order and what
// can be done about it.
type Exception struct {
	Kind     string    `json:"kind"` // schema.Exception*
	ID       string    `json:"id"`   // unique within the kind: the order, the refund, or a refused record's digest
	OrderID  string    `json:"orderId,omitempty"`
	RefundID string    `json:"refundId,omitempty"`
	AppID    string    `json:"appid,omitempty"`
	At       time.Time `json:"at"` // when it happened (the last time, for a repeat)
	Provider string    `json:"provider,omitempty"`
	Verdict  string    `json:"verdict,omitempty"`
	Detail   string    `json:"detail"`
	// Paid and Ref are a mismatch's evidence: what the provider reported
	// it took ("90.00 USD") and its reference of that charge.
	Paid    string         `json:"paid,omitempty"`
	Ref     string         `json:"ref,omitempty"`
	Actions []string       `json:"actions"` // ActionResend, ActionHandle, ActionRefund, ActionRecordRefund
	Handled *Handled       `json:"handled,omitempty"`
	Attempt *RefundAttempt `json:"refundAttempt,omitempty"` // a provider refund that could not be asked
}

// Handled is an operator's word that an exception needs nothing more. A
// newer occurrence of the same exception (another mismatch on the order)
// shows again.
type Handled struct {
	At   time.Time `json:"at"`
	By   string    `json:"by"`
	Note string    `json:"note"`
	// RefundID is set when the mark is a provider refund's outcome (see
	// Refund); ProviderRefund is the provider's reference of the refund
	// made, empty when it refused.
	RefundID       string `json:"refundId,omitempty"`
	ProviderRefund string `json:"providerRefund,omitempty"`
}

// Actions on an exception.
const (
	ActionResend = "resend" // a dead webhook: one more attempt
	ActionHandle = "handle" // mark handled with a note
	// ActionRecordRefund: a mismatch whose money was given back at the
	// provider, outside the gateway (admin only; see RecordRefund).
	ActionRecordRefund = "record_refund"
	// ActionRefund: a mismatch whose charge the gateway gives back through
	// the order's provider (admin only; see Refund).
	ActionRefund = "refund"
)

// ExceptionsConfig bounds the queue.
type ExceptionsConfig struct {
	StuckRefund time.Duration // a refund pending longer than this is an exception (default 15 min)
	KeepHandled time.Duration // how long a handled mark is kept (default 8 days: past the order retention)
	PerSource   int           // newest exceptions read from each source (default 200)
	// RefundLease is how long one provider refund of an exception holds
	// it against a second (default 2 min: past any provider call's timeout).
	RefundLease time.Duration
}

// ExceptionsDefaults is the queue's bounds unless told otherwise.
func ExceptionsDefaults() ExceptionsConfig {
	return ExceptionsConfig{StuckRefund: 15 * time.Minute, KeepHandled: 8 * 24 * time.Hour, PerSource: 200, RefundLease: 2 * time.Minute}
}

// withDefaults fills the zero fields from ExceptionsDefaults.
func (c ExceptionsConfig) withDefaults() ExceptionsConfig {
	d := ExceptionsDefaults()
	c.StuckRefund = cmp.Or(c.StuckRefund, d.StuckRefund)
	c.KeepHandled = cmp.Or(c.KeepHandled, d.KeepHandled)
	c.PerSource = cmp.Or(c.PerSource, d.PerSource)
	c.RefundLease = cmp.Or(c.RefundLease, d.RefundLease)
	return c
}

// Validate checks the bounds; it changes nothing.
func (c ExceptionsConfig) Validate() error {
	if c.StuckRefund < time.Minute || c.KeepHandled < time.Hour || c.PerSource < 1 || c.RefundLease < time.Second {
		return errors.New("exceptions: stuck refund ≥ 1 min, keep handled ≥ 1 h, per source ≥ 1 and refund lease ≥ 1 s required")
	}
	return nil
}

// Exceptions is the exceptions queue. It reads what each part of the
// gateway keeps already (see schema/exceptions.go) and writes nothing on
// any payment path.
type Exceptions struct {
	cfg      ExceptionsConfig
	rdb      redis.UniversalClient
	orders   OrderReader
	backlog  *command.USDTBacklog
	webhooks Resender
	log      Auditor
	adapters Adapters // nil: this process cannot refund through providers
	now      func() time.Time
}

// NewExceptions wires the queue.
func NewExceptions(cfg ExceptionsConfig, rdb redis.UniversalClient, orders OrderReader, backlog *command.USDTBacklog, webhooks Resender, log Auditor) (*Exceptions, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Exceptions{cfg: cfg, rdb: rdb, orders: orders, backlog: backlog, webhooks: webhooks, log: log, now: time.Now}, nil
}

// Kinds are the exception kinds, as the queue's filter names them.
var Kinds = []string{schema.ExceptionMismatch, schema.ExceptionRefused, schema.ExceptionWebhookDead,
	schema.ExceptionRefundStuck, schema.ExceptionUSDTBackend, schema.ExceptionRecon,
	schema.ExceptionEndpointDisabled}

// ExceptionFilter selects exceptions: one kind or every kind, and whether
// handled ones are shown too.
type ExceptionFilter struct {
	Kind    string
	Handled bool
}

// List answers the exceptions f selects, newest first.
func (x *Exceptions) List(ctx context.Context, actor access.Actor, f ExceptionFilter) ([]Exception, error) {
	if err := allow(actor, access.PermExceptionsRead); err != nil {
		return nil, err
	}
	if f.Kind != "" && !slices.Contains(Kinds, f.Kind) {
		return nil, invalid("unknown exception kind " + strconv.Quote(f.Kind))
	}
	sources := []struct {
		kinds []string
		read  func(context.Context) ([]Exception, error)
	}{
		{[]string{schema.ExceptionMismatch, schema.ExceptionRefused}, x.notifications},
		{[]string{schema.ExceptionRefused}, x.refused},
		{[]string{schema.ExceptionWebhookDead}, x.deadWebhooks},
		{[]string{schema.ExceptionRefundStuck}, x.stuckRefunds},
		{[]string{schema.ExceptionUSDTBackend}, x.usdtBackends},
		{[]string{schema.ExceptionRecon}, x.reconFindings},
		{[]string{schema.ExceptionEndpointDisabled}, endpointSource{x}.read},
	}
	var all []Exception
	for _, src := range sources {
		if f.Kind != "" && !slices.Contains(src.kinds, f.Kind) {
			continue
		}
		got, err := src.read(ctx)
		if err != nil {
			return nil, fmt.Errorf("exceptions %s: %w", src.kinds[0], err)
		}
		all = append(all, got...)
	}
	if err := x.marks(ctx, all); err != nil {
		return nil, err
	}
	out := all[:0]
	for _, e := range all {
		if (f.Kind == "" || e.Kind == f.Kind) && (f.Handled || e.Handled == nil) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b Exception) int { return b.At.Compare(a.At) })
	return out, nil
}

// marks reads the handled mark of each exception: one that is newer than
// the exception's last occurrence handles it.
func (x *Exceptions) marks(ctx context.Context, es []Exception) error {
	if len(es) == 0 {
		return nil
	}
	cmds, tries := make([]*redis.StringCmd, len(es)), make([]*redis.StringCmd, len(es))
	_, err := x.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, e := range es {
			cmds[i] = p.Get(ctx, handledKey(e))
			if e.Kind == schema.ExceptionMismatch {
				tries[i] = p.Get(ctx, attemptKey(e))
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read handled marks: %w", err)
	}
	for i, c := range cmds {
		var h Handled
		if raw, err := c.Result(); err == nil && json.Unmarshal([]byte(raw), &h) == nil && !h.At.Before(es[i].At) {
			es[i].Handled = &h
		}
		es[i].Attempt = readAttempt(tries[i], es[i].At)
	}
	return nil
}

// handledKey is where an exception's mark is kept: on its order's shard,
// or under the {audit} tag for a refused notification naming no order.
func handledKey(e Exception) string {
	return schema.ExceptionHandledKey(markTag(e), e.Kind, e.ID)
}

func markTag(e Exception) string {
	if s, ok := schema.ParseOrderID(e.OrderID); ok {
		return s.Tag()
	}
	return schema.AuditTag
}

// digest names a record that has no id of its own.
func digest(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:8])
}
