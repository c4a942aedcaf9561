package query

import (
	"context"
	"slices"
	"testing"

	"github.com/paygate/gateway/schema"
)

// TestCustomerEmailFilter: the merchant console's e-mail search matches
// the payer's e-mail trimmed and in any case (it used to be exact and
// case-sensitive), of the merchant's own orders, and
// combines with the filters on what changes (status, on the latest version).
func TestCustomerEmailFilter(t *testing.T) {
	e := newListEnv(t)
	ch := NewClickHouseOrders(e.ch)
	paid := schema.StatusPaid
	for _, tc := range []struct {
		name   string
		f      Filter
		expect func(o schema.Order) bool
	}{
		{"one payer", Filter{CustomerEmail: "payer1@shop.test"}, func(o schema.Order) bool { return o.CustomerEmail == "payer1@shop.test" }},
		{"one payer's paid orders", Filter{CustomerEmail: "payer1@shop.test", Status: &paid},
			func(o schema.Order) bool {
				return o.CustomerEmail == "payer1@shop.test" && o.Status == schema.StatusPaid
			}},
		{"nobody's", Filter{CustomerEmail: "nobody@shop.test"}, func(schema.Order) bool { return false }},
		{"any case, spaces around", Filter{CustomerEmail: "  PAYER1@Shop.TEST "}, func(o schema.Order) bool { return o.CustomerEmail == "payer1@shop.test" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			f.AppID, f.Page, f.Limit = e.acct.AppID, 1, 50
			rows, err := ch.Page(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			n, err := ch.Count(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, o := range rows {
				got = append(got, o.ID)
			}
			for _, id := range e.ids {
				if tc.expect(e.byID[id]) {
					want = append(want, id)
				}
			}
			if !slices.Equal(got, want) || n != len(want) {
				t.Errorf("got %d (count %d), want %d: %v", len(got), n, len(want), got)
			}
		})
	}
}
