package simkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
)

// CodePage is the payer's wallet of a QR-code simulator (wallet_a,
// wallet_b): GET and POST /qr/:token show the payment the scanned code
// names and take the tester's Pay or Fail; Settle does the same without a
// browser. What a payment is, what scanning and settling it do and how its
// page looks stay the family's; the flow between them is one.
type CodePage[T any] struct {
	Family string
	State  provider.State
	Log    *slog.Logger
	// Err, when set, is the simulator's own problem (a key that did not
	// parse): every route answers it.
	Err error
	// TokenKey is the State key a code's token maps to its payment's ref.
	TokenKey func(token string) string
	// Load reads a payment by its ref (our order id).
	Load func(ctx context.Context, ref string) (T, error)
	// Scan, when set, is what opening the page does to the payment.
	Scan func(ctx context.Context, t T) (T, error)
	// Settle records the outcome and notifies; an error wrapping Settled
	// is a payment already settled the other way, not a failed notification.
	Settle  func(ctx context.Context, t T, paid bool) (T, error)
	Settled error
	// Done is the page's line about a settled payment ("" while open).
	Done   func(t T) string
	Render func(c *fiber.Ctx, t T, done string) error
}

// Register mounts the code's page at /qr/:token.
func (p *CodePage[T]) Register(r fiber.Router) {
	r.Get("/qr/:token", p.page)
	r.Post("/qr/:token", p.choose)
}

func (p *CodePage[T]) page(c *fiber.Ctx) error {
	t, err := p.byToken(c.UserContext(), c.Params("token"))
	if err != nil {
		return c.Status(fiber.StatusNotFound).SendString("unknown code")
	}
	if p.Scan != nil {
		if t, err = p.Scan(c.UserContext(), t); err != nil {
			return fmt.Errorf("%s simulator page: %w", p.Family, err)
		}
	}
	return p.Render(c, t, p.Done(t))
}

// choose is the tester's Pay or Fail.
func (p *CodePage[T]) choose(c *fiber.Ctx) error {
	t, err := p.byToken(c.UserContext(), c.Params("token"))
	if err != nil {
		return c.Status(fiber.StatusNotFound).SendString("unknown code")
	}
	paid, ok := Choice(c)
	if !ok {
		return RefuseChoice(c)
	}
	t, err = p.Settle(c.UserContext(), t, paid)
	done := p.Done(t)
	if err != nil && !errors.Is(err, p.Settled) {
		done += " The notification was not accepted yet; it is sent again later."
		p.Log.Warn(p.Family+" simulator: notification", "err", err)
	}
	return p.Render(c, t, done)
}

func (p *CodePage[T]) byToken(ctx context.Context, token string) (T, error) {
	var zero T
	if p.Err != nil {
		return zero, p.Err
	}
	ref, err := p.State.Get(ctx, p.TokenKey(token))
	if err != nil {
		return zero, fmt.Errorf("%s simulator code: %w", p.Family, err)
	}
	return p.Load(ctx, string(ref))
}

// SettleRef pays or fails the payment of our order id ref (Init.Ref)
// without a browser, as the page's buttons do, and sends the notification.
func (p *CodePage[T]) SettleRef(ctx context.Context, ref string, paid bool) error {
	if p.Err != nil {
		return p.Err
	}
	t, err := p.Load(ctx, ref)
	if err != nil {
		return err
	}
	_, err = p.Settle(ctx, t, paid)
	return err
}
