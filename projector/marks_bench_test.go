package projector

import (
	"strconv"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// BenchmarkHourMarks is the projector's added CPU per event for the report
// marks (the set of merchant hours of a batch; the marks insert is one
// round trip per batch): a 20,000-event batch of 100 merchants over the
// last two hours, ns/op per batch, ns/event reported.
func BenchmarkHourMarks(b *testing.B) {
	now := time.Now()
	events := make([]schema.Event, 20_000)
	for i := range events {
		events[i].Order = schema.Order{AppID: strconv.Itoa(1000 + i%100), CreatedAt: now.Add(-time.Duration(i) * 360 * time.Millisecond)}
	}
	for b.Loop() {
		if len(hourMarks(events)) == 0 {
			b.Fatal("no marks")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(events)), "ns/event")
}
