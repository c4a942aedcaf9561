package frame

import (
	"fmt"
	"strconv"
	"strings"
)

// Charts are drawn by us as inline SVG (no script, no library, no other
// host): the Go side computes every coordinate, the "chart" template only
// writes them out. Each chart carries its figures as a table too, for
// screen readers and for people who want the numbers.

// Point is one bar or one point of a line: a label, its value, and the
// value as the page should print it ("1,204.50 USD").
type Point struct {
	Label string
	Value float64
	Text  string
}

// Chart is a drawn chart.
type Chart struct {
	Title  string
	Kind   string // "bar" or "line"
	W, H   int
	Bars   []Bar
	Line   string // polyline points
	Dots   []Bar  // the line's points, for their titles
	Axis   []Tick
	Points []Point
	Empty  bool
}

// Bar is one drawn bar (or dot): its box and what it says.
type Bar struct {
	X, Y, W, H float64
	Label      string
	Text       string
}

// Tick is a label under the chart.
type Tick struct {
	X     float64
	Label string
}

const (
	chartW   = 600
	chartH   = 200
	chartPad = 24 // room for the labels under the bars
)

// BarChart draws pts as bars scaled to the largest.
func BarChart(title string, pts []Point) Chart {
	c := Chart{Title: title, Kind: "bar", W: chartW, H: chartH, Points: pts, Empty: isEmpty(pts)}
	if len(pts) == 0 {
		return c
	}
	top := peak(pts)
	slot := float64(chartW) / float64(len(pts))
	for i, p := range pts {
		h := scale(p.Value, top)
		x := float64(i) * slot
		c.Bars = append(c.Bars, Bar{X: round(x + slot*0.15), Y: round(chartH - chartPad - h), W: round(slot * 0.7), H: round(h),
			Label: p.Label, Text: p.Text})
	}
	c.Axis = ticks(pts, slot)
	return c
}

// LineChart draws pts as a line over evenly spaced points.
func LineChart(title string, pts []Point) Chart {
	c := Chart{Title: title, Kind: "line", W: chartW, H: chartH, Points: pts, Empty: isEmpty(pts)}
	if len(pts) == 0 {
		return c
	}
	top := peak(pts)
	slot := float64(chartW) / float64(len(pts))
	var b strings.Builder
	for i, p := range pts {
		x, y := round(float64(i)*slot+slot/2), round(chartH-chartPad-scale(p.Value, top))
		fmt.Fprintf(&b, "%s,%s ", strconv.FormatFloat(x, 'f', -1, 64), strconv.FormatFloat(y, 'f', -1, 64))
		c.Dots = append(c.Dots, Bar{X: x, Y: y, Label: p.Label, Text: p.Text})
	}
	c.Line = strings.TrimSpace(b.String())
	c.Axis = ticks(pts, slot)
	return c
}

// ticks labels at most 8 of the points, evenly, so labels never overlap.
func ticks(pts []Point, slot float64) []Tick {
	every := max(1, (len(pts)+7)/8)
	var out []Tick
	for i := 0; i < len(pts); i += every {
		out = append(out, Tick{X: round(float64(i)*slot + slot/2), Label: pts[i].Label})
	}
	return out
}

func peak(pts []Point) float64 {
	top := 0.0
	for _, p := range pts {
		top = max(top, p.Value)
	}
	return top
}

func isEmpty(pts []Point) bool { return peak(pts) == 0 }

// scale is v's height in the drawing area; a value above zero is at
// least one pixel, so it is not mistaken for none.
func scale(v, top float64) float64 {
	if top <= 0 || v <= 0 {
		return 0
	}
	return max(1, v/top*float64(chartH-chartPad-8))
}

func round(f float64) float64 { return float64(int(f*10+0.5)) / 10 }
