package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paygate/gateway/bench/loadgen"
)

// TestCPUPerCreateRow: the createorder phase's CPU seconds, divided by the
// creates it answered, make the "CPU µs per create" row and its target.
func TestCPUPerCreateRow(t *testing.T) {
	r := &report{CPU: []phaseCPU{{
		Phase:  "createorder max",
		Shares: cpuShares{Seconds: map[string]float64{"gateway-cq": 5, "redis": 4.4, "generator": 3}},
	}}}
	r.CPU[0].Answered = 100_000
	r.CPU[0].PerRequestUs = perRequest(r.CPU[0].Shares.Seconds, r.CPU[0].Answered)
	r.Create = &createReport{}
	r.targets()
	var out bytes.Buffer
	r.markdown(&out)
	tests := []struct{ name, want string }{
		{"headline row", "| createorder | CPU µs per create (gateway / Redis), over the createorder max phase (100,000 answered) | 50.0 / 44.0 = 94.0 µs | ≤ 45 µs — **missed** |"},
		{"phase table cell", "| 50.0 / 44.0 |"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("markdown lacks %q:\n%s", tc.want, out.String())
			}
		})
	}
}

// TestCeilingVariantRows: each extra ceiling (fiber alone, more writes,
// batched) gets its own rows, with the CPU of the phase it ran under its
// own name, never another variant's.
func TestCeilingVariantRows(t *testing.T) {
	variants := []struct {
		name        string
		c           ceilingWrites
		phase, what string
		seconds     float64
	}{
		{"fiber alone", ceilingWrites{Writes: 0}, "ceiling 0 writes max", "ceiling without Redis", 1.7},
		{"three writes", ceilingWrites{Writes: 3}, "ceiling 3 writes max", "ceiling with 3 sequential EVALSHAs", 9},
		{"batched", ceilingWrites{Writes: 1, Lanes: 8}, "ceiling batched 8 lanes max", "ceiling batched", 6.1},
	}
	r := &report{}
	for _, v := range variants {
		if got := ceilingPhase(v.c.Writes, v.c.Lanes) + " max"; got != v.phase {
			t.Fatalf("%s: phase %q, want %q", v.name, got, v.phase)
		}
		pc := phaseCPU{Phase: v.phase, Shares: cpuShares{Seconds: map[string]float64{"ceiling": v.seconds, "redis": 3}}}
		pc.Answered = 100_000
		pc.PerRequestUs = perRequest(pc.Shares.Seconds, pc.Answered)
		r.CPU = append(r.CPU, pc)
		v.c.Max = loadgen.Result{Concurrency: 64, Throughput: 1000}
		r.CeilingMore = append(r.CeilingMore, v.c)
	}
	var out bytes.Buffer
	r.markdown(&out)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			want := fmt.Sprintf("over the %s phase (100,000 answered) | %.1f / 30.0 = %.1f µs |", v.phase, v.seconds*10, v.seconds*10+30)
			if !strings.Contains(out.String(), v.what) || !strings.Contains(out.String(), want) {
				t.Errorf("markdown lacks %q with %q:\n%s", v.what, want, out.String())
			}
		})
	}
}

// TestCountingCountsAcceptedOnly: only responses the check accepts count
// as answered, and a nil check accepts 2xx as loadgen does.
func TestCountingCountsAcceptedOnly(t *testing.T) {
	created := `{"code":0,"msg":"success","data":{"paymentId":"01X","orderId":"01X"}}`
	tests := []struct {
		name   string
		check  func(*loadgen.Response) error
		status []int
		body   string
		want   uint64
	}{
		{"nil check counts 2xx", nil, []int{200, 204, 500, 0}, `{}`, 2},
		{"checkCreate refuses bodies without paymentId", checkCreate(nil), []int{200, 400}, `{}`, 0},
		{"checkCreate counts 200s with a paymentId", checkCreate(nil), []int{200, 200, 429}, created, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Uint64
			f := counting(tc.check, &n)
			for _, s := range tc.status {
				_ = f(&loadgen.Response{Status: s, Body: []byte(tc.body)})
			}
			if got := n.Load(); got != tc.want {
				t.Errorf("counted %d, want %d", got, tc.want)
			}
		})
	}
}
