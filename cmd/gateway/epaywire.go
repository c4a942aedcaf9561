package main

import (
	"fmt"
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	webepay "github.com/paygate/gateway/web/epay"
)

// epayTypes is the epay door's mapping of type words to methods: the
// operator's, kept in Redis and edited in the operator console, else
// GATEWAY_EPAY_TYPES. Every process reads the same key (within
// epay.TypeStoreTTL of a change).
func epayTypes(cfg platform.Config, rdb redis.UniversalClient) (*epay.TypeStore, error) {
	t, err := epay.ParseTypes(cfg.EpayTypes)
	if err != nil {
		return nil, fmt.Errorf("configuration: GATEWAY_EPAY_TYPES: %w", err)
	}
	return epay.NewTypeStore(rdb, t), nil
}

// mountEpay serves the epay-compatible door beside SPEC.md's API, onto the
// same create: submit.php and mapi.php (docs/epay.md).
func mountEpay(app fiber.Router, cfg platform.Config, wcfg dispatcher.Config, uc *command.UseCases, dir *merchant.Directory,
	types epay.TypeSource, log *slog.Logger) error {
	create, err := epay.NewCreate(epay.CreateDeps{Accounts: dir, Orders: uc.Create, Types: types,
		Destinations: dispatcher.NewDestinations(wcfg.AllowPrivate)})
	if err != nil {
		return err
	}
	webepay.Mount(app, &webepay.Door{Create: create, IPs: uc.ClientIP(), Base: cfg.PublicURL, Log: log})
	return nil
}
