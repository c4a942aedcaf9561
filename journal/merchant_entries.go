package journal

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// scanChunk is how many stream entries one XREVRANGE reads, and maxScan how
// many one MerchantEntries call reads at most: the journal of a shard holds
// every merchant homed there, so a quiet merchant next to a busy one would
// otherwise make one page read the whole stream.
const (
	scanChunk = 200
	maxScan   = 5000
)

// MerchantEntries is a page of appid's journal, newest first: up to limit of
// its entries older than the entry before ("" for the newest). It reads the
// merchant's home shard's journal backwards and scans at most maxScan
// entries per call; next is the cursor to pass as before for the following
// page ("" when the stream's start was reached). A page may hold fewer than
// limit entries (even none) with a cursor when the scan bound was hit.
func (j *Journal) MerchantEntries(ctx context.Context, appid, before string, limit int) (out []Entry, next string, err error) {
	if limit <= 0 {
		return nil, "", nil
	}
	key, hi := schema.JournalKey(schema.HomeShard(appid)), "+"
	if before != "" {
		hi = "(" + before
	}
	for scanned := 0; scanned < maxScan; {
		msgs, err := j.rdb.XRevRangeN(ctx, key, hi, "-", scanChunk).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, "", fmt.Errorf("read the journal of %s: %w", appid, err)
		}
		for _, m := range msgs {
			scanned++
			hi = "(" + m.ID
			if s, _ := m.Values["m"].(string); s != appid {
				continue
			}
			e, err := DecodeEntry(m.ID, m.Values)
			if err != nil {
				return nil, "", err
			}
			if out = append(out, e); len(out) == limit {
				return out, m.ID, nil
			}
		}
		if len(msgs) < scanChunk {
			return out, "", nil
		}
	}
	return out, hi[1:], nil
}
