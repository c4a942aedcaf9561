package journal

import (
	"context"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Receivables is each provider channel's receivable account now, per
// currency: channel ref → currency → balance. A payment posts what its
// provider owes as a negative balance, and each reconciled statement line
// brings it back towards zero, so an operator watching it sees what is
// still owed fall as statements are imported.
func (j *Journal) Receivables(ctx context.Context) (map[string]map[string]schema.Amount, error) {
	all, err := j.PlatformBalances(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]schema.Amount{}
	for acct, byCur := range all {
		rest, ok := strings.CutPrefix(acct, "channel:")
		if !ok {
			continue
		}
		if ch, ok := strings.CutSuffix(rest, ":receivable"); ok {
			out[ch] = byCur
		}
	}
	return out, nil
}
