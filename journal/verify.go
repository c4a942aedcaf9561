package journal

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Report is what Verify found wrong; empty when the journal holds.
type Report struct {
	Entries  int
	Problems []string
}

// OK reports a journal with no problem.
func (r Report) OK() bool { return len(r.Problems) == 0 }

func (r *Report) add(f string, a ...any) { r.Problems = append(r.Problems, fmt.Sprintf(f, a...)) }

// Verify reads every shard's whole journal and checks the invariants: each
// entry sums to zero per currency, no key is posted twice, and every
// balance, merchant's and platform's, equals the sum of its postings. It
// is the audit an operator runs (gateway ledger verify) and every test that
// moves money runs after it. A journal trimmed below its first entry
// cannot be summed here; the statements check against ClickHouse instead.
func (j *Journal) Verify(ctx context.Context) (Report, error) {
	var r Report
	sums := map[string]map[string]schema.Amount{} // hash field → balance
	for s := range schema.Shard(schema.NumShards) {
		if err := j.verifyShard(ctx, s, &r, sums); err != nil {
			return r, err
		}
	}
	if err := j.compareBalances(ctx, sums, &r); err != nil {
		return r, err
	}
	sort.Strings(r.Problems)
	return r, nil
}

func (j *Journal) verifyShard(ctx context.Context, s schema.Shard, r *Report, sums map[string]map[string]schema.Amount) error {
	seen := map[string]string{}
	platform := "~platform@" + s.Tag()
	for after := ""; ; {
		es, err := j.Entries(ctx, s, after, 1000)
		if err != nil {
			return err
		}
		if len(es) == 0 {
			return nil
		}
		for _, e := range es {
			r.Entries++
			if first, dup := seen[e.Key]; dup {
				r.add("transaction %s posted twice (entries %s and %s)", e.Key, first, e.ID)
			}
			seen[e.Key] = e.ID
			per := map[string]schema.Amount{}
			for _, p := range e.Postings {
				per[p.Currency] += p.Amount
				holder, field := platform, p.Account+":"+p.Currency
				if rest, ok := strings.CutPrefix(p.Account, "merchant:"+e.AppID+":"); ok {
					holder, field = e.AppID, rest+":"+p.Currency
				}
				if sums[holder] == nil {
					sums[holder] = map[string]schema.Amount{}
				}
				sums[holder][field] += p.Amount
			}
			for cur, n := range per {
				if n != 0 {
					r.add("entry %s (%s) sums to %d in %s", e.ID, e.Key, n, cur)
				}
			}
		}
		after = es[len(es)-1].ID
	}
}

// compareBalances checks each balance hash against the postings' sums.
func (j *Journal) compareBalances(ctx context.Context, sums map[string]map[string]schema.Amount, r *Report) error {
	for s := range schema.Shard(schema.NumShards) {
		holder := "~platform@" + s.Tag()
		if err := j.compareHash(ctx, schema.PlatformAccountsKey(s), holder, sums[holder], r); err != nil {
			return err
		}
	}
	for holder, want := range sums {
		if strings.HasPrefix(holder, "~platform@") {
			continue
		}
		if err := j.compareHash(ctx, schema.AccountsKey(holder), holder, want, r); err != nil {
			return err
		}
	}
	return nil
}

func (j *Journal) compareHash(ctx context.Context, key, holder string, want map[string]schema.Amount, r *Report) error {
	h, err := j.rdb.HGetAll(ctx, key).Result()
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	got := map[string]schema.Amount{}
	for f, v := range h {
		var n int64
		if _, err := fmt.Sscan(v, &n); err != nil {
			r.add("%s field %s is %q", holder, f, v)
			continue
		}
		got[f] = schema.Amount(n)
	}
	for f, n := range want {
		if got[f] != n {
			r.add("%s %s is %d, its postings sum to %d", holder, f, got[f], n)
		}
	}
	for f, n := range got {
		if _, ok := want[f]; !ok && n != 0 {
			r.add("%s %s is %d with no posting", holder, f, n)
		}
	}
	return nil
}
