package dispatcher

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// BenchmarkEventFinishRedis is Redis's side of endpoint deliveries alone,
// no HTTP: b.N events of 100 merchants with 3 endpoints each on 32 hosts
// are scheduled and claimed, then every claimed delivery is recorded as
// acknowledged, claiming the next due delivery of its host queue as a
// busy slot does, 64 outcomes a pipeline (the slots of a dispatcher) with
// at most per outcomes in one eventfinish.lua call (the shard's outcomes
// ready together). It reports Redis's CPU per delivery (INFO cpu), the
// script time and the commands run per delivery (INFO commandstats): what
// a change to the scripts or to how outcomes are grouped costs, away from
// the load of the machine's other processes.
//
//	scripts/testenv.sh go test -run '^$' -bench EventFinishRedis -benchtime 20000x ./dispatcher
func BenchmarkEventFinishRedis(b *testing.B) {
	for _, per := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("per=%d", per), func(b *testing.B) { benchFinish(b, per) })
	}
}

func benchFinish(b *testing.B, per int) {
	const merchants, perMerchant, hosts, slots = 100, 3, 32, 64
	e := newEvEnvTB(b)
	ctx := context.Background()
	if err := e.rdb.FlushDB(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	var apps []string
	eps := map[string][]events.Endpoint{}
	for m := range merchants {
		appid := e.merchant()
		apps = append(apps, appid)
		for k := range perMerchant {
			i := m*perMerchant + k
			eps[appid] = append(eps[appid], e.endpoint(appid, fmt.Sprintf("http://127.0.0.1:%d/ep%d", 20000+i%hosts, i)))
		}
	}
	cfg := Defaults()
	ed := e.deliveries(cfg)
	for i := range b.N {
		appid := apps[i%merchants]
		ev, err := events.New(events.OrderPaid, "fin:"+strconv.Itoa(i), time.Now(), map[string]int{"n": i})
		if err != nil {
			b.Fatal(err)
		}
		if err := ed.ScheduleEvent(ctx, appid, ev, "order:"+strconv.Itoa(i), eps[appid]); err != nil {
			b.Fatal(err)
		}
	}
	s := newStore(e.rdb, cfg)
	var asks []claimAsk
	for _, sh := range schema.AllShards() {
		asks = append(asks, claimAsk{shard: sh, want: slots / 4, perHost: 2})
	}
	jobs, err := s.claimAll(ctx, asks, "bench:")
	if err != nil {
		b.Fatal(err)
	}
	want := b.N * perMerchant
	rec := schema.WebhookAttempt{At: schema.WireTime(time.Now()), Attempt: 1, Status: 204, LatencyMs: 1, Success: true}
	cpu0, st0 := redisCPU(b, e.rdb), redisScriptStats(b, e.rdb)
	b.ResetTimer()
	done := 0
	for len(jobs) > 0 {
		chunk := jobs[:min(slots, len(jobs))]
		jobs = jobs[len(chunk):]
		byShard := map[schema.Shard][]*eventOutcome{}
		var order []schema.Shard
		for _, j := range chunk {
			o, err := newEventOutcome(j, true, rec, -1, "", "bench:", time.Time{})
			if err != nil {
				b.Fatal(err)
			}
			if byShard[j.shard] == nil {
				order = append(order, j.shard)
			}
			byShard[j.shard] = append(byShard[j.shard], o)
		}
		var calls []platform.ScriptCall
		var batches [][]*eventOutcome
		var shards []schema.Shard
		for _, sh := range order {
			all := byShard[sh]
			for k := 0; k < len(all); k += per {
				batch := all[k:min(k+per, len(all))]
				calls = append(calls, s.finishCall(sh, batch))
				batches, shards = append(batches, batch), append(shards, sh)
			}
		}
		for i, cmd := range platform.EvalPipelined(ctx, e.rdb, s.events.finish, calls) {
			raw, err := cmd.Slice()
			if err == nil {
				err = decodeFinishes(shards[i], raw, batches[i])
			}
			if err != nil {
				b.Fatal(err)
			}
			for _, o := range batches[i] {
				if o.outcome != "delivered" {
					b.Fatalf("%s: %s", o.j.id, o.outcome)
				}
				done++
				if o.nj != nil {
					jobs = append(jobs, *o.nj)
				}
			}
		}
		if len(jobs) == 0 && done < want {
			more, err := s.claimAll(ctx, asks, "bench:")
			if err != nil {
				b.Fatal(err)
			}
			jobs = more
		}
	}
	b.StopTimer()
	if done != want {
		b.Fatalf("recorded %d of %d deliveries", done, want)
	}
	cpu, st := redisCPU(b, e.rdb)-cpu0, redisScriptStats(b, e.rdb)
	per1 := func(v float64) float64 { return v / float64(want) }
	b.ReportMetric(per1(cpu.Seconds()*1e6), "redis-µs/delivery")
	b.ReportMetric(per1(float64(st["evalsha"][0]-st0["evalsha"][0])), "evalsha/delivery")
	b.ReportMetric(per1(float64(st["evalsha"][1]-st0["evalsha"][1])), "evalsha-µs/delivery")
	var inner int64
	for c, v := range st {
		if c != "evalsha" && c != "info" && c != "script|load" && c != "evalsha_ro" {
			inner += v[0] - st0[c][0]
		}
	}
	b.ReportMetric(per1(float64(inner)), "commands/delivery")
}

// redisCPU is Redis's CPU time so far, user and system, its threads all.
func redisCPU(tb testing.TB, rdb *redis.Client) time.Duration {
	tb.Helper()
	info, err := rdb.Info(context.Background(), "cpu").Result()
	if err != nil {
		tb.Fatal(err)
	}
	var sum float64
	for _, line := range strings.Split(info, "\r\n") {
		k, v, _ := strings.Cut(line, ":")
		if k == "used_cpu_sys" || k == "used_cpu_user" {
			f, _ := strconv.ParseFloat(v, 64)
			sum += f
		}
	}
	return time.Duration(sum * float64(time.Second))
}

// redisScriptStats is INFO commandstats: per command, calls and µs.
func redisScriptStats(tb testing.TB, rdb *redis.Client) map[string][2]int64 {
	tb.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string][2]int64{}
	for _, line := range strings.Split(info, "\r\n") {
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":")
		if !ok || name == line {
			continue
		}
		var calls, usec int64
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "calls":
				calls, _ = strconv.ParseInt(v, 10, 64)
			case "usec":
				usec, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		out[name] = [2]int64{calls, usec}
	}
	return out
}
