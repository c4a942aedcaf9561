package bsc

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	family "github.com/paygate/gateway/usdt/bsc"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

// USDTContract is USDT's BEP20 contract on BSC mainnet (18 decimals), the
// simulator's default token.
const USDTContract = usdt.BEP20Contract

// BlockInterval is the simulated chain's block time.
const BlockInterval = 3 * time.Second

// SimConfig tunes the simulator; the zero value is the sandbox's.
type SimConfig = usdtsim.Config

// Sim is a BSC JSON-RPC node that knows only the transactions a tester
// made; they live in a provider.State, so every gateway process answers
// alike.
type Sim struct{ usdtsim.Node }

// NewSim builds the simulator over state.
func NewSim(cfg SimConfig, state provider.State) *Sim {
	return &Sim{usdtsim.NewNode("bsc", cfg, BlockInterval, state)}
}

// Register mounts the JSON-RPC endpoint at r's root: r's prefix is the
// client's URL.
func (s *Sim) Register(r fiber.Router) {
	r.Post(usdtsim.PayoutTransferPath, adaptor.HTTPHandlerFunc(s.PayoutTransfer(s.payoutTransfer)))
	r.Post(usdtsim.PayoutLookupPath, adaptor.HTTPHandlerFunc(s.PayoutLookup))
	r.Post("/", adaptor.HTTPHandlerFunc(s.serveRPC))
}

// Handler is the same endpoint as a plain net/http handler (any other
// path), with the sandbox's payout endpoints, for httptest servers.
func (s *Sim) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+usdtsim.PayoutTransferPath, s.PayoutTransfer(s.payoutTransfer))
	mux.HandleFunc("POST "+usdtsim.PayoutLookupPath, s.PayoutLookup)
	mux.HandleFunc("/", s.serveRPC)
	return mux
}

// TransferSpec is a BEP20 transfer a tester makes happen.
type TransferSpec struct {
	To       string    // 0x address; required
	From     string    // 0x address; a random one when empty
	Contract string    // 0x address; USDTContract when empty
	Units    *big.Int  // at the token's decimals (18 for USDT); required
	Success  bool      // false: mined with status 0x0 and no logs
	At       time.Time // when it is mined; now when zero (a later time: not yet mined)
}

// simTx is a simulated transaction as kept in the State.
type simTx struct {
	Hash     string `json:"hash"`
	From     string `json:"from"`
	To       string `json:"to"`
	Contract string `json:"contract"`
	Units    string `json:"units"`
	Success  bool   `json:"success"`
	Block    int64  `json:"block"`
}

// AddTransfer makes a transaction carrying the transfer and returns its
// hash (0x + 64 hex). It is in block BlockAt(At), so its confirmations grow
// as the simulator's clock moves.
func (s *Sim) AddTransfer(ctx context.Context, spec TransferSpec) (string, error) {
	tx, err := s.newTx(spec)
	return s.Add(ctx, tx.Hash, tx, err)
}

func (s *Sim) newTx(spec TransferSpec) (simTx, error) {
	if spec.Units == nil || spec.Units.Sign() < 0 || spec.Units.BitLen() > 256 {
		return simTx{}, errors.New("units must be a uint256")
	}
	if spec.Contract == "" {
		spec.Contract = USDTContract
	}
	if spec.From == "" {
		raw, err := usdtsim.RandomHex(20)
		if err != nil {
			return simTx{}, err
		}
		spec.From = "0x" + raw
	}
	for _, a := range []string{spec.To, spec.From, spec.Contract} {
		if !family.ValidAddress(a) {
			return simTx{}, fmt.Errorf("%q is not an address", a)
		}
	}
	at, err := s.MinedAt(spec.At)
	if err != nil {
		return simTx{}, err
	}
	hash, err := usdtsim.RandomHex(32)
	if err != nil {
		return simTx{}, err
	}
	return simTx{Hash: "0x" + hash, From: strings.ToLower(spec.From), To: strings.ToLower(spec.To),
		Contract: strings.ToLower(spec.Contract), Units: spec.Units.String(), Success: spec.Success,
		Block: s.Chain.BlockAt(at)}, nil
}

// Fail makes the node misbehave for hash (usdtsim.Healthy heals it).
func (s *Sim) Fail(ctx context.Context, hash string, f usdtsim.Failure) error {
	return s.Node.Fail(ctx, strings.ToLower(hash), f)
}

// SandboxPath is where the gateway mounts this simulator under its public
// URL; the sandbox client's base is publicURL + SandboxPath.
const SandboxPath = "/sandbox/usdt/bsc"
