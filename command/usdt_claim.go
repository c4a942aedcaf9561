package command

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Transfers to our receiving addresses are public, so anyone can copy a
// payer's transaction hash and submit it on their own order first. A
// reservation therefore follows the order that holds the hash, not the
// first order that asked: once the holder no longer carries the hash (its
// review rejected it: the transfer's exact amount or address is not that
// order's), the reservation is stale and the next order to claim it takes
// it over. The review, which matches the exact amount against the order's
// unique payable amount, then decides whether that order is the one paid.

// txHeld is the answer to a claim of a hash another order holds.
func txHeld() error {
	return platform.Errorf(platform.KindConflict, "this transaction hash was already submitted")
}

// errMoved: the reservation changed hands while it was being taken over.
var errMoved = errors.New("usdt transaction hash reservation moved")

// claimTx reserves tx on network for order id: fresh when the key was free
// or stale and this call took it. Taking a stale reservation is a
// compare-and-set on the key (WATCH), so two orders claiming it at once
// have one winner.
func claimTx(ctx context.Context, rdb redis.UniversalClient, network, tx, id string) (fresh bool, err error) {
	key := schema.USDTTxKey(network, tx)
	for range 3 { // a reservation released between SETNX and GET: try again
		ok, err := rdb.SetNX(ctx, key, id, 0).Result()
		if err != nil {
			return false, fmt.Errorf("reserve usdt transaction hash: %w", err)
		}
		if ok {
			return true, nil
		}
		holder, err := txHolder(ctx, rdb, network, tx)
		if err != nil || holder == id {
			return false, err
		}
		if holder == "" {
			continue
		}
		stale, err := staleHolder(ctx, rdb, holder, tx)
		if err != nil {
			return false, err
		}
		if !stale {
			return false, txHeld()
		}
		if err := takeOver(ctx, rdb, key, holder, id); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, txHeld()
}

// staleHolder reports whether order holder has given tx up: it carries
// another hash, or none after a rejection, or none and can never submit one
// (failed or cancelled). An order that carries no hash and was not
// rejected is between its reservation and its submit (or lost a submit it
// will give back): taking its reservation then would let two orders hold
// one hash. An order that is gone from Redis (past its retention) keeps
// its reservation: it may have been paid by tx, and a hash pays one order.
func staleHolder(ctx context.Context, rdb redis.UniversalClient, holder, tx string) (bool, error) {
	shard, ok := schema.ParseOrderID(holder)
	if !ok {
		return false, nil
	}
	f, err := rdb.HMGet(ctx, schema.OrderKey(shard, holder), schema.FStatus, schema.FTxHash, schema.FReview).Result()
	if err != nil {
		return false, fmt.Errorf("read holder of usdt transaction hash: %w", err)
	}
	if f[0] == nil {
		return false, nil
	}
	held, _ := f[1].(string)
	review, _ := f[2].(string)
	status, _ := f[0].(string)
	switch {
	case held == tx:
		return false, nil
	case held != "", review == schema.ReviewRejected:
		return true, nil
	}
	final := status == strconv.Itoa(int(schema.StatusFailed)) || status == strconv.Itoa(int(schema.StatusCancelled))
	return final, nil
}

// takeOver moves key from holder to id if it still names holder.
func takeOver(ctx context.Context, rdb redis.UniversalClient, key, holder, id string) error {
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		cur, err := tx.Get(ctx, key).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if cur != holder {
			return errMoved
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Set(ctx, key, id, 0).Err() })
		return err
	}, key)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, redis.TxFailedErr), errors.Is(err, errMoved):
		return txHeld()
	}
	return fmt.Errorf("take over usdt transaction hash: %w", err)
}

// releaseTx gives back tx's reservation if order id holds it.
func releaseTx(ctx context.Context, rdb redis.UniversalClient, network, tx, id string) error {
	return releaseHeld(ctx, rdb, schema.USDTTxKey(network, tx), id)
}

func isKind(err error, k platform.Kind) bool { return platform.KindOf(err) == k }
