package reviewer

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// clockSkew is how much earlier than the order's creation a transfer may
// seem to be and still count: block times and our clocks disagree by a few
// seconds (a BSC block is 3 s, a TRON block 3 s, NTP keeps us within
// milliseconds); one minute covers that with room, and is far too short for
// an older transfer of exactly the unique payable amount to be mistaken for
// this order's.
const clockSkew = time.Minute

// checkChain reviews the order's transaction on its network's chain.
func (r *Reviewer) checkChain(ctx context.Context, o *schema.Order, n usdt.Network) verdict {
	want, err := usdt.Units(o.PayableAmount, n.Decimals)
	if err != nil {
		return verdict{step: stepEscalate, reason: reasonInvalidOrder, note: err.Error()}
	}
	c, ok := r.d.Backends.Chain(o.Sandbox, n.Name)
	if !ok {
		r.m.errors.WithLabelValues(backendChain).Inc()
		return verdict{step: stepLater, reason: reasonBackendDown, note: "no chain backend for " + n.Name}
	}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	tx, err := c.Tx(cctx, o.TxHash)
	cancel()
	switch {
	case errors.Is(err, usdt.ErrNotFound):
		return notFound("not found on " + n.Name)
	case err != nil:
		r.m.errors.WithLabelValues(backendChain).Inc()
		r.log.Warn("chain backend failed; review retried", "network", n.Name, "order", o.ID, "err", err)
		return verdict{step: stepLater, reason: reasonBackendDown, note: short(err.Error())}
	}
	return judgeTx(o, n, tx, want)
}

// judgeTx decides from what the chain says. A transaction may carry several
// transfers; it pays the order when one of them moves exactly want units of
// the network's token to one of our addresses. The rejection names the
// nearest miss: no transfer of the token at all, none to us, none of the
// amount.
func judgeTx(o *schema.Order, n usdt.Network, tx usdt.Tx, want *big.Int) verdict {
	if !tx.Success {
		return reject(reasonFailedTx, "transaction failed; "+blockEvidence(tx))
	}
	var token, ours []usdt.TokenTransfer
	for _, t := range tx.Transfers {
		if strings.EqualFold(t.Contract, n.Contract) {
			token = append(token, t)
			if n.Receives(t.To) {
				ours = append(ours, t)
			}
		}
	}
	if len(token) == 0 {
		return reject(reasonWrongToken, "no transfer of "+n.Contract+"; "+blockEvidence(tx))
	}
	if len(ours) == 0 {
		return reject(reasonWrongAddress, transferEvidence(token[0], tx))
	}
	var hit *usdt.TokenTransfer
	for i := range ours {
		if ours[i].Units != nil && ours[i].Units.Cmp(want) == 0 {
			hit = &ours[i]
			break
		}
	}
	if hit == nil {
		v := wrongAmount(transferEvidence(ours[0], tx)+" want="+want.String(), ours[0].Units, want)
		v.moveTo, _ = usdt.PayableLiteral(ours[0].Units, n.Decimals)
		return v
	}
	ev := transferEvidence(*hit, tx)
	if tx.BlockTime.Before(o.CreatedAt.Add(-clockSkew)) {
		return reject(reasonTooOld, ev+" order_created="+schema.WireTime(o.CreatedAt))
	}
	if tx.Confirmations < n.Confirmations {
		v := later(reasonUnconfirmed, ev)
		v.have, v.need = tx.Confirmations, n.Confirmations
		return v
	}
	return verdict{step: stepApprove, evidence: ev}
}

func blockEvidence(tx usdt.Tx) string {
	return fmt.Sprintf("block_time=%s confirmations=%d", schema.WireTime(tx.BlockTime), tx.Confirmations)
}

func transferEvidence(t usdt.TokenTransfer, tx usdt.Tx) string {
	return fmt.Sprintf("units=%v to=%s %s", t.Units, t.To, blockEvidence(tx))
}

// short keeps a backend's error text to a line fit for the order's history.
func short(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
