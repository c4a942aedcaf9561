package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
)

// recorder keeps every collector the wiring registers, so the test can ask
// each for its descriptors: a vector with no series yet is absent from a
// scrape but still a metric the gateway exports.
type recorder struct {
	*prometheus.Registry
	collectors []prometheus.Collector
}

func (r *recorder) Register(c prometheus.Collector) error {
	r.collectors = append(r.collectors, c)
	return r.Registry.Register(c)
}

func (r *recorder) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// exportedMetrics wires a process with every role (nothing is dialled) and
// lists the metric names it exports.
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	cfg := platform.Defaults()
	cfg.PublicURL = "http://127.0.0.1:8080"
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	ch, err := platform.OpenClickHouse("clickhouse://127.0.0.1:1/gateway")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Registry: prometheus.NewRegistry()}
	replicaWait(cfg, rec) // serve registers it before wire
	if _, err := wire(cfg, dispatcher.Defaults(), rdb, ch, rec, rec.Registry, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range rec.collectors {
		descs := make(chan *prometheus.Desc, 1000)
		c.Describe(descs)
		close(descs)
		for d := range descs {
			if m := fqName.FindStringSubmatch(d.String()); m != nil {
				names[m[1]] = true
			}
		}
	}
	return names
}

var metricRef = regexp.MustCompile(`\b((?:gateway|process|go)_[a-z0-9_]+|up)\b`)

// usedMetrics collects the metric names the dashboard and alert rules query.
func usedMetrics(t *testing.T) map[string][]string {
	t.Helper()
	used := map[string][]string{}
	add := func(file, expr string) {
		for _, m := range metricRef.FindAllString(expr, -1) {
			used[m] = append(used[m], file)
		}
	}
	rules, err := os.ReadFile(filepath.Join("..", "..", "deploy", "prometheus", "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(rules), "\n") {
		if !strings.Contains(line, "summary:") && !strings.Contains(line, "description:") {
			add("alerts.yml", line)
		}
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "grafana", "dashboards", "gateway.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}
	if len(dash.Panels) == 0 {
		t.Fatal("the dashboard has no panels")
	}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			add("gateway.json: "+p.Title, tg.Expr)
		}
	}
	return used
}

// TestDashboardAndRulesUseExportedMetrics: every metric the dashboard and
// the alert rules query is one the gateway exports.
func TestDashboardAndRulesUseExportedMetrics(t *testing.T) {
	exported := exportedMetrics(t)
	used := usedMetrics(t)
	var missing []string
	for name, where := range used {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
		if name == "up" || exported[name] || exported[base] {
			continue
		}
		missing = append(missing, name+" (in "+where[0]+")")
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("not exported by the gateway:\n%s", strings.Join(missing, "\n"))
	}
	if len(used) < 15 {
		t.Fatalf("only %d metrics used: the parser is missing expressions", len(used))
	}
}

// TestPromtool runs Debian's promtool over the Prometheus config and rules.
func TestPromtool(t *testing.T) {
	promtool := testenv.Tool(t, "promtool")
	for _, args := range [][]string{
		{"check", "config", filepath.Join("..", "..", "deploy", "prometheus", "prometheus.yml")},
		{"check", "rules", filepath.Join("..", "..", "deploy", "prometheus", "alerts.yml")},
	} {
		if out, err := exec.Command(promtool, args...).CombinedOutput(); err != nil {
			t.Fatalf("promtool %v: %v\n%s", args, err, out)
		}
	}
}
