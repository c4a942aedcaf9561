package provider

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestCallerKeepsItsConnections: two waves of 32 calls at once to one
// provider open about 32 connections, not one per call of the second wave
// (Go's default transport keeps two idle per host, so it dials ~30 more).
func TestCallerKeepsItsConnections(t *testing.T) {
	const inFlight = 32
	var dials atomic.Int64
	var release atomic.Pointer[chan struct{}]
	var arrived sync.WaitGroup
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Done()
		<-*release.Load() // every call of a wave is in flight at once
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	c := NewCaller("test", CallerDefaults(), nil, m, slog.New(slog.DiscardHandler))
	for wave := range 2 {
		gate := make(chan struct{})
		release.Store(&gate)
		arrived.Add(inFlight)
		var done sync.WaitGroup
		for range inFlight {
			done.Go(func() {
				_, err := c.Do(context.Background(), "create", false, func(ctx context.Context) (*http.Request, error) {
					return http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		arrived.Wait()
		close(gate)
		done.Wait()
		t.Logf("after wave %d: %d connections opened", wave+1, dials.Load())
	}
	if n := dials.Load(); n > inFlight+4 {
		t.Fatalf("%d connections opened for two waves of %d calls, want about %d (the first wave's, kept)", n, inFlight, inFlight)
	}
}
