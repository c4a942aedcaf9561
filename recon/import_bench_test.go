package recon_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/recon"
)

// BenchmarkReconcileDay reconciles a statement of a day of 100,000
// payments (the target: 30 s) with planted differences, 25 of each kind,
// and fails unless exactly those are found. Each iteration is a new day's
// first import (parse, read our payments from ClickHouse, match, raise,
// post every matched line); the load is outside the timer.
func BenchmarkReconcileDay(b *testing.B) {
	const n, planted = 100_000, 25
	e := newReconEnv(b, n)
	file := statementOf(b, e.orders, func(i int, r *statement.Row) bool {
		switch {
		case i < planted:
			return false
		case i < 2*planted:
			r.Amount++
		case i < 3*planted:
			r.Fee++
		case i < 4*planted:
			r.Ref, r.Order = r.Ref+"X", r.Order+"X"
		}
		return true
	})
	want := map[recon.Kind]int{recon.MissingAtProvider: 2 * planted, recon.AmountDiffers: planted, recon.FeeDiffers: planted, recon.MissingWithUs: planted}
	var took time.Duration
	b.ResetTimer()
	for i := range b.N {
		// A new copy of the file per iteration (a different trailing blank
		// lines) keeps each a first import; lines post once by their keys
		// regardless, so later iterations measure the same work but post
		// nothing.
		f := append(append([]byte(nil), file...), bytes.Repeat([]byte("\r\n"), i)...)
		start := time.Now()
		res, err := e.im.Import(context.Background(), reconChannel, reconDay, f, parseWalletA)
		took += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		for k, w := range want {
			if res.Count(k) != w {
				b.Fatalf("%s: %d found, %d planted", k, res.Count(k), w)
			}
		}
		if len(res.Findings) != 5*planted || len(res.Matched) != n-3*planted {
			b.Fatalf("%d findings, %d matched: something invented or missed", len(res.Findings), len(res.Matched))
		}
	}
	b.ReportMetric(took.Seconds()/float64(b.N), "s/day")
}
