package command

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// BenchmarkCreateRouting is what routing adds to a create of a method
// initialised at create (wallet_a), with 1 and 5 uncapped channels on
// their default settings: ranking the candidates, and the failover loop
// around the (fake, instant) adapter. Uncapped channels cost no Redis call.
func BenchmarkCreateRouting(b *testing.B) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, n := range []int{1, 5} {
		var chs []provider.Channel
		for i := range n {
			chs = append(chs, provider.Channel{ID: fmt.Sprintf("c%d", i), Adapter: &fakeProvider{Base: testBase}})
		}
		reg, err := provider.NewChannelRegistry(map[schema.Method][]provider.Channel{schema.MethodWalletA: chs}, nil)
		if err != nil {
			b.Fatal(err)
		}
		r := &routes{providers: reg, router: channel.NewRouter(channel.NewDirectory(nil, 0, log), reg),
			caps: channel.NewCaps(nil), health: allowAll{}, budget: DefaultChannelBudget, log: log}
		o := &schema.Order{ID: "P1", AppID: "1001", Sandbox: true, Method: schema.MethodWalletA, Amount: 100_00, Currency: "CNY"}
		p := provider.Payment{OrderID: o.ID, Method: o.Method}
		payment := func(*schema.Order) provider.Payment { return p }
		now := time.Now()
		ctx := context.Background()
		b.Run(fmt.Sprintf("rank/channels=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.candidates(o, "", now); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("rank+initialise/channels=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cs, _ := r.candidates(o, "", now)
				if _, err := r.initialise(ctx, o, cs, payment, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
