// Package reviewer is the USDT reviewer role: it takes the
// usdt_direct orders whose payer submitted a transaction hash from their
// shard's review queue and decides, from the chain, the exchange or both as
// the order's network says, whether that exact transfer pays that exact
// order.
//
// Reviews are claimed with leases, as webhook deliveries are: claiming moves
// an order's queue score past the lease, so any number of reviewer
// processes share the queues, no review runs twice at once, and the review
// of a process that died is taken over once its lease runs out.
//
// The reviewer never writes an order itself: the outcomes (approve, reject,
// hand to an administrator, check again later) are the command side's, which
// this package reaches through the Orders interface that cmd/gateway wires.
// It imports none of the other roles (DESIGN.md).
package reviewer
