package command

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// USDT works out usdt_direct payable amounts. A payer's deposit is matched to
// its order by amount alone, so each live order gets the converted amount plus
// a random suffix of micro-USDT that no other live order holds.
type USDT struct {
	rdb   redis.UniversalClient
	rates Rates // currency units per USDT: the pairs USDT:<currency>
	hold  time.Duration
}

const (
	microPerUSDT = 1_000_000
	centUSDT     = microPerUSDT / 100
	maxSuffix    = 9_999 // suffixes are 0.000001 to 0.009999 USDT
	suffixTries  = 16
)

// ParseUSDTRates reads "USD=1,CNY=7.2": how many units of each currency one
// USDT costs. USD is 1 unless given.
func ParseUSDTRates(s string) (map[string]int64, error) {
	rates := map[string]int64{"USD": microPerUSDT}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		cur, lit, ok := strings.Cut(part, "=")
		r, err := parseMicros(strings.TrimSpace(lit))
		if !ok || err != nil || r <= 0 || !schema.KnownCurrency(strings.TrimSpace(cur)) {
			return nil, fmt.Errorf("usdt rate %q: want CUR=positive decimal", part)
		}
		rates[strings.TrimSpace(cur)] = r
	}
	return rates, nil
}

func parseMicros(lit string) (int64, error) {
	whole, frac, _ := strings.Cut(lit, ".")
	if len(frac) > 6 {
		return 0, errors.New("more than 6 decimals")
	}
	frac += strings.Repeat("0", 6-len(frac))
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, err
	}
	return w*microPerUSDT + f, nil
}

// NewUSDT converts at the FX pairs USDT:<currency> (seeded from
// GATEWAY_USDT_RATES, set with `gateway fx`); a currency without a rate
// makes usdt_direct unavailable for it. hold is how long a payable amount
// stays reserved for its order.
func NewUSDT(rdb redis.UniversalClient, rates Rates, hold time.Duration) (*USDT, error) {
	if rates == nil {
		return nil, fmt.Errorf("usdt: no rates")
	}
	return &USDT{rdb: rdb, rates: rates, hold: hold}, nil
}

// usdtRate is how many millionths of cur one USDT costs; USD is 1 unless set.
func usdtRate(rates Rates, cur string) (int64, bool) {
	if r, ok := rates.Rate(fx.Pair{Base: "USDT", Quote: cur}); ok {
		return int64(r), true
	}
	return microPerUSDT, cur == "USD"
}

// baseMicros converts the order amount to micro-USDT, rounded up to a cent
// so that the suffix alone carries the uniqueness.
func (u *USDT) baseMicros(amount schema.Amount, currency string) (int64, error) {
	rate, ok := usdtRate(u.rates, currency)
	if !ok {
		return 0, platform.Errorf(platform.KindMethodUnavailable, "no USDT rate for %s is set", currency)
	}
	n := new(big.Int).Mul(big.NewInt(int64(amount)), big.NewInt(microPerUSDT*microPerUSDT/100))
	d := big.NewInt(rate * centUSDT)
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	cents := q.Int64()
	if r.Sign() > 0 {
		cents++
	}
	return cents * centUSDT, nil
}

// Reserve picks and holds a payable amount for order id.
func (u *USDT) Reserve(ctx context.Context, id string, amount schema.Amount, currency string) (string, error) {
	base, err := u.baseMicros(amount, currency)
	if err != nil {
		return "", err
	}
	for range suffixTries {
		n, _ := rand.Int(rand.Reader, big.NewInt(maxSuffix))
		lit := formatMicros(base + n.Int64() + 1)
		ok, err := u.rdb.SetNX(ctx, schema.USDTAmountKey(lit), id, u.hold).Result()
		if err != nil {
			return "", fmt.Errorf("reserve usdt amount: %w", err)
		}
		if ok {
			return lit, nil
		}
	}
	return "", platform.Errorf(platform.KindUnavailable, "no unique USDT amount is free for this amount now; retry later")
}

// Release frees an amount reserved for id (a create that turned out to be a
// replay), unless another order holds it by now.
func (u *USDT) Release(ctx context.Context, id, lit string) error {
	return releaseHeld(ctx, u.rdb, schema.USDTAmountKey(lit), id)
}

// releaseHeld deletes a reservation key while it still names id: a key
// another order holds by now is left alone.
func releaseHeld(ctx context.Context, rdb redis.UniversalClient, key, id string) error {
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		holder, err := tx.Get(ctx, key).Result()
		if err != nil || holder != id {
			return nil
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Del(ctx, key).Err() })
		return err
	}, key)
	if err != nil && !errors.Is(err, redis.TxFailedErr) {
		return fmt.Errorf("release %s: %w", key, err)
	}
	return nil
}

func formatMicros(m int64) string {
	return strconv.FormatInt(m/microPerUSDT, 10) + "." + fmt.Sprintf("%06d", m%microPerUSDT)
}
