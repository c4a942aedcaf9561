package dispatcher

import (
	"context"
	"fmt"
	"slices"
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
// busy slot does, 64 records a pipeline (the slots of a dispatcher). It
// reports Redis's CPU per delivery (INFO cpu), the script time and the
// commands the scripts ran per delivery (INFO commandstats): what a change
// to the scripts costs, away from the load of the machine's other
// processes (make bench-events-redis).
//
//	scripts/testenv.sh go test -run '^$' -bench EventFinishRedis -benchtime 20000x ./dispatcher
func BenchmarkEventFinishRedis(b *testing.B) {
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
		calls := make([]platform.ScriptCall, len(chunk))
		for i, j := range chunk {
			if calls[i], err = s.recordEventCall(j, true, rec, -1, "", "bench:", cfg.EndpointDisableAfter, time.Time{}); err != nil {
				b.Fatal(err)
			}
		}
		for i, cmd := range platform.EvalPipelined(ctx, e.rdb, s.events.finish, calls) {
			raw, err := cmd.Slice()
			if err != nil {
				b.Fatal(err)
			}
			out, _, next, err := decodeRecordEvent(chunk[i], raw)
			if err != nil || out != "delivered" {
				b.Fatalf("%s: %s %v", chunk[i].id, out, err)
			}
			done++
			if next != nil {
				jobs = append(jobs, *next)
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
	var each []string
	for c, v := range st {
		if n := v[0] - st0[c][0]; n > 0 && c != "evalsha" && c != "info" && c != "script|load" && c != "evalsha_ro" {
			inner += n
			each = append(each, fmt.Sprintf("%s %.2f (%.1f µs)", c, per1(float64(n)), per1(float64(v[1]-st0[c][1]))))
		}
	}
	slices.Sort(each)
	b.ReportMetric(per1(float64(inner)), "commands/delivery")
	b.Logf("per delivery: %s", strings.Join(each, ", "))
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
