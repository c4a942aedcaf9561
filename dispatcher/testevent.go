package dispatcher

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/schema"
)

// Tester sends the console's "send a test event": one signed callback, made
// exactly as a real attempt is (the MD5 sign with the merchant's API key,
// the modern headers with its webhook secrets) through a client with the
// same address guard, time-out and read bound as the dispatcher's. It is
// sent once, at once, and recorded nowhere but the audit log: it belongs
// to no order and is never retried.
type Tester struct {
	cfg    Config
	keys   KeyLookup
	client *fasthttp.Client
	now    func() time.Time
}

// NewTester checks cfg (the dispatcher's: AllowPrivate and Timeout apply)
// and prepares the client.
func NewTester(cfg Config, keys KeyLookup) (*Tester, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("test event config: %w", err)
	}
	if keys == nil {
		return nil, errors.New("test event: keys are required")
	}
	return newTester(cfg, keys, &guardedDialer{
		allowPrivate: cfg.AllowPrivate, resolver: net.DefaultResolver,
		dialer: &net.Dialer{Timeout: cfg.Timeout},
	}), nil
}

func newTester(cfg Config, keys KeyLookup, g *guardedDialer) *Tester {
	return &Tester{cfg: cfg, keys: keys, client: guardedClient(cfg, g), now: cfg.Now.Now}
}

// TestResult is the test event's outcome as the console shows it.
type TestResult struct {
	EventID      string
	Status       int    // HTTP status, 0 when no answer came
	Acknowledged bool   // answered "success", as a real webhook must be
	Error        string // why it failed, as the merchant may read it
	Body         string // the start of the answer (schema.WebhookBodyKept bytes)
	LatencyMs    int64
}

// Attempt is the test event as an attempt record, so that a page says its
// outcome as it says a real attempt's (schema.WebhookAttempt.Outcome).
func (r TestResult) Attempt() schema.WebhookAttempt {
	return schema.WebhookAttempt{Attempt: 1, Status: r.Status, Error: r.Error, Body: r.Body, LatencyMs: r.LatencyMs, Success: r.Acknowledged}
}

// TestPaymentPrefix starts the paymentId of a test event: it names no
// order, so a receiver that looks the order up finds none.
const TestPaymentPrefix = "test_"

// testParams are a paid callback's parameters for no order, marked test=1
// (signed like the rest, so a receiver can tell it apart and trust it).
func testParams(id string, at time.Time) schema.Params {
	t := schema.WireTime(at)
	return schema.Params{
		"paymentId": TestPaymentPrefix + id, "amount": "1.00", "currency": "USD",
		"status": "2", "status_str": schema.StatusPaid.String(), "paymentMethod": "test",
		"createdAt": t, "completedTime": t, "description": "test event from the merchant console", "test": "1",
	}
}

// Send posts a test event of merchant appid to target (its default
// callback URL). An error is ours (the merchant's keys could not be read);
// everything that went wrong at the receiver, a refused address included,
// is in the result.
func (t *Tester) Send(ctx context.Context, appid, target string) (TestResult, error) {
	id := strings.ToLower(rand.Text()[:16])
	res := TestResult{EventID: "evt_test_" + id}
	key, err := t.keys.APIKey(ctx, appid)
	if err != nil {
		return res, fmt.Errorf("test event: %w", err)
	}
	secrets, err := t.keys.WebhookSecrets(ctx, appid)
	if err != nil {
		return res, fmt.Errorf("test event: %w", err)
	}
	now := t.now()
	body, err := signForm(encodeCallback(testParams(id, now)), key)
	if err != nil {
		return res, fmt.Errorf("test event: %w", err)
	}
	h, err := signModern(res.EventID, now, body, secrets)
	if err != nil {
		return res, fmt.Errorf("test event: %w", err)
	}
	actx, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	r := post(actx, t.client, target, body, h, t.cfg.Timeout)
	res.Status, res.Acknowledged, res.Error, res.Body, res.LatencyMs = r.status, r.ack, r.err, keptBody(r.body), r.latency.Milliseconds()
	return res, nil
}
