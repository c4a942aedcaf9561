package recon_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/schema"
)

type fakePayments []recon.Payment

func (f fakePayments) ReconPayments(context.Context, string, time.Time) ([]recon.Payment, error) {
	return f, nil
}

// TestImportRefuses: a line outside the imported day refuses the file; a
// matched line whose payment the ledger never posted clears nothing.
func TestImportRefuses(t *testing.T) {
	rdb := testenv.Redis(t)
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ghost := &schema.Order{ID: schema.NewOrderID(reconDay.Add(time.Hour), 0), AppID: "4001", Amount: 1000, Currency: "CNY",
		ProviderRef: "WAghost", CompletedAt: reconDay.Add(time.Hour)}
	im := recon.NewImporter(fakePayments{{AppID: "4001", OrderID: ghost.ID, ProviderRef: "WAghost", Amount: 1000, Currency: "CNY"}},
		j, recon.NewRedisQueue(rdb), nil)
	ctx := context.Background()
	res, err := im.Import(ctx, reconChannel, reconDay, statementOf(t, []*schema.Order{ghost}, nil), parseWalletA)
	if err != nil || len(res.Matched) != 1 || res.Posted != 0 || len(res.Unposted) != 1 {
		t.Fatalf("a payment the ledger never posted: matched %d posted %d unposted %v, %v", len(res.Matched), res.Posted, res.Unposted, err)
	}
	if b, _ := j.PlatformBalances(ctx); b[journal.Settled]["CNY"] != 0 || b[journal.Receivable(reconChannel)]["CNY"] != 0 {
		t.Fatalf("balances moved: %v", b)
	}
	late := statementOf(t, []*schema.Order{ghost}, func(_ int, r *statement.Row) bool { r.At = reconDay.Add(25 * time.Hour); return true })
	if _, err := im.Import(ctx, reconChannel, reconDay, late, parseWalletA); !errors.Is(err, recon.ErrBadDay) {
		t.Fatalf("a line of the next day: %v", err)
	}
}
