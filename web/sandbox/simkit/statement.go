package simkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/statement"
)

// SandboxAccount is the provider account a simulator whose protocol names
// none writes on its statement.
const SandboxAccount = "sandbox"

// statementTTL keeps a day's settled payments long enough to reconcile
// the day after, and a weekend.
const statementTTL = 8 * 24 * time.Hour

func statementKey(family string, day time.Time) string {
	return "sim:" + family + ":statement:" + day.UTC().Format(time.DateOnly)
}

// RecordSettled keeps a payment the simulator settled, for its day's
// statement. A State without lists keeps no statement.
func RecordSettled(ctx context.Context, st provider.State, family string, r statement.Row) error {
	l, ok := st.(provider.Lists)
	if !ok {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode statement row: %w", err)
	}
	if err := l.Append(ctx, statementKey(family, r.At), b, statementTTL); err != nil {
		return fmt.Errorf("keep statement row: %w", err)
	}
	return nil
}

// Statement serves GET /statement?date=YYYY-MM-DD: the family's settlement
// statement of that UTC day, in its shape, built from what it settled.
func Statement(st provider.State, family string, shape statement.Shape) fiber.Handler {
	return func(c *fiber.Ctx) error {
		day, err := time.Parse(time.DateOnly, c.Query("date"))
		if err != nil {
			return c.Status(fiber.StatusBadRequest).SendString("date must be YYYY-MM-DD")
		}
		l, ok := st.(provider.Lists)
		if !ok {
			return c.Status(fiber.StatusNotImplemented).SendString("this simulator keeps no statements")
		}
		var rows []statement.Row
		err = l.Range(c.UserContext(), statementKey(family, day), func(b []byte) error {
			var r statement.Row
			if err := json.Unmarshal(b, &r); err != nil {
				return errors.New("a kept statement row is unreadable")
			}
			rows = append(rows, r)
			return nil
		})
		if err != nil {
			return err
		}
		c.Type("csv", "utf-8")
		c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+family+"-"+day.Format(time.DateOnly)+`.csv"`)
		return statement.Write(c.Response().BodyWriter(), shape, func(y func(statement.Row) bool) {
			for _, r := range rows {
				if !y(r) {
					return
				}
			}
		})
	}
}
