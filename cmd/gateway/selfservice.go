package main

import (
	"log/slog"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/selfservice"
	accountpages "github.com/paygate/gateway/web/console/account"
)

// selfServicePages is the merchant console's Webhooks, Developers, Balance and
// Team & security pages over this process's Redis, its ClickHouse (nil: the
// audit log is not searchable here) and the webhook settings (the test event
// and the callback check follow GATEWAY_WEBHOOK_ALLOW_PRIVATE and
// GATEWAY_WEBHOOK_TIMEOUT). The console takes them in with
// frame.Deps.Extensions. publicURL (GATEWAY_PUBLIC_URL) starts the setup
// links the Team page shows.
func selfServicePages(publicURL string, wcfg dispatcher.Config, rdb redis.UniversalClient, ch driver.Conn, acc *access.Accounts, payouts *payout.Store,
	endpoints *events.Store, deliveries events.EndpointDeliveries, log *slog.Logger) (*accountpages.Pages, error) {
	store := merchant.NewStore(rdb)
	webhooks, err := dispatcher.NewMerchantDeliveries(rdb)
	if err != nil {
		return nil, err
	}
	tester, err := dispatcher.NewTester(wcfg, dispatcher.AccountKeys(store.Get, store.EnsureWebhookSecret))
	if err != nil {
		return nil, err
	}
	var searcher *audit.Searcher
	var statements *query.Statements
	if ch != nil {
		searcher, statements = audit.NewSearcher(ch), query.NewStatements(ch)
	}
	svc, err := selfservice.New(selfservice.Defaults(), selfservice.Deps{Redis: rdb, Merchants: store, Accounts: acc,
		Webhooks: webhooks, Tester: tester, Destinations: dispatcher.NewDestinations(wcfg.AllowPrivate), Searcher: searcher,
		Statements: statements, Payouts: payouts, Endpoints: endpoints, EndpointDeliveries: deliveries, Log: log})
	if err != nil {
		return nil, err
	}
	return accountpages.New(svc, publicURL, log), nil
}
