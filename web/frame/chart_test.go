package frame

import (
	"net/url"
	"strings"
	"testing"
)

func TestBarChartScalesToTheLargest(t *testing.T) {
	c := BarChart("orders", []Point{{Label: "a", Value: 10}, {Label: "b", Value: 5}, {Label: "c", Value: 0}, {Label: "d", Value: 0.001}})
	if len(c.Bars) != 4 || c.Empty {
		t.Fatalf("bars %d, empty %v", len(c.Bars), c.Empty)
	}
	full := float64(chartH - chartPad - 8)
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

func TestLineChartPoints(t *testing.T) {
	c := LineChart("volume", []Point{{Label: "mon", Value: 1}, {Label: "tue", Value: 3}})
	if got := strings.Fields(c.Line); len(got) != 2 || got[1] != "450,8" {
		t.Errorf("line %q", c.Line)
	}
	many := make([]Point, 30)
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
