package frame

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Charts are drawn by us as inline SVG (no script, no library, no other
// host): the Go side computes every coordinate, the "chart" template only
// writes them out. A chart has a value axis (gridlines with their values)
// and a label axis; each bar or point is focusable and says its label and
// value to a screen reader, and shows the value on hover and on keyboard
// focus (CSS only, so the CSP stays strict). Each chart carries its
// figures as a table too, for people who want the numbers.

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
	X0     float64 // the plot's left edge (the value axis)
	Base   float64 // the plot's baseline (value 0)
	Bars   []Bar
	Line   string // polyline points
	Dots   []Bar  // the line's points
	Grid   []Tick // the value axis: a gridline and its value each
	Axis   []Tick // the labels under the plot
	Points []Point
	Empty  bool
}

// Bar is one drawn bar (or dot): its box, what it says, the column that
// answers the pointer and where its value is shown on hover or focus.
type Bar struct {
	X, Y, W, H float64
	HitX, HitW float64
	ValX, ValY float64
	Anchor     string // text-anchor of the value: start, middle, end
	Label      string
	Text       string
}

// Tick is a label on an axis: under the plot (X, Anchor) or beside it (Y).
type Tick struct {
	X, Y   float64
	Anchor string
	Label  string
}

const (
	chartW   = 600
	chartH   = 220
	chartPad = 30 // room for the labels under the plot
	padTop   = 36 // room for the value shown on hover or focus, above every bar
	padLeft  = 52 // room for the values of the value axis
	padRight = 6
	tickFont = 20 // px in the viewBox, as webui.css sets .tick
)

// plotH is the drawing area's height.
const plotH = chartH - chartPad - padTop

// BarChart draws pts as bars on a value axis from zero to a round number
// at or above the largest.
func BarChart(title string, pts []Point) Chart {
	c := newChart(title, "bar", pts)
	if len(pts) == 0 {
		return c
	}
	top, slot := niceTop(peak(pts)), plotSlot(len(pts))
	for i, p := range pts {
		h := scale(p.Value, top)
		x := padLeft + float64(i)*slot
		b := Bar{X: round(x + slot*0.15), Y: round(c.Base - h), W: round(slot * 0.7), H: round(h), Label: p.Label, Text: p.Text}
		place(&b, x, slot)
		c.Bars = append(c.Bars, b)
	}
	c.Grid, c.Axis = grid(top), ticks(pts, slot)
	return c
}

// LineChart draws pts as a line over evenly spaced points.
func LineChart(title string, pts []Point) Chart {
	c := newChart(title, "line", pts)
	if len(pts) == 0 {
		return c
	}
	top, slot := niceTop(peak(pts)), plotSlot(len(pts))
	var b strings.Builder
	for i, p := range pts {
		x, y := round(padLeft+float64(i)*slot+slot/2), round(c.Base-scale(p.Value, top))
		fmt.Fprintf(&b, "%s,%s ", strconv.FormatFloat(x, 'f', -1, 64), strconv.FormatFloat(y, 'f', -1, 64))
		d := Bar{X: x, Y: y, Label: p.Label, Text: p.Text}
		place(&d, padLeft+float64(i)*slot, slot)
		c.Dots = append(c.Dots, d)
	}
	c.Line = strings.TrimSpace(b.String())
	c.Grid, c.Axis = grid(top), ticks(pts, slot)
	return c
}

func newChart(title, kind string, pts []Point) Chart {
	return Chart{Title: title, Kind: kind, W: chartW, H: chartH, X0: padLeft, Base: chartH - chartPad, Points: pts, Empty: isEmpty(pts)}
}

func plotSlot(n int) float64 { return float64(chartW-padLeft-padRight) / float64(n) }

// place sets the column that answers the pointer (the bar's whole slot,
// so a zero bar can be hovered too) and where the value shows: in the
// band above the plot (no later bar paints over it), over the bar,
// anchored so that it never runs past either edge.
func place(b *Bar, x, slot float64) {
	b.HitX, b.HitW = round(x), round(slot)
	b.ValX, b.ValY, b.Anchor = round(x+slot/2), padTop-12, "middle"
	half := textWidth(b.Label+": "+b.Text) / 2
	switch {
	case b.ValX-half < 0:
		b.ValX, b.Anchor = round(x), "start"
	case b.ValX+half > chartW:
		b.ValX, b.Anchor = round(x+slot), "end"
	}
}

// grid is the value axis: zero, half and the top, each a gridline with
// its value.
func grid(top float64) []Tick {
	var out []Tick
	for _, f := range []float64{0, 0.5, 1} {
		out = append(out, Tick{X: padLeft - 6, Y: round(chartH - chartPad - f*plotH), Anchor: "end", Label: number(top * f)})
	}
	return out
}

// ticks labels as many points as their labels leave room for, evenly,
// so labels never overlap nor run past the plot's edges.
func ticks(pts []Point, slot float64) []Tick {
	widest := 0.0
	for _, p := range pts {
		widest = max(widest, textWidth(p.Label))
	}
	fit := max(1, int(float64(chartW-padLeft-padRight)/(widest+tickFont)))
	every := max(1, (len(pts)+fit-1)/fit)
	var out []Tick
	for i := 0; i < len(pts); i += every {
		x := padLeft + float64(i)*slot + slot/2
		x = min(max(x, padLeft+widest/2), chartW-padRight-widest/2) // inside the plot's width
		out = append(out, Tick{X: round(x), Y: chartH - 8, Anchor: "middle", Label: pts[i].Label})
	}
	return out
}

// textWidth is a generous guess of a label's width in the viewBox: wide
// (CJK) characters count double.
func textWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		if utf8.RuneLen(r) > 2 {
			w += tickFont
		} else {
			w += tickFont * 0.6
		}
	}
	return w
}

// niceTop is the value axis's top: 1, 2, 2.5 or 5 times a power of ten,
// at or above v, so the gridlines read as round numbers.
func niceTop(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// number prints an axis value short: 1200 → "1.2k", 2.5 → "2.5".
func number(v float64) string {
	switch {
	case v >= 1e6:
		return trim(v/1e6) + "M"
	case v >= 1e4:
		return trim(v/1e3) + "k"
	default:
		return trim(v)
	}
}

func trim(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

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
	return max(1, v/top*plotH)
}

func round(f float64) float64 { return math.Round(f*10) / 10 }
