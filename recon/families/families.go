// Package families knows which provider family reads a channel's
// statement, and wires the statement importer over the ledger's stores:
// the one place `gateway reconcile` and the operator console's
// Reconciliation page both take them from, so the two import alike.
package families

import (
	"io"
	"log/slog"
	"sort"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider/bdcard"
	"github.com/paygate/gateway/provider/bdpspb"
	"github.com/paygate/gateway/provider/cryptohost"
	"github.com/paygate/gateway/provider/cryptopsp"
	"github.com/paygate/gateway/provider/fiatpsp"
	"github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/provider/walletb"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/schema"
)

// parsers is each method's family's statement parser (bdpsp_a settles
// through the bdcard acquirer, so it reads bdcard's statement).
var parsers = map[schema.Method]func(io.Reader, string) ([]recon.Line, error){
	schema.MethodWalletA: walleta.ParseStatement, schema.MethodWalletB: walletb.ParseStatement,
	schema.MethodCryptohost: cryptohost.ParseStatement, schema.MethodCryptoPSP: cryptopsp.ParseStatement,
	schema.MethodBDCard: bdcard.ParseStatement, schema.MethodBDPSPA: bdcard.ParseStatement,
	schema.MethodBDPSPB: bdpspb.ParseStatement, schema.MethodFiatPSP: fiatpsp.ParseStatement,
}

// Methods are the methods whose channels have a provider statement, sorted.
func Methods() []schema.Method {
	out := make([]schema.Method, 0, len(parsers))
	for m := range parsers {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Parser reads ref's statement by its family, every row required to be of
// the provider account account (the first row's when ""). A method without
// a statement is a 400.
func Parser(ref channel.Ref, account string) (recon.Parser, error) {
	p, ok := parsers[ref.Method]
	if !ok {
		return nil, platform.Errorf(platform.KindInvalidParameter, "method %s has no provider statement", ref.Method)
	}
	return func(r io.Reader) ([]recon.Line, error) { return p(r, account) }, nil
}

// NewImporter is the importer over our payments in ClickHouse (the
// journal's copy), the journal j posts to, and the exceptions queue in rdb.
func NewImporter(ch driver.Conn, rdb redis.UniversalClient, j *journal.Journal, log *slog.Logger) *recon.Importer {
	return recon.NewImporter(query.NewStatements(ch), j, recon.NewRedisQueue(rdb), log)
}

// Check refuses a channel reference a statement cannot be imported for.
func Check(ref string) (channel.Ref, error) {
	r, err := channel.ParseRef(ref)
	if err != nil {
		return channel.Ref{}, platform.Errorf(platform.KindInvalidParameter, "channel %q: %s", ref, err.Error())
	}
	if _, ok := parsers[r.Method]; !ok {
		return channel.Ref{}, platform.Errorf(platform.KindInvalidParameter, "method %s has no provider statement", r.Method)
	}
	return r, nil
}
