package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestLedgerSettleOffsetBounded: the settle pass's clock offset, a demo and
// fault-testing aid, is refused beyond a day, before any connection: an
// operator cannot release a week's money early with it.
func TestLedgerSettleOffsetBounded(t *testing.T) {
	for _, c := range []struct{ name, offset string }{{"a week ahead", "168h"}, {"a day and a second", "24h1s"}, {"a week back", "-168h"}} {
		t.Run(c.name, func(t *testing.T) {
			err := ledgerCmd(context.Background(), []string{"settle", "--clock-offset", c.offset, "--redis-url", "redis://127.0.0.1:1/0"}, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), "at most") {
				t.Fatalf("offset %s: %v", c.offset, err)
			}
		})
	}
}
