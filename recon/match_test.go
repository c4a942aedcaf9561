package recon

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/paygate/gateway/schema"
)

func pay(id, ref string, amt, fee int64) Payment {
	return Payment{OrderID: id, ProviderRef: ref, Amount: amt2(amt), Fee: amt2(fee), Currency: "CNY"}
}

func line(row int, ref, id string, amt, fee int64) Line {
	return Line{Row: row, ProviderRef: ref, OrderID: id, Amount: amt2(amt), Fee: amt2(fee), Currency: "CNY"}
}

// TestMatch: each kind of finding alone, and what matches.
func TestMatch(t *testing.T) {
	ours := []Payment{pay("P1", "r1", 1000, 6), pay("P2", "r2", 2000, 12), pay("P3", "", 500, 3)}
	tests := []struct {
		name    string
		lines   []Line
		matched int
		want    map[Kind]int
	}{
		{"all three, one by order id only", []Line{line(1, "r1", "", 1000, 6), line(2, "r2", "P2", 2000, 12), line(3, "", "P3", 500, 3)}, 3, nil},
		{"a payment missing at the provider", []Line{line(1, "r1", "", 1000, 6), line(2, "r2", "", 2000, 12)}, 2, map[Kind]int{MissingAtProvider: 1}},
		{"a line missing with us", []Line{line(1, "r1", "", 1000, 6), line(2, "r2", "", 2000, 12), line(3, "", "P3", 500, 3), line(4, "r9", "P9", 700, 4)}, 3, map[Kind]int{MissingWithUs: 1}},
		{"an amount differs", []Line{line(1, "r1", "", 999, 6), line(2, "r2", "", 2000, 12), line(3, "", "P3", 500, 3)}, 2, map[Kind]int{AmountDiffers: 1}},
		{"a fee differs, still matched", []Line{line(1, "r1", "", 1000, 7), line(2, "r2", "", 2000, 12), line(3, "", "P3", 500, 3)}, 3, map[Kind]int{FeeDiffers: 1}},
		{"a duplicate reference", []Line{line(1, "r1", "", 1000, 6), line(2, "r1", "", 1000, 6), line(3, "r2", "", 2000, 12), line(4, "", "P3", 500, 3)}, 3, map[Kind]int{Duplicate: 1}},
		{"a line with neither reference nor order", []Line{line(1, "", "", 1000, 6)}, 0, map[Kind]int{MissingWithUs: 1, MissingAtProvider: 3}},
		{"another currency", []Line{{Row: 1, ProviderRef: "r1", Amount: amt2(1000), Fee: amt2(6), Currency: "USD"}, line(2, "r2", "", 2000, 12), line(3, "", "P3", 500, 3)}, 2, map[Kind]int{AmountDiffers: 1}},
		{"an empty statement", nil, 0, map[Kind]int{MissingAtProvider: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Match(tt.lines, ours)
			got := map[Kind]int{}
			for _, f := range r.Findings {
				got[f.Kind]++
				if f.Evidence() == "" {
					t.Errorf("finding %+v has no evidence", f)
				}
			}
			if len(r.Matched) != tt.matched || fmt.Sprint(got) != fmt.Sprint(nonNil(tt.want)) {
				t.Fatalf("matched %d, findings %v; want %d, %v", len(r.Matched), got, tt.matched, tt.want)
			}
		})
	}
}

func nonNil(m map[Kind]int) map[Kind]int {
	if m == nil {
		return map[Kind]int{}
	}
	return m
}

// day is a statement of n payments with planted differences: every 1000th
// line's amount off by one, every 1500th missing at the provider, every
// 2000th line repeated, and 7 lines that are none of ours.
func day(n int) ([]Line, []Payment, map[Kind]int) {
	ours := make([]Payment, n)
	lines := make([]Line, 0, n+n/2000+7)
	want := map[Kind]int{}
	for i := range n {
		ours[i] = pay(fmt.Sprintf("P%08d", i), fmt.Sprintf("ref%08d", i), int64(100+i%997), int64(1+i%5))
		l := line(len(lines)+1, ours[i].ProviderRef, "", int64(100+i%997), int64(1+i%5))
		switch {
		case i%1500 == 7:
			want[MissingAtProvider]++
			continue
		case i%1000 == 3:
			l.Amount++
			want[AmountDiffers]++
		}
		lines = append(lines, l)
		if i%2000 == 11 {
			dup := l
			dup.Row = len(lines) + 1
			lines = append(lines, dup)
			want[Duplicate]++
		}
	}
	for k := range 7 {
		lines = append(lines, line(len(lines)+1, fmt.Sprintf("zz%d", k), "", 100, 1))
		want[MissingWithUs]++
	}
	rand.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return lines, ours, want
}

// TestMatchPlantedDifferences: a day of 100,000 payments finds every
// planted difference and invents none.
func TestMatchPlantedDifferences(t *testing.T) {
	lines, ours, want := day(100_000)
	r := Match(lines, ours)
	for _, k := range []Kind{MissingWithUs, MissingAtProvider, AmountDiffers, FeeDiffers, Duplicate} {
		if r.Count(k) != want[k] {
			t.Errorf("%s: found %d, planted %d", k, r.Count(k), want[k])
		}
	}
}

func BenchmarkMatchDay(b *testing.B) {
	lines, ours, _ := day(100_000)
	b.ResetTimer()
	for b.Loop() {
		Match(lines, ours)
	}
}

func amt2(n int64) schema.Amount { return schema.Amount(n) }
