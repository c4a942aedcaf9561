package command

import "github.com/paygate/gateway/internal/fakeprovider"

// The fake family of internal/fakeprovider, under the names these tests use.
type (
	fakeProvider = fakeprovider.Provider
	fakeNote     = fakeprovider.Note
	fixedRates   = fakeprovider.Rates
)

const fakeSecret = fakeprovider.Secret

var (
	fakeSign     = fakeprovider.Sign
	fakeRegistry = fakeprovider.Registry
	usdtRates    = fakeprovider.USDTRates
	fxPairUSDBDT = fakeprovider.PairUSDBDT
)
