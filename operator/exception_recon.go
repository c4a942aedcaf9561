package operator

import (
	"context"

	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/schema"
)

// reconFindings: differences a reconciled provider statement showed, each
// with its evidence (the statement's row and our payment as each says it).
func (x *Exceptions) reconFindings(ctx context.Context) ([]Exception, error) {
	raised, err := recon.NewRedisQueue(x.rdb).Newest(ctx, int64(x.cfg.PerSource))
	if err != nil {
		return nil, err
	}
	out := make([]Exception, 0, len(raised))
	for _, r := range raised {
		out = append(out, Exception{Kind: schema.ExceptionRecon, ID: r.ID, OrderID: r.OrderID, AppID: r.AppID, At: r.At,
			Provider: r.Channel, Verdict: string(r.Kind), Ref: r.Ref, Detail: r.Day + ": " + r.Evidence, Actions: []string{ActionHandle}})
	}
	return out, nil
}
