package main

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	webepay "github.com/paygate/gateway/web/epay"
)

// mountEpayAPI serves the epay door's api.php where both the command side
// (its refund) and the query side (its reads) run, as the merchant
// console does (docs/epay-api.md).
func mountEpayAPI(g *gateway, cfg platform.Config, rdb redis.UniversalClient, dir *merchant.Directory, limiter *platform.Limiter,
	cp consoleParts, types epay.TypeSource, reg prometheus.Registerer, log *slog.Logger) error {
	orders, err := query.NewOrders(query.Config{PublicURL: cfg.PublicURL, QueryLimit: cfg.Limits().Query, ReportLimit: cfg.Limits().Report,
		ReportMaxRange: cfg.ReportMaxRange}, dir, query.Sources{Live: cp.live, Archive: cp.ch, Listing: cp.listing, Gate: cp.gate}, limiter, log)
	if err != nil {
		return err
	}
	store, err := orderStore(cfg, rdb)
	if err != nil {
		return err
	}
	jr, err := g.journalOn(rdb, reg, log)
	if err != nil {
		return err
	}
	api, err := epay.NewAPI(epay.APIDeps{Accounts: dir, Orders: orders, Live: store, Refunds: cp.handlers.UseCases.Refund,
		Balances: jr, Totals: cp.live, Types: types, Limiter: limiter,
		QueryLimit: cfg.Limits().Query, ReportLimit: cfg.Limits().Report, Now: g.now.Now})
	if err != nil {
		return err
	}
	webepay.MountAPI(g.app, &webepay.APIDoor{API: api, Log: log})
	return nil
}

// epayTypesDesk is the operator console's editor of the mapping, over the
// same Redis key the doors read.
func epayTypesDesk(cfg platform.Config, rdb redis.UniversalClient, logs operator.Auditor) (*operator.EpayTypes, error) {
	store, err := epayTypes(cfg, rdb)
	if err != nil {
		return nil, err
	}
	return operator.NewEpayTypes(store, logs), nil
}
