package command

import (
	"testing"
	"time"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// TestDeferredMatchesPayment: deciding from the order alone gives what
// provider.Deferred gives for the whole payment an adapter would be told,
// for every method with and without a chosen system or pay currency.
func TestDeferredMatchesPayment(t *testing.T) {
	init := &initiator{cfg: Config{PublicURL: "https://gw.test"}, store: NewStore(nil, time.Minute, time.Hour)}
	for _, m := range schema.AllMethods() {
		for _, sys := range []string{"", "7"} {
			for _, pcur := range []string{"", "USDT"} {
				o := &schema.Order{ID: "01J", Method: m, FiatpspSystemID: sys, PayCurrency: pcur, Amount: 100, Currency: "USD"}
				t.Run(string(m)+"/"+sys+"/"+pcur, func(t *testing.T) {
					wantInit, wantLocal := provider.Deferred(init.payment(o))
					gotInit, gotLocal := deferred(o)
					if gotInit != wantInit || gotLocal != wantLocal {
						t.Errorf("deferred = %+v, %v; Deferred(payment) = %+v, %v", gotInit, gotLocal, wantInit, wantLocal)
					}
				})
			}
		}
	}
}
