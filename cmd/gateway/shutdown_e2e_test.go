package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestSIGTERMUnderLoad stops one of two gateways with SIGTERM while clients
// keep creating orders through both, choosing a gateway as a load balancer
// does (by /readyz, polled every 50 ms): the draining gateway's /readyz turns
// 503 while it still answers, the clients move to the other one (the
// hand-over), no request fails, the stopped process exits 0 within its
// bound, and every created order reaches the listing: no event is lost.
func TestSIGTERMUnderLoad(t *testing.T) {
	// The process exits within GATEWAY_SHUTDOWN_TIMEOUT of the signal; the
	// margin covers what lies outside the process's own clock: signal
	// delivery, closing its clients after the shutdown, exit and reaping, on
	// a busy 2-core machine.
	const (
		shutdownTimeout = 10 * time.Second
		exitMargin      = time.Second
	)
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "busy", "--sandbox", "--json")
	e.cli(nil, "merchant", "limits", shop.AppID, "--create", "100000/s", "--json")
	env := []string{"GATEWAY_ROLES=command,query,projector", "GATEWAY_SHUTDOWN_DRAIN=500ms", "GATEWAY_SHUTDOWN_TIMEOUT=" + shutdownTimeout.String()}
	a, b := e.serve(env...), e.serve(env...)
	p := createParams(shop.AppID)
	p["sign"] = schema.Sign(p, shop.APIKey)
	body, _ := json.Marshal(p)

	var created, failed, moved atomic.Int64
	var mu sync.Mutex
	var failures []string
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	targets := []*server{a, b}
	var ready [2]atomic.Bool
	ready[0].Store(true)
	ready[1].Store(true)
	// drainSeen: after SIGTERM, a's /readyz answered 503; it told the
	// balancer before it went away.
	var signalled, drainSeen atomic.Bool
	go func() {
		for ctx.Err() == nil {
			for i, s := range targets {
				res, err := http.Get(s.base + "/readyz")
				ready[i].Store(err == nil && res.StatusCode == 200)
				if err == nil {
					if i == 0 && signalled.Load() && res.StatusCode == http.StatusServiceUnavailable {
						drainSeen.Store(true)
					}
					res.Body.Close()
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{}}
			for i := w; ctx.Err() == nil; i++ {
				pick := i % 2
				if !ready[pick].Load() {
					pick = 1 - pick
					moved.Add(1)
				}
				res, err := client.Post(targets[pick].base+"/api/createorder", "application/json", bytes.NewReader(body))
				if err != nil || res.StatusCode != 200 {
					failed.Add(1)
					mu.Lock()
					failures = append(failures, describe(res, err))
					mu.Unlock()
					continue
				}
				res.Body.Close()
				created.Add(1)
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	stopped := time.Now()
	signalled.Store(true)
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-a.done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, a.logs)
		}
	case <-time.After(shutdownTimeout + exitMargin):
		t.Fatalf("no exit within %v of SIGTERM (GATEWAY_SHUTDOWN_TIMEOUT %v + %v margin)\n%s",
			shutdownTimeout+exitMargin, shutdownTimeout, exitMargin, a.logs)
	}
	exitAfter := time.Since(stopped)
	wg.Wait()
	// The hand-over, checked before the failures it would explain: the
	// balancer saw the drain, and requests it would have sent to the stopped
	// gateway went to the other one (and, as none failed, were served there).
	if !drainSeen.Load() {
		t.Fatalf("the stopped gateway's /readyz never answered 503 while it drained; exited %v after SIGTERM", exitAfter)
	}
	if moved.Load() == 0 {
		t.Fatalf("no request moved to the other gateway after SIGTERM (%d creates)", created.Load())
	}
	if failed.Load() > 0 {
		t.Fatalf("%d of %d requests failed, e.g. %v", failed.Load(), created.Load()+failed.Load(), failures[:min(3, len(failures))])
	}
	want := int(created.Load())
	testenv.Eventually(t, 20*time.Second, "condition", func() bool {
		l := b.list(t, shop.AppID, shop.QueryKey, "status=ready&limit=1")
		return l.Data["total"] == float64(want)
	})
	t.Logf("%d creates, %d sent to the other gateway while one drained; stopped gateway exited %v after SIGTERM; all listed",
		want, moved.Load(), exitAfter.Round(time.Millisecond))
}

func describe(res *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	defer res.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	return res.Status + " " + b.String()
}
