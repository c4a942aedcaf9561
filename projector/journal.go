package projector

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

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// JournalConfig tunes the copy of the journal streams into ClickHouse.
type JournalConfig struct {
	Consumer  string        // this process in the group; default platform.ConsumerName()
	BatchSize int           // entries per INSERT at most; default 2,000
	Wait      time.Duration // how long a batch waits to fill; default 500 ms
	ClaimIdle time.Duration // entries another consumer left this long are taken over; default 30 s
}

// JournalDefaults is the configuration with every default filled.
func JournalDefaults() JournalConfig {
	return JournalConfig{Consumer: platform.ConsumerName(), BatchSize: 2000, Wait: 500 * time.Millisecond, ClaimIdle: 30 * time.Second}
}

func (c JournalConfig) withDefaults() JournalConfig {
	d := JournalDefaults()
	c.Consumer = cmp.Or(c.Consumer, d.Consumer)
	c.BatchSize = cmp.Or(c.BatchSize, d.BatchSize)
	c.Wait = cmp.Or(c.Wait, d.Wait)
	c.ClaimIdle = cmp.Or(c.ClaimIdle, d.ClaimIdle)
	return c
}

// Validate checks the bounds; it changes nothing.
func (c JournalConfig) Validate() error {
	if c.BatchSize < 1 || c.BatchSize > 100_000 || c.Wait < time.Millisecond || c.ClaimIdle < time.Millisecond {
		return errors.New("journal projection: batch size 1 to 100000, wait and claim idle of at least 1ms")
	}
	return nil
}

// JournalColumns are the journal table's columns the projection writes, in
// row order (migration 0033).
var JournalColumns = []string{"appid", "at", "tx", "line", "entry", "kind", "ref", "account", "currency", "amount",
	"memo", "posted_by", "at_ms"}

// JournalProjection copies every journal entry, one row per posting, into
// ClickHouse, at least once: an entry is acknowledged only after its rows
// are confirmed and the days they touched recomputed (RollDays), and an
// entry inserted twice is the same rows under the same (tx, line), which
// the readers, the recomputation and the table's merges fold. It never
// trims the journal streams: journal.Verify sums them whole
// (docs/statements.md).
type JournalProjection struct {
	cfg    JournalConfig
	conn   driver.Conn
	c      *platform.Consumer
	log    *slog.Logger
	rows   prometheus.Counter
	errs   prometheus.Counter
	bad    prometheus.Counter
	insert string
}

// NewJournalProjection wires the projection over the migrated database conn.
func NewJournalProjection(cfg JournalConfig, rdb redis.UniversalClient, conn driver.Conn, reg prometheus.Registerer, log *slog.Logger) (*JournalProjection, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &JournalProjection{cfg: cfg, conn: conn, log: log.With("role", "journal-projection"),
		rows:   prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_journal_projected_total", Help: "Journal postings written to ClickHouse."}),
		errs:   prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_journal_projection_errors_total", Help: "Failed journal INSERTs, each retried."}),
		bad:    prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_journal_projection_undecodable_total", Help: "Journal entries the projection could not read (left pending)."}),
		insert: "INSERT INTO journal (" + strings.Join(JournalColumns, ", ") + ")"}
	for _, c := range []prometheus.Collector{p.rows, p.errs, p.bad} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register journal projection metrics: %w", err)
		}
	}
	var streams []string
	for _, s := range schema.AllShards() {
		streams = append(streams, schema.JournalKey(s))
	}
	c, err := platform.NewConsumer(rdb, platform.ConsumerConfig{Group: schema.GroupStatements, Name: cfg.Consumer,
		Streams: streams, Count: cfg.BatchSize/len(streams) + 1, Block: cfg.Wait, ClaimIdle: cfg.ClaimIdle}, log)
	if err != nil {
		return nil, err
	}
	p.c = c
	return p, nil
}

