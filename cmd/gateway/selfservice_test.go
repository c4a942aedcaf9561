package main

import (
	"io"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/frame"
)

// TestSelfServicePagesBuild: the pages build over serve's parts and join a
// console's frame dependencies.
func TestSelfServicePagesBuild(t *testing.T) {
	rdb := testenv.Redis(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	lim, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := access.New(access.Defaults(), rdb, merchant.NewPasswordHasher(), lim, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := selfServicePages("http://127.0.0.1:8080", dispatcher.Defaults(), rdb, nil, acc, nil, nil, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	var d frame.Deps
	if err := pages.Extend(&d); err != nil || len(d.Nav) != 5 {
		t.Fatalf("extend: %v, nav %v", err, d.Nav)
	}
}
