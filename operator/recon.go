package operator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/recon/families"
)

// ActionReconImport is the audit action of a statement import.
const ActionReconImport = "recon.import"

// ReconConfig bounds an import: the file's size and how many findings a
// report carries (the exceptions queue keeps them all).
type ReconConfig struct {
	MaxFile int64
	Shown   int
}

// ReconDefaults: a statement of 64 MiB (some 500,000 lines), 50 findings.
func ReconDefaults() ReconConfig { return ReconConfig{MaxFile: 64 << 20, Shown: 50} }

// Validate refuses bounds an import cannot work with.
func (c ReconConfig) Validate() error {
	if c.MaxFile < 1<<10 || c.Shown < 1 {
		return fmt.Errorf("reconciliation: max file %d bytes, %d findings shown: want at least 1 KiB and 1", c.MaxFile, c.Shown)
	}
	return nil
}

// Reconciliation is the operators' side of provider statements: the admin
// imports one (recon.Importer does the matching and posting), every
// operator reads each channel's receivable and its last import. The CLI
// and the console page call the same use case, so both leave the same
// audit entry and the same last-import record.
type Reconciliation struct {
	cfg  ReconConfig
	im   *recon.Importer
	j    *journal.Journal
	rdb  redis.UniversalClient
	conf channel.Configured
	log  Auditor
	now  func() time.Time
}

// NewReconciliation imports with im and reads the receivables off j. conf
// lists the channels this process has credentials for; nil (the CLI)
// takes any channel whose family has a statement.
func NewReconciliation(cfg ReconConfig, im *recon.Importer, j *journal.Journal, rdb redis.UniversalClient, conf channel.Configured, log Auditor) (*Reconciliation, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reconciliation{cfg: cfg, im: im, j: j, rdb: rdb, conf: conf, log: log, now: time.Now}, nil
}

// WithClock makes now the use case's time (tests, the gateway's offset).
func (r *Reconciliation) WithClock(now func() time.Time) *Reconciliation {
	cp := *r
	cp.now = now
	return &cp
}

// Statement is a provider's statement to import: the channel ref, the UTC
// day, the provider account every row must be of ("": the first row's).
type Statement struct {
	Channel, Day, Account string
	File                  io.Reader
}

// Import reconciles st and records who did, with what file (its sha256,
// never its content) and what came of it. A statement the family's parser
// refuses, a bad day or an unknown channel is a 400 whose message names
// the rows; nothing is posted then.
func (r *Reconciliation) Import(ctx context.Context, actor access.Actor, st Statement) (ReconReport, error) {
	if err := allow(actor, access.PermOpReconImport); err != nil {
		return ReconReport{}, err
	}
	if r.im == nil {
		return ReconReport{}, platform.Errorf(platform.KindUnavailable, "importing a statement reads our payments in ClickHouse, which this process does not use")
	}
	ref, day, parse, err := r.statement(st)
	if err != nil {
		return ReconReport{}, err
	}
	file, err := r.read(st.File)
	if err != nil {
		return ReconReport{}, err
	}
	res, err := r.im.Import(ctx, ref.String(), day, file, parse)
	if errors.Is(err, recon.ErrBadDay) {
		return ReconReport{}, platform.Errorf(platform.KindInvalidParameter, "%s", err.Error())
	}
	if err != nil {
		return ReconReport{}, err
	}
	rep := report(ref.String(), day, len(file), res, r.cfg.Shown)
	if err := r.remember(ctx, actor, rep); err != nil {
		return rep, err
	}
	e, err := checked(entry(r.now(), actor, ActionReconImport, "channel:"+rep.Channel, "", rep.details()))
	if err != nil {
		return rep, err
	}
	return rep, record(ctx, r.log, e)
}

// statement checks st's channel, day and account, and picks the parser.
func (r *Reconciliation) statement(st Statement) (channel.Ref, time.Time, recon.Parser, error) {
	ref, err := families.Check(strings.TrimSpace(st.Channel))
	if err != nil {
		return ref, time.Time{}, nil, err
	}
	if r.conf != nil && !configured(r.conf, ref) {
		return ref, time.Time{}, nil, platform.Errorf(platform.KindInvalidParameter, "channel %s is not configured here", ref)
	}
	day, err := time.Parse(time.DateOnly, strings.TrimSpace(st.Day))
	if err != nil {
		return ref, time.Time{}, nil, invalid("the day is a date such as 2026-11-27")
	}
	account, err := audit.Text("the provider account", st.Account, 64)
	if err != nil {
		return ref, time.Time{}, nil, err
	}
	p, err := families.Parser(ref, account)
	if err != nil {
		return ref, time.Time{}, nil, err
	}
	return ref, day, refused(p), nil
}

// refused makes the parser's refusal of a file a 400 that names its rows.
func refused(p recon.Parser) recon.Parser {
	return func(rd io.Reader) ([]recon.Line, error) {
		lines, err := p(rd)
		if err != nil {
			return nil, platform.Errorf(platform.KindInvalidParameter, "%s", err.Error())
		}
		return lines, nil
	}
}

// read takes the file whole, refusing one over the bound or empty.
func (r *Reconciliation) read(f io.Reader) ([]byte, error) {
	if f == nil {
		return nil, invalid("choose the statement file")
	}
	b, err := io.ReadAll(io.LimitReader(f, r.cfg.MaxFile+1))
	if err != nil {
		return nil, fmt.Errorf("read the statement: %w", err)
	}
	switch {
	case int64(len(b)) > r.cfg.MaxFile:
		return nil, platform.Errorf(platform.KindInvalidParameter, "the statement is over the %s bound: split it", size(r.cfg.MaxFile))
	case len(b) == 0:
		return nil, invalid("the statement file is empty")
	}
	return b, nil
}

// size is n bytes in the largest unit that divides it.
func size(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func configured(conf channel.Configured, ref channel.Ref) bool {
	for _, id := range conf.Channels(ref.Method, ref.Sandbox) {
		if id == ref.ID {
			return true
		}
	}
	return false
}

// details are the audit entry's: the file by its sha256 and size, never
// its content; "result" says whether it had been imported before.
func (rep ReconReport) details() map[string]string {
	result := "imported"
	if rep.Again {
		result = "imported before: nothing changed"
	}
	counts := []string{"bytes " + strconv.Itoa(rep.Bytes), "lines " + strconv.Itoa(rep.Lines), "payments " + strconv.Itoa(rep.Payments),
		"matched " + strconv.Itoa(rep.Matched), "posted " + strconv.Itoa(rep.Posted)}
	for _, k := range rep.Counts {
		counts = append(counts, string(k.Kind)+" "+strconv.Itoa(k.N))
	}
	d := map[string]string{"channel": rep.Channel, "day": rep.Day, "sha256": rep.SHA256, "result": result,
		"counts": strings.Join(counts, ", ")}
	if len(rep.Cleared) > 0 {
		parts := make([]string, 0, len(rep.Cleared))
		for _, c := range rep.Cleared {
			parts = append(parts, c.Amount.String()+" "+c.Currency)
		}
		d["cleared"] = strings.Join(parts, ", ")
	}
	return d
}
