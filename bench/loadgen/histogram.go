package loadgen

import (
	"math/bits"
	"time"
)

// subBits sets the precision: every power-of-two range of values is split
// into 2^subBits equal buckets, so a recorded value is known to within
// 1/2^subBits (0.8%) of itself.
const subBits = 7

const (
	subCount = 1 << subBits
	// maxExp bounds the range: values up to 2^(maxExp+subBits) ns (about
	// 18 minutes) are kept exactly to the precision; longer ones are
	// clamped into the top bucket, and Max still reports them exactly.
	maxExp     = 33
	numBuckets = (maxExp + 2) * subCount
)

// Histogram records durations in a fixed-size log-linear histogram in the
// style of HdrHistogram: values below 2^subBits ns are exact, above that each
// power of two has 2^subBits buckets. It is not safe for concurrent use:
// give each goroutine its own and Merge them.
type Histogram struct {
	counts [numBuckets]uint64
	n      uint64
	sum    uint64 // ns; overflows only after centuries of recorded time
	min    uint64
	max    uint64
}

// bucketOf maps a value in ns to its bucket.
func bucketOf(v uint64) int {
	if v < subCount {
		return int(v)
	}
	e := bits.Len64(v) - subBits - 1 // v>>e is in [subCount, 2*subCount)
	if e > maxExp {
		return numBuckets - 1
	}
	return (e+1)*subCount + int(v>>uint(e)) - subCount
}

// bucketHigh is the highest value a bucket holds, which is what a
// percentile reports (HdrHistogram's "highest equivalent value"): a
// percentile never understates a latency.
func bucketHigh(b int) uint64 {
	if b < subCount {
		return uint64(b)
	}
	e := b/subCount - 1
	m := uint64(b%subCount + subCount)
	return (m+1)<<uint(e) - 1
}

// Record adds one duration; negative ones count as zero.
func (h *Histogram) Record(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[bucketOf(v)]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.n++
	h.sum += v
}

// Merge adds every value recorded in o.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
	h.sum += o.sum
}

// Count is how many values were recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Max is the largest value recorded, exactly.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max) }

// Mean is the exact mean of the recorded values.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / h.n)
}

// Quantile is the value below or at which a fraction q of the recorded
// values lie (q in [0, 1]), to the histogram's precision and never above
// Max; 0 when nothing was recorded.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	q = min(max(q, 0), 1)
	// The rank of the value wanted, 1-based, rounded up: p99 of 1,000 values
	// is the 990th smallest.
	rank := uint64(q*float64(h.n) + 0.999999)
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(min(max(bucketHigh(b), h.min), h.max))
		}
	}
	return time.Duration(h.max)
}

// Summary is what a report shows of a histogram, in milliseconds.
type Summary struct {
	Count uint64  `json:"count"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p999_ms"`
	Max   float64 `json:"max_ms"`
}

// Summary reads the usual percentiles.
func (h *Histogram) Summary() Summary {
	return Summary{
		Count: h.n, Mean: ms(h.Mean()), P50: ms(h.Quantile(0.50)), P90: ms(h.Quantile(0.90)),
		P99: ms(h.Quantile(0.99)), P999: ms(h.Quantile(0.999)), Max: ms(h.Max()),
	}
}

// ms is a duration in milliseconds with microsecond resolution.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
