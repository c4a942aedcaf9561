package statement_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/provider/bdcard"
	"github.com/paygate/gateway/provider/bdpspb"
	"github.com/paygate/gateway/provider/cryptohost"
	"github.com/paygate/gateway/provider/cryptopsp"
	"github.com/paygate/gateway/provider/fiatpsp"
	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/provider/walletb"
	"github.com/paygate/gateway/recon"
)

type family struct {
	shape statement.Shape
	parse func(io.Reader, string) ([]recon.Line, error)
}

var families = map[string]family{
	"wallet_a": {walleta.StatementShape, walleta.ParseStatement}, "wallet_b": {walletb.StatementShape, walletb.ParseStatement},
	"cryptohost": {cryptohost.StatementShape, cryptohost.ParseStatement}, "cryptopsp": {cryptopsp.StatementShape, cryptopsp.ParseStatement},
	"bdcard": {bdcard.StatementShape, bdcard.ParseStatement}, "bdpsp_b": {bdpspb.StatementShape, bdpspb.ParseStatement},
	"fiatpsp": {fiatpsp.StatementShape, fiatpsp.ParseStatement},
}

// TestFamilies: each family's parser reads its simulator's statement back,
// and refuses a negative row and another account's row by their rows.
func TestFamilies(t *testing.T) {
	at := time.Date(2026, 11, 27, 23, 59, 59, 0, time.UTC)
	for name, f := range families {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			err := statement.Write(&b, f.shape, func(y func(statement.Row) bool) {
				_ = y(statement.Row{Ref: "R1", Order: "P1", Currency: "USD", Account: "acct", Amount: 1250, Fee: 37, At: at}) &&
					y(statement.Row{Ref: "R1", Order: "P1", Currency: "USD", Account: "acct", Amount: 1250, Fee: 37, At: at})
			})
			if err != nil {
				t.Fatal(err)
			}
			text := "\xEF\xBB\xBF" + b.String()
			lines, err := f.parse(strings.NewReader(text), "acct")
			if err != nil || len(lines) != 2 || lines[0] != (recon.Line{Row: 2, ProviderRef: "R1", OrderID: "P1", Amount: 1250, Fee: 37, Currency: "USD", At: at}) {
				t.Fatalf("read %+v, %v", lines, err)
			}
			bad := strings.Replace(text, "12.50", "-12.50", 1)
			var se *statement.Error
			if _, err := f.parse(strings.NewReader(bad), "acct"); !errors.As(err, &se) || se.Rows[0].Row != 2 {
				t.Fatalf("negative amount: %v", err)
			}
			if _, err := f.parse(strings.NewReader(text), "other"); !errors.As(err, &se) || se.Count != 2 {
				t.Fatalf("another account: %v", err)
			}
		})
	}
}
