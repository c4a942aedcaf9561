package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/paygate/gateway/bench/loadgen"
)

// exportReport is one whole export of the listing merchant through the
// gateway: its rows, how fast they came, and how much the gateway's RSS
// grew meanwhile (sampled every 20 ms).
type exportReport struct {
	Rows         int     `json:"rows"`
	Seconds      float64 `json:"seconds"`
	RowsPerSec   float64 `json:"rows_per_sec"`
	RSSGrowthMiB float64 `json:"rss_growth_mib"`
}

// reportSpan is the listing data's range (loadListing spreads it over 90
// days) plus a margin.
func reportSpan() string {
	to := time.Now().UTC().Add(time.Hour)
	return "&from=" + to.Add(-listingDays*24*time.Hour-2*time.Hour).Format(time.RFC3339) + "&to=" + to.Format(time.RFC3339)
}

func reportURI(a account, action, extra string) string {
	return "/api/order?action=" + action + "&appid=" + url.QueryEscape(a.AppID) + "&key=" + url.QueryEscape(a.QueryKey) + reportSpan() + extra
}

// runReports measures the report reads of the listing merchant: a page
// filtered by method and currency, the 90-day summary, the day x method
// time series, one whole export, then another merchant's listing under
// this one's flood (fair share).
func (b readScenario) runReports(ctx context.Context, gw *server, m account) error {
	steps := []struct {
		name string
		uri  string
		dst  **pair
	}{
		{"action=orders paymentMethod+currency page 1", listURI(m, 1) + "&paymentMethod=wallet_a&currency=USD", &b.rep.ListMethod},
		{"action=summary 90 days", reportURI(m, "summary", ""), &b.rep.Summary},
		{"action=timeseries day x method 90 days", reportURI(m, "timeseries", "&interval=day&groupBy=paymentMethod"), &b.rep.Series},
	}
	var errs []error
	for _, s := range steps {
		pr, err := b.runReadPair(ctx, s.name, gw, &loadgen.Get{URIs: []string{s.uri}})
		*s.dst = pr
		errs = append(errs, err)
	}
	ex, err := b.export(ctx, gw, m)
	b.rep.Export = ex
	errs = append(errs, err)
	fs, err := b.runFairShare(ctx, gw, m)
	b.rep.FairShare = fs
	return errors.Join(append(errs, err)...)
}

// export downloads the merchant's whole export and counts its lines.
func (b readScenario) export(ctx context.Context, gw *server, m account) (*exportReport, error) {
	before := rssKiB(gw.pid())
	var peak atomic.Int64
	peak.Store(int64(before))
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if v := int64(rssKiB(gw.pid())); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	defer close(done)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+gw.addr+reportURI(m, "export", "&format=csv"), nil)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return nil, fmt.Errorf("export: status %d", res.StatusCode)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	lines := 0
	for sc.Scan() {
		lines++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	took := time.Since(start).Seconds()
	r := &exportReport{Rows: lines - 1, Seconds: took, RowsPerSec: float64(lines-1) / took,
		RSSGrowthMiB: float64(peak.Load()-int64(before)) / 1024}
	b.logf("export: %d rows in %.1f s (%.0f rows/s), gateway RSS +%.1f MiB", r.Rows, took, r.RowsPerSec, r.RSSGrowthMiB)
	return r, nil
}

// rssKiB is a process's resident set (Linux), 0 when unknown.
func rssKiB(pid int) int {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}
