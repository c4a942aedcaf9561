package families

import (
	"errors"
	"strings"
	"testing"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider/bdcard"
	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/schema"
)

// TestCheckAndParser: every method with a statement is found by its ref
// (sandbox or live), a method without one and a malformed ref are 400s,
// and bdpsp_a reads bdcard's statement.
func TestCheckAndParser(t *testing.T) {
	tests := []struct {
		name, ref string
		ok        bool
	}{
		{"live channel", "wallet_a.default", true},
		{"sandbox channel", "sandbox.bdpsp_a.default", true},
		{"no statement for USDT", "usdt_direct.default", false},
		{"no such method", "nope.default", false},
		{"no id", "wallet_a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Check(tt.ref)
			var pe *platform.Error
			switch {
			case tt.ok && err != nil:
				t.Fatalf("%s refused: %v", tt.ref, err)
			case !tt.ok && (!errors.As(err, &pe) || pe.Kind != platform.KindInvalidParameter):
				t.Fatalf("%s: %v, want a 400", tt.ref, err)
			case tt.ok:
				if _, err := Parser(r, ""); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	r, _ := Check("bdpsp_a.default")
	p, _ := Parser(r, "")
	var b strings.Builder
	if err := statement.Write(&b, bdcard.StatementShape, func(func(statement.Row) bool) {}); err != nil {
		t.Fatal(err)
	}
	if lines, err := p(strings.NewReader(b.String())); err != nil || len(lines) != 0 {
		t.Fatalf("bdcard's empty statement read as bdpsp_a's: %v %v", lines, err)
	}
	if len(Methods()) != 8 || Methods()[0] != schema.MethodBDCard {
		t.Fatalf("methods %v", Methods())
	}
}
