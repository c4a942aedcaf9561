package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/paygate/gateway/bench/loadgen"
)

// channelsScenario answers whether many provider accounts per method cost
// the create path: the same routed create (cryptohost, whose channel is
// chosen and whose provider is asked at create) on a gateway with one
// sandbox channel per method and on one with five, in weighted mode so that
// the five are all ranked and all used. The counts alternate, so a drift of
// the machine during the run falls on both.
type channelsScenario struct{ *bench }

// channelRounds is the order of the gateways: one channel, five, one, five.
var channelRounds = []int{1, 5, 1, 5}

// routedCreate is the create the scenario measures: routed and initialised
// at create, with the cheapest simulator (no RSA signature).
var routedCreate = providerCreates[0]

type channelsReport struct {
	Method string          `json:"method"`
	Mode   string          `json:"mode"`
	Rounds []channelsRound `json:"rounds"`
	// One and Five are the mean max throughputs; Ratio is Five/One.
	One   float64 `json:"one_channel_per_s"`
	Five  float64 `json:"five_channels_per_s"`
	Ratio float64 `json:"ratio"`
}

type channelsRound struct {
	Channels int            `json:"channels"`
	Phase    string         `json:"phase"`
	Max      loadgen.Result `json:"max"`
}

func (b channelsScenario) runChannels(ctx context.Context) error {
	rep := &channelsReport{Method: routedCreate.method, Mode: "weighted"}
	b.rep.Channels = rep
	if err := cli(ctx, b.cfg, nil, "channel", "mode", "sandbox."+routedCreate.method, rep.Mode, "--by", "gwbench"); err != nil {
		return err
	}
	for i, n := range channelRounds {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		phase := fmt.Sprintf("createorder %s, %s, round %d", routedCreate.method, channelsWord(n), i/2+1)
		res, err := b.round(ctx, n, i, phase)
		if err != nil {
			return fmt.Errorf("%s: %w", phase, err)
		}
		rep.Rounds = append(rep.Rounds, channelsRound{Channels: n, Phase: phase, Max: res})
	}
	rep.One, rep.Five = rep.mean(1), rep.mean(5)
	if rep.One > 0 {
		rep.Ratio = rep.Five / rep.One
	}
	return nil
}

// round starts a gateway with n sandbox channels per method and measures
// the routed create's max throughput on it.
func (b channelsScenario) round(ctx context.Context, n, i int, phase string) (loadgen.Result, error) {
	cfg := *b.cfg
	cfg.GatewayEnv = append(slices.Clone(b.cfg.GatewayEnv), "GATEWAY_SANDBOX_CHANNELS="+channelIDs(n))
	gw, err := startGateway(ctx, &cfg, fmt.Sprintf("gateway-ch%d-%d", n, i), "command,query")
	if err != nil {
		return loadgen.Result{}, err
	}
	defer gw.stop()
	m, err := newMerchant(ctx, &cfg, fmt.Sprintf("bench-channels-%d", i))
	if err != nil {
		return loadgen.Result{}, err
	}
	count := b.cfg.PoolRate * int((b.cfg.Phase+warmup(b.cfg.Phase)).Seconds()+1) / 3
	bodies := createBodies(m, routedCreate, fmt.Sprintf("ch%d-%d", n, i), count, nil)
	res, err := b.closed(ctx, phase, gw, createTarget(bodies), b.cfg.Phase, checkCreate(nil))
	if err == nil && res.Exhausted {
		b.note("%s used up its %d pre-signed bodies before the phase ended; raise --pool-rate", phase, count)
	}
	return res, err
}

func channelsWord(n int) string {
	if n == 1 {
		return "1 channel"
	}
	return fmt.Sprintf("%d channels", n)
}

// channelIDs is the sandbox's channel list of n channels: default, c2, c3...
func channelIDs(n int) string {
	ids := []string{"default"}
	for k := 2; k <= n; k++ {
		ids = append(ids, fmt.Sprintf("c%d", k))
	}
	return strings.Join(ids, ",")
}

func (r *channelsReport) mean(channels int) float64 {
	m, _ := r.meanOf(channels, func(rd channelsRound) (float64, bool) { return rd.Max.Throughput, true })
	return m
}

// meanOf is the mean of f over the rounds with the given channel count
// where f has a value; false when none has.
func (r *channelsReport) meanOf(channels int, f func(channelsRound) (float64, bool)) (float64, bool) {
	var sum float64
	var k int
	for _, rd := range r.Rounds {
		if v, ok := f(rd); ok && rd.Channels == channels {
			sum += v
			k++
		}
	}
	if k == 0 {
		return 0, false
	}
	return sum / float64(k), true
}

// markdown prints the rounds, their CPU per create, and what five channels
// cost beyond one: the difference of the gateway's CPU per create is the
// routing's cost end to end (ranking, the weighted draw, one more adapter
// per channel), with the noise of runs of one build in it.
func (r *channelsReport) markdown(rep *report, p func(string, ...any)) {
	for _, rd := range r.Rounds {
		p("| createorder with %s per method (%s USD, sandbox, %s mode) | max throughput, c=%d (p99 there) | %s (%s) | |",
			channelsWord(rd.Channels), r.Method, r.Mode, rd.Max.Concurrency, rate(rd.Max.Throughput), msStr(rd.Max.Latency.P99))
		rep.cpuPerRow(p, "createorder, "+channelsWord(rd.Channels), "CPU µs per create (gateway / Redis)", rd.Phase, "")
	}
	if r.Ratio > 0 {
		p("| createorder, 5 channels against 1 | mean max throughput | %s against %s (%s) | %s |", rate(r.Five), rate(r.One), pct(r.Ratio), rep.mark("createorder with 5 channels vs 1"))
	}
	if gw5, ok5 := r.gatewayCPU(rep, 5); ok5 {
		if gw1, ok1 := r.gatewayCPU(rep, 1); ok1 {
			p("| routing among 5 channels | gateway CPU µs per create, 5 channels minus 1 (mean of the rounds) | %+.1f µs (%.1f against %.1f) | |", gw5-gw1, gw5, gw1)
		}
	}
}

// gatewayCPU is the mean gateway CPU per create of the rounds with the
// given channel count.
func (r *channelsReport) gatewayCPU(rep *report, channels int) (float64, bool) {
	return r.meanOf(channels, func(rd channelsRound) (float64, bool) {
		gw, _, ok := rep.phaseCPU(rd.Phase).serverAndRedis()
		return gw, ok
	})
}
