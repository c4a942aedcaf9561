package channel

import "time"

// window counts one channel's attempts in this process over a sliding
// span, in one-second buckets (a thousand attempts a second cost the same
// as one), and the failures since the last success.
type window struct {
	epoch   time.Time // the stored breaker's Since when the window began
	buckets []bucket
	inRow   int
}

type bucket struct {
	sec      int64
	ok, fail int64
}

func newWindow(span time.Duration, epoch time.Time) *window {
	n := max(int(span/time.Second), 1)
	return &window{epoch: epoch, buckets: make([]bucket, n)}
}

func (w *window) add(now time.Time, ok bool) {
	sec := now.Unix()
	b := &w.buckets[int(sec%int64(len(w.buckets)))]
	if b.sec != sec {
		*b = bucket{sec: sec}
	}
	if ok {
		b.ok++
		w.inRow = 0
		return
	}
	b.fail++
	w.inRow++
}

// counts is the successes and attempts within the span ending at now.
func (w *window) counts(now time.Time) (ok, n int64) {
	from := now.Unix() - int64(len(w.buckets)) + 1
	for _, b := range w.buckets {
		if b.sec >= from && b.sec <= now.Unix() {
			ok += b.ok
			n += b.ok + b.fail
		}
	}
	return ok, n
}

func (w *window) reset() {
	clear(w.buckets)
	w.inRow = 0
}
