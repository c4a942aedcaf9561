// Package simkit is the glue every provider simulator needs around its
// payer's page (SimPage) and provider.State: sending the page, reading the
// tester's Pay or Fail, keeping a simulated payment as JSON, and random
// ids. The simulators differ in their protocols, not in this; having it
// once keeps their pages and their stored records alike.
package simkit

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
)

// Logger is a simulator's logger: log, or one that discards when none is
// given (tests).
func Logger(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}

// SendPage answers with p rendered as HTML.
func SendPage(c *fiber.Ctx, p SimPage) error {
	if p.Merchant == "" {
		p.Merchant = SimMerchant(c, p.OrderID)
	}
	var b bytes.Buffer
	if err := p.Render(&b); err != nil {
		return fmt.Errorf("%s simulator page: %w", p.Provider, err)
	}
	c.Type("html", "utf-8")
	return c.Send(b.Bytes())
}

// Choice reads the button the tester pressed on the page: paid for "pay",
// not paid for "fail", ok false for anything else.
func Choice(c *fiber.Ctx) (paid, ok bool) {
	switch c.FormValue("outcome") {
	case "pay":
		return true, true
	case "fail":
		return false, true
	}
	return false, false
}

// RefuseChoice answers a posted outcome that is neither Pay nor Fail.
func RefuseChoice(c *fiber.Ctx) error {
	return c.Status(fiber.StatusBadRequest).SendString(ChoiceError)
}

// ChoiceError is what RefuseChoice says, for simulators that answer
// errors through their app's error handler instead.
const ChoiceError = "outcome must be pay or fail"

// Save keeps v as JSON under key for ttl.
func Save(ctx context.Context, st provider.State, key string, v any, ttl time.Duration) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	return st.Put(ctx, key, b, ttl)
}

// Load reads what Save kept under key; an absent or expired key is the
// State's provider.ErrNotFound.
func Load[T any](ctx context.Context, st provider.State, key string) (T, error) {
	var v T
	b, err := st.Get(ctx, key)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("decode: %w", err)
	}
	return v, nil
}

// RandomHex is n random bytes in hex: a simulated provider's ids and
// tokens.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
