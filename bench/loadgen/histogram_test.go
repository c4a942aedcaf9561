package loadgen

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestBucketsCoverValuesInOrder(t *testing.T) {
	prev := -1
	for _, v := range []uint64{0, 1, 127, 128, 129, 255, 256, 257, 1000, 1 << 20, 1<<40 - 1} {
		b := bucketOf(v)
		if b < prev {
			t.Fatalf("bucket of %d is %d, below the previous %d", v, b, prev)
		}
		if hi := bucketHigh(b); hi < v {
			t.Fatalf("bucket %d of %d tops out at %d", b, v, hi)
		}
		prev = b
	}
	if b := bucketOf(1 << 62); b != numBuckets-1 {
		t.Fatalf("a huge value lands in bucket %d, want the last (%d)", b, numBuckets-1)
	}
}

// TestQuantilesWithinPrecision compares with the exact percentiles of a
// skewed sample, the shape latencies have.
func TestQuantilesWithinPrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	vals := make([]time.Duration, 200_000)
	for i := range vals {
		vals[i] = time.Duration(r.ExpFloat64() * float64(2*time.Millisecond))
		if i%1000 == 0 {
			vals[i] = time.Duration(r.IntN(500)) * time.Millisecond // a tail
		}
		h.Record(vals[i])
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 1} {
		rank := int(q*float64(len(vals))+0.999999) - 1
		exact := vals[rank]
		got := h.Quantile(q)
		if got < exact || float64(got-exact) > float64(exact)/float64(subCount)+1 {
			t.Errorf("q%.3f: got %v, exact %v", q, got, exact)
		}
	}
	if h.Max() != vals[len(vals)-1] || h.Count() != uint64(len(vals)) {
		t.Errorf("max %v count %d, want %v %d", h.Max(), h.Count(), vals[len(vals)-1], len(vals))
	}
}

func TestMergeEqualsRecordingTogether(t *testing.T) {
	var a, b, all Histogram
	for i := range 10_000 {
		d := time.Duration(i*i) * time.Microsecond
		all.Record(d)
		if i%3 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
	}
	a.Merge(&b)
	if a.Summary() != all.Summary() {
		t.Fatalf("merged %+v, together %+v", a.Summary(), all.Summary())
	}
}

func TestEmptyHistogram(t *testing.T) {
	var h Histogram
	if h.Quantile(0.99) != 0 || h.Mean() != 0 || h.Max() != 0 {
		t.Fatal("an empty histogram reports values")
	}
	h.Record(-time.Second)
	if h.Quantile(0.5) != 0 {
		t.Fatal("a negative duration is not recorded as zero")
	}
}
