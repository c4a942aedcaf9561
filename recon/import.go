package recon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// Payments is the read model an import needs: our paid payments of a
// channel on a UTC day, as the ledger posted them.
type Payments interface {
	ReconPayments(ctx context.Context, channel string, day time.Time) ([]Payment, error)
}

// Poster posts journal transactions, each once under its key.
type Poster interface {
	PostAll(ctx context.Context, txs []journal.Tx) ([]journal.Result, []error)
}

// postBatch is how many lines post in one round trip.
const postBatch = 500

// Queue keeps findings for the operators' exceptions queue, each once.
type Queue interface {
	Raise(ctx context.Context, channel string, day time.Time, fs []Finding) error
	// Imported records key the first time and says whether it was new.
	Imported(ctx context.Context, key string) (bool, error)
}

// Parser reads one family's statement.
type Parser func(r io.Reader) ([]Line, error)

// Importer imports a provider's statement of a day: parse, match, raise
// every finding, post every matched line.
type Importer struct {
	payments Payments
	journal  Poster
	queue    Queue
	log      *slog.Logger
}

// NewImporter wires an importer; log may be nil.
func NewImporter(p Payments, j Poster, q Queue, log *slog.Logger) *Importer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Importer{payments: p, journal: j, queue: q, log: log}
}

// Result is an import: the match's report, how many lines posted now, and
// whether the same file had been imported before (then nothing changed).
type Result struct {
	Report
	Posted int
	// Unposted are matched orders whose payment the ledger has not posted
	// (the journal refused to clear what was never owed).
	Unposted []string
	Again    bool
	Key      string
	SHA256   string // the file's, hex: how an audit entry names it
	// Cleared is what the lines posted now took off the channel's
	// receivable, per currency: what the provider was owing and paid.
	Cleared map[string]schema.Amount
}

// ErrBadDay is a statement line outside the day it was imported for.
var ErrBadDay = errors.New("statement line outside the day")

// Import reads file with parse and reconciles it against channel's payments
// of day (UTC). The import key is channel, day and the file's sha256: the
// same file again changes nothing, and each line posts once by its own
// journal key whatever files it appears in.
func (im *Importer) Import(ctx context.Context, channel string, day time.Time, file []byte, parse Parser) (Result, error) {
	day = day.UTC().Truncate(24 * time.Hour)
	sum := sha256.Sum256(file)
	res := Result{SHA256: hex.EncodeToString(sum[:])}
	res.Key = "recon:" + channel + ":" + day.Format(time.DateOnly) + ":" + res.SHA256
	lines, err := parse(bytes.NewReader(file))
	if err != nil {
		return res, err
	}
	for _, l := range lines {
		if l.At.Before(day) || !l.At.Before(day.Add(24*time.Hour)) {
			return res, fmt.Errorf("row %d at %s: %w %s", l.Row, l.At.Format(time.RFC3339), ErrBadDay, day.Format(time.DateOnly))
		}
	}
	ours, err := im.payments.ReconPayments(ctx, channel, day)
	if err != nil {
		return res, fmt.Errorf("read our payments: %w", err)
	}
	res.Report = Match(lines, ours)
	fresh, err := im.queue.Imported(ctx, res.Key)
	if err != nil {
		return res, fmt.Errorf("record import: %w", err)
	}
	res.Again = !fresh
	if err := im.queue.Raise(ctx, channel, day, res.Findings); err != nil {
		return res, fmt.Errorf("raise findings: %w", err)
	}
	if err := im.post(ctx, channel, &res); err != nil {
		return res, err
	}
	im.log.Info("statement reconciled", "channel", channel, "day", day.Format(time.DateOnly), "lines", res.Lines,
		"matched", len(res.Matched), "findings", len(res.Findings), "posted", res.Posted, "again", res.Again)
	return res, nil
}

// clear adds what tx, posted now, took off the channel's receivable.
func (res *Result) clear(tx journal.Tx) {
	for _, p := range tx.Postings {
		if strings.HasSuffix(p.Account, ":receivable") {
			if res.Cleared == nil {
				res.Cleared = map[string]schema.Amount{}
			}
			res.Cleared[p.Currency] += p.Amount
		}
	}
}

// post posts each matched line, in batches; a line whose payment the
// ledger never posted is refused by the journal and said.
func (im *Importer) post(ctx context.Context, channel string, res *Result) error {
	txs := make([]journal.Tx, 0, postBatch)
	flush := func() error {
		rs, errs := im.journal.PostAll(ctx, txs)
		for i := range txs {
			if errs[i] != nil {
				return fmt.Errorf("post %s: %w", txs[i].Key, errs[i])
			}
			switch rs[i].Outcome {
			case journal.Posted:
				res.Posted++
				res.clear(txs[i])
			case journal.Missing:
				res.Unposted = append(res.Unposted, txs[i].Ref)
			}
		}
		txs = txs[:0]
		return nil
	}
	for _, m := range res.Matched {
		if tx, ok := Tx(channel, m); ok {
			if txs = append(txs, tx); len(txs) == postBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}