// Run projects until ctx ends: first what this name left pending, then new
// entries, taking over others' stale ones every ClaimIdle.
func (p *JournalProjection) Run(ctx context.Context) error {
	if err := p.c.EnsureGroups(ctx); err != nil {
		return err
	}
	for ctx.Err() == nil {
		res, err := p.c.Pending(ctx, p.cfg.BatchSize)
		if err != nil {
			return err
		}
		if len(res) == 0 {
			break
		}
		if !p.write(ctx, res) {
			break
		}
	}
	p.c.Start(ctx)
	lastClaim := time.Now()
	for ctx.Err() == nil {
		p.write(ctx, p.c.Next(ctx, p.cfg.Wait, p.cfg.BatchSize))
		if time.Since(lastClaim) >= p.cfg.ClaimIdle {
			p.c.Claim(ctx, p.cfg.BatchSize, func(st redis.XStream) bool {
				return p.write(ctx, []redis.XStream{st}) && ctx.Err() == nil
			})
			lastClaim = time.Now()
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.write(sctx, p.c.Stop())
	return nil
}

// write inserts a read and acknowledges it, retrying the INSERT until it
// succeeds or ctx ends (then the entries stay pending for the next run).
// An entry it cannot read stays pending, counted and logged: skipping it
// would leave a hole in every statement it touches.
func (p *JournalProjection) write(ctx context.Context, res []redis.XStream) bool {
	rows, acks, entries := [][]any{}, map[string][]string{}, []journal.Entry{}
	for _, st := range res {
		for _, m := range st.Messages {
			if len(m.Values) == 0 {
				acks[st.Stream] = append(acks[st.Stream], m.ID)
				continue
			}
			e, err := journal.DecodeEntry(m.ID, m.Values)
			if err != nil {
				p.bad.Inc()
				p.log.Error("undecodable journal entry left pending", "stream", st.Stream, "id", m.ID, "err", err)
				continue
			}
			acks[st.Stream] = append(acks[st.Stream], m.ID)
			rows = append(rows, JournalRows(e)...)
			entries = append(entries, e)
		}
	}
	if len(acks) == 0 {
		return true
	}
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, 5*time.Second) {
		err := p.send(ctx, rows, TouchedDays(entries))
		if err == nil {
			break
		}
		p.errs.Inc()
		p.log.Warn("journal insert failed; will retry", "err", err)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(delay):
		}
	}
	p.rows.Add(float64(len(rows)))
	if err := p.c.Ack(ctx, acks); err != nil {
		p.log.Warn("journal ack failed; entries will be written again", "err", err)
	}
	return true
}

// send inserts the rows, then recomputes the days they touched; a failure
// of either is retried whole (the rows again are harmless).
func (p *JournalProjection) send(ctx context.Context, rows [][]any, days []DayKey) error {
	if len(rows) == 0 {
		return nil
	}
	if err := InsertJournalRows(ctx, p.conn, rows); err != nil {
		return err
	}
	return RollDays(ctx, p.conn, days, uint64(time.Now().UnixNano()))
}

// InsertJournalRows is one batch INSERT of rows (JournalRows); the bench
// loads its postings through it too.
func InsertJournalRows(ctx context.Context, conn driver.Conn, rows [][]any) error {
	b, err := conn.PrepareBatch(ctx, "INSERT INTO journal ("+strings.Join(JournalColumns, ", ")+")")
	if err != nil {
		return fmt.Errorf("prepare journal insert: %w", err)
	}
	for _, r := range rows {
		if err := b.Append(r...); err != nil {
			_ = b.Abort()
			return fmt.Errorf("append journal row: %w", err)
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("send journal insert: %w", err)
	}
	return nil
}

// JournalRows are e's postings as rows in JournalColumns' order, numbered
// from 0 in the entry's order (the stream keeps it).
func JournalRows(e journal.Entry) [][]any {
	out := make([][]any, 0, len(e.Postings))
	at := e.At.UTC().Truncate(time.Second)
	for i, ps := range e.Postings {
		out = append(out, []any{e.AppID, at, e.Key, uint16(i), e.ID, e.Kind, e.Ref, ps.Account, ps.Currency,
			int64(ps.Amount), e.Memo, e.By, uint64(e.At.UnixMilli())})
	}
	return out
}
