package frame

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestBarChartScalesToTheLargest(t *testing.T) {
	c := BarChart("orders", []Point{{Label: "a", Value: 10}, {Label: "b", Value: 5}, {Label: "c", Value: 0}, {Label: "d", Value: 0.001}})
	if len(c.Bars) != 4 || c.Empty {
		t.Fatalf("bars %d, empty %v", len(c.Bars), c.Empty)
	}
	full := float64(plotH) // 10 is a round top: the largest reaches it
	for _, tc := range []struct {
		name string
		bar  int
		h    float64
	}{{"the largest fills the height", 0, full}, {"half is half", 1, full / 2}, {"zero is no bar", 2, 0}, {"a little is a pixel", 3, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			b := c.Bars[tc.bar]
			if b.H != round(tc.h) || b.Y+b.H != chartH-chartPad {
				t.Errorf("bar %+v, want height %v standing on the axis", b, tc.h)
			}
		})
	}
	if !BarChart("none", []Point{{Label: "a"}}).Empty {
		t.Error("all zero is not empty")
	}
}

// TestChartValueAxis: the value axis runs from zero to a round number at
// or above the largest value, with its values printed short.
func TestChartValueAxis(t *testing.T) {
	for _, tc := range []struct {
		name string
		peak float64
		want []string
	}{
		{"small counts", 7, []string{"0", "5", "10"}},
		{"a round peak is the top", 20, []string{"0", "10", "20"}},
		{"money", 1234.5, []string{"0", "1000", "2000"}},
		{"just above a round number", 2600, []string{"0", "2500", "5000"}},
		{"thousands print short", 43000, []string{"0", "25k", "50k"}},
		{"below one", 0.3, []string{"0", "0.25", "0.5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := BarChart("x", []Point{{Label: "a", Value: tc.peak}})
			var got []string
			for _, g := range c.Grid {
				got = append(got, g.Label)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("axis %v, want %v", got, tc.want)
			}
			if c.Bars[0].Y < padTop || c.Grid[2].Y != padTop {
				t.Errorf("bar %+v above the axis top %v", c.Bars[0], c.Grid[2].Y)
			}
		})
	}
}

// TestChartLabelsFit: the labels under a chart never overlap one another
// and never run past the drawing's edges, whatever their count and length
// (the webhooks page's 24 hours at 1280 px overlapped and were cut).
func TestChartLabelsFit(t *testing.T) {
	hours := make([]Point, 24)
	for i := range hours {
		hours[i] = Point{Label: fmt.Sprintf("%02d:00", i), Value: float64(i % 5), Text: "3 of 4"}
	}
	long := []Point{{Label: "wallet_a_long_name", Value: 1}, {Label: "usdt_trc20_sandbox", Value: 2}, {Label: "card_provider_x", Value: 3},
		{Label: "bank_transfer_cn", Value: 4}, {Label: "微信支付扫码付款", Value: 5}}
	for _, tc := range []struct {
		name string
		c    Chart
	}{{"24 hours, bars", BarChart("h", hours)}, {"24 hours, line", LineChart("h", hours)}, {"long labels", BarChart("m", long)},
		{"one point", BarChart("one", hours[:1])}, {"90 days", LineChart("d", make([]Point, 90))}} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.c.Axis) == 0 {
				t.Fatal("no labels")
			}
			prevEnd := -1.0
			for _, k := range tc.c.Axis {
				w := textWidth(k.Label)
				from, to := k.X-w/2, k.X+w/2
				if from < padLeft || to > chartW {
					t.Errorf("label %q spans %.0f–%.0f, outside %d–%d", k.Label, from, to, padLeft, chartW)
				}
				if from < prevEnd {
					t.Errorf("label %q starts at %.0f, over the one before (ends %.0f)", k.Label, from, prevEnd)
				}
				prevEnd = to
			}
			for _, b := range append(tc.c.Bars, tc.c.Dots...) {
				w := textWidth(b.Label + ": " + b.Text)
				from := map[string]float64{"start": b.ValX, "middle": b.ValX - w/2, "end": b.ValX - w}[b.Anchor]
				if from < 0 || from+w > chartW {
					t.Errorf("value of %q spans %.0f–%.0f, outside the drawing", b.Label, from, from+w)
				}
			}
		})
	}
}

func TestLineChartPoints(t *testing.T) {
	c := LineChart("volume", []Point{{Label: "mon", Value: 1}, {Label: "tue", Value: 5}})
	got := strings.Fields(c.Line)
	if len(got) != 2 || !strings.HasSuffix(got[1], fmt.Sprintf(",%d", padTop)) {
		t.Errorf("line %q: the largest point should be at the top (%d)", c.Line, padTop)
	}
	many := make([]Point, 30)
	for i := range many {
		many[i].Label = fmt.Sprintf("11-%02d", i+1)
	}
	if n := len(LineChart("x", many).Axis); n > 8 {
		t.Errorf("%d labels under 30 points, want at most 8", n)
	}
}

func TestPager(t *testing.T) {
	p := NewPager("/console/orders", url.Values{"status": {"paid"}, "page": {"2"}}, 2, 20, 45)
	if p.Pages() != 3 || p.From() != 21 || p.To() != 40 || !p.HasPrev() || !p.HasNext() {
		t.Fatalf("pager %+v: pages %d from %d to %d", p, p.Pages(), p.From(), p.To())
	}
	if p.Next() != "/console/orders?page=3&status=paid" {
		t.Errorf("next %q", p.Next())
	}
	last := NewPager("/x", nil, 3, 20, 45)
	if last.HasNext() || last.To() != 45 {
		t.Errorf("last page %+v", last)
	}
	if (Pager{}).HasNext() || (Pager{}).Pages() != 1 {
		t.Error("a zero pager (a page that failed before paging) has pages")
	}
	if e := NewPager("/x", nil, 1, 20, 0); e.From() != 0 || e.Pages() != 1 {
		t.Errorf("empty pager from %d pages %d", e.From(), e.Pages())
	}
}

// TestPagerCountsTheRowsShown: "21–40 of 312" is the rows on the page,
// and the total is never below them.
func TestPagerCountsTheRowsShown(t *testing.T) {
	for _, tc := range []struct {
		name                string
		page, total, shown  int
		from, to, wantTotal int
	}{
		{"a full page", 2, 312, 20, 21, 40, 312},
		{"fewer rows than a page in the middle", 2, 312, 7, 21, 27, 312},
		{"the count lags the rows", 1, 3, 5, 1, 5, 5},
		{"the count says none, rows are shown", 1, 0, 2, 1, 2, 2},
		{"no rows", 1, 0, 0, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPager("/x", nil, tc.page, 20, tc.total).Showing(tc.shown)
			if p.From() != tc.from || p.To() != tc.to || p.Total != tc.wantTotal {
				t.Errorf("%d–%d of %d, want %d–%d of %d", p.From(), p.To(), p.Total, tc.from, tc.to, tc.wantTotal)
			}
		})
	}
}
