package main

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
)

type engineWithEvents struct{}

func (engineWithEvents) ScheduleEvent(context.Context, string, events.Event, string, []events.Endpoint) error {
	return nil
}

// TestEventsFanOutWiring: the dispatcher role runs the fan-out when its
// engine schedules endpoint deliveries, and none when it does not.
func TestEventsFanOutWiring(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	t.Cleanup(func() { rdb.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := platform.Config{PublicURL: "https://pay.example"}
	tests := []struct {
		name    string
		engine  any
		workers int
	}{
		{"an engine with endpoint deliveries", engineWithEvents{}, 1},
		{"an engine without", struct{}{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &gateway{}
			if err := eventsFanOut(g, cfg, dispatcher.Defaults(), rdb, tt.engine, prometheus.NewRegistry(), log); err != nil {
				t.Fatal(err)
			}
			if len(g.workers) != tt.workers {
				t.Fatalf("%d workers, want %d", len(g.workers), tt.workers)
			}
		})
	}
}
