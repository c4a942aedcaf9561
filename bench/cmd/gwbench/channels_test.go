package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paygate/gateway/bench/loadgen"
)

func TestChannelIDs(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want string
	}{
		{"one is the default alone", 1, "default"},
		{"five", 5, "default,c2,c3,c4,c5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := channelIDs(tt.n); got != tt.want {
				t.Fatalf("channelIDs(%d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}

// TestChannelsReportComparesMeans: the ratio is of the means of each
// count's rounds, and the target row says whether five stay within 5 %.
func TestChannelsReportComparesMeans(t *testing.T) {
	r := &channelsReport{Method: "cryptohost", Mode: "weighted", Rounds: []channelsRound{
		{Channels: 1, Max: loadgen.Result{Throughput: 1000}}, {Channels: 5, Max: loadgen.Result{Throughput: 900}},
		{Channels: 1, Max: loadgen.Result{Throughput: 1200}}, {Channels: 5, Max: loadgen.Result{Throughput: 1000}},
	}}
	r.One, r.Five = r.mean(1), r.mean(5)
	r.Ratio = r.Five / r.One
	if r.One != 1100 || r.Five != 950 {
		t.Fatalf("means %v and %v, want 1100 and 950", r.One, r.Five)
	}
	rep := &report{Channels: r}
	rep.targets()
	var got *targetCheck
	for i := range rep.Targets {
		if rep.Targets[i].Name == "createorder with 5 channels vs 1" {
			got = &rep.Targets[i]
		}
	}
	if got == nil || got.Met {
		t.Fatalf("target %+v, want a missed one (86%% of one channel)", got)
	}
	var b strings.Builder
	r.markdown(rep, func(f string, a ...any) { b.WriteString(strings.TrimSpace(fmt.Sprintf(f, a...)) + "\n") })
	if !strings.Contains(b.String(), "950/s against 1,100/s (86%)") {
		t.Fatalf("markdown:\n%s", b.String())
	}
}
