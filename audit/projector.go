package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// ProjectorConfig tunes the copy of the audit streams into ClickHouse.
type ProjectorConfig struct {
	Consumer  string        // this process in the group; default platform.ConsumerName()
	Streams   []string      // default schema.AuditStreams()
	BatchSize int           // entries per INSERT at most; default 500
	Wait      time.Duration // how long a batch waits to fill; default 1 s
	ClaimIdle time.Duration // entries another consumer left this long are taken over; default 30 s
}

// ProjectorDefaults is the configuration with every default filled.
func ProjectorDefaults() ProjectorConfig {
	return ProjectorConfig{
		Consumer:  platform.ConsumerName(),
		Streams:   schema.AuditStreams(),
		BatchSize: 500,
		Wait:      time.Second,
		ClaimIdle: 30 * time.Second,
	}
}

// withDefaults fills the zero fields from ProjectorDefaults.
func (c ProjectorConfig) withDefaults() ProjectorConfig {
	d := ProjectorDefaults()
	c.Consumer = cmp.Or(c.Consumer, d.Consumer)
	if c.Streams == nil {
		c.Streams = d.Streams
	}
	c.BatchSize = cmp.Or(c.BatchSize, d.BatchSize)
	c.Wait = cmp.Or(c.Wait, d.Wait)
	c.ClaimIdle = cmp.Or(c.ClaimIdle, d.ClaimIdle)
	return c
}

// Validate checks the bounds; it changes nothing.
func (c ProjectorConfig) Validate() error {
	if c.BatchSize < 1 || c.Wait < time.Millisecond || c.ClaimIdle < time.Millisecond || len(c.Streams) == 0 {
		return errors.New("audit projector: batch size, wait, claim idle and streams must be positive")
	}
	return nil
}

// Columns are the audit_log columns the projector writes, in row order.
var Columns = []string{"at", "at_ms", "id", "actor_id", "actor_email", "realm", "role", "action", "target", "appid", "source", "details"}

// Projector copies every audit stream entry into ClickHouse, at least once
// (acknowledged only after its INSERT; a replay is the same row).
type Projector struct {
	cfg    ProjectorConfig
	conn   driver.Conn
	c      *platform.Consumer
	log    *slog.Logger
	rows   prometheus.Counter
	errs   prometheus.Counter
	insert string
}

// NewProjector wires the projector over the migrated database conn.
func NewProjector(cfg ProjectorConfig, rdb redis.UniversalClient, conn driver.Conn, reg prometheus.Registerer, log *slog.Logger) (*Projector, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Projector{cfg: cfg, conn: conn, log: log.With("role", "audit-projector"),
		rows:   prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_audit_projected_total", Help: "Audit entries written to ClickHouse."}),
		errs:   prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_audit_projector_errors_total", Help: "Failed audit INSERTs, each retried."}),
		insert: "INSERT INTO audit_log (" + strings.Join(Columns, ", ") + ")"}
	for _, c := range []prometheus.Collector{p.rows, p.errs} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register audit projector metrics: %w", err)
		}
	}
	c, err := platform.NewConsumer(rdb, platform.ConsumerConfig{Group: schema.GroupAudit, Name: cfg.Consumer,
		Streams: cfg.Streams, Count: cfg.BatchSize, Block: cfg.Wait, ClaimIdle: cfg.ClaimIdle}, log)
	if err != nil {
		return nil, err
	}
	p.c = c
	return p, nil
}

// Run projects until ctx ends: first what this name left pending, then new
// entries, taking over others' stale ones every ClaimIdle.
func (p *Projector) Run(ctx context.Context) error {
	if err := p.c.EnsureGroups(ctx); err != nil {
		return err
	}
	for {
		res, err := p.c.Pending(ctx, p.cfg.BatchSize)
		if err != nil {
			return err
		}
		if len(res) == 0 {
			break
		}
		p.write(ctx, res)
	}
	p.c.Start(ctx)
	lastClaim := time.Now()
	for ctx.Err() == nil {
		p.write(ctx, p.c.Next(ctx, p.cfg.Wait, p.cfg.BatchSize))
		if time.Since(lastClaim) >= p.cfg.ClaimIdle {
			p.c.Claim(ctx, p.cfg.BatchSize, func(st redis.XStream) bool {
				p.write(ctx, []redis.XStream{st})
				return ctx.Err() == nil
			})
			lastClaim = time.Now()
		}
	}
	// What the readers still hold is written if ClickHouse answers soon;
	// otherwise it stays pending under this name for the next run.
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.write(sctx, p.c.Stop())
	return nil
}

// write inserts a read and acknowledges it, retrying the INSERT until it
// succeeds or ctx ends (then the entries stay pending for the next run).
func (p *Projector) write(ctx context.Context, res []redis.XStream) {
	rows, acks := [][]any{}, map[string][]string{}
	for _, st := range res {
		for _, m := range st.Messages {
			acks[st.Stream] = append(acks[st.Stream], m.ID)
			if len(m.Values) == 0 {
				continue // trimmed while pending
			}
			rows = append(rows, row(st.Stream, m.ID, decode(m.ID, m.Values)))
		}
	}
	if len(acks) == 0 {
		return
	}
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, 5*time.Second) {
		err := p.send(ctx, rows)
		if err == nil {
			break
		}
		p.errs.Inc()
		p.log.Warn("audit insert failed; will retry", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
	}
	p.rows.Add(float64(len(rows)))
	if err := p.c.Ack(ctx, acks); err != nil {
		p.log.Warn("audit ack failed; entries will be written again", "err", err)
	}
}

func (p *Projector) send(ctx context.Context, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	b, err := p.conn.PrepareBatch(ctx, p.insert)
	if err != nil {
		return fmt.Errorf("prepare audit insert: %w", err)
	}
	for _, r := range rows {
		if err := b.Append(r...); err != nil {
			_ = b.Abort()
			return fmt.Errorf("append audit row: %w", err)
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("send audit insert: %w", err)
	}
	return nil
}

// row is an entry in Columns' order; its id names the stream and the entry.
func row(stream, id string, e Entry) []any {
	return []any{e.At.Truncate(time.Second), uint64(e.At.UnixMilli()), stream + "/" + id, e.ActorID, e.ActorEmail,
		e.Realm, e.Role, e.Action, e.Target, e.AppID, e.Source, detailsJSON(e.Details)}
}
