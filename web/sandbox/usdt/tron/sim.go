package tron

import (
	"context"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"time"

	family "github.com/paygate/gateway/usdt/tron"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

// USDTContract is USDT's TRC20 contract on mainnet, the simulator's
// default token.
const USDTContract = usdt.TRC20Contract

// BlockInterval is TRON's block time.
const BlockInterval = 3 * time.Second

// SimConfig tunes the simulator; the zero value is the sandbox's.
type SimConfig = usdtsim.Config

// Sim is a TRON full node that knows only the transactions a tester
// made; they live in a provider.State, so every gateway process answers
// alike.
type Sim struct{ usdtsim.Node }

// NewSim builds the simulator over state.
func NewSim(cfg SimConfig, state provider.State) *Sim {
	return &Sim{usdtsim.NewNode("tron", cfg, BlockInterval, state)}
}

// Register mounts the node's API relative to r: r's prefix is the
// client's BaseURL.
func (s *Sim) Register(r fiber.Router) {
	r.Post("/wallet/gettransactionbyid", adaptor.HTTPHandlerFunc(s.getTransaction))
	r.Post("/wallet/gettransactioninfobyid", adaptor.HTTPHandlerFunc(s.getTransactionInfo))
	r.Post("/wallet/getnowblock", adaptor.HTTPHandlerFunc(s.getNowBlock))
	r.Post(usdtsim.PayoutTransferPath, adaptor.HTTPHandlerFunc(s.PayoutTransfer(s.payoutTransfer)))
	r.Post(usdtsim.PayoutLookupPath, adaptor.HTTPHandlerFunc(s.PayoutLookup))
}

// Handler is the same API as a plain net/http handler rooted at "/", for
// httptest servers.
func (s *Sim) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /wallet/gettransactionbyid", s.getTransaction)
	mux.HandleFunc("POST /wallet/gettransactioninfobyid", s.getTransactionInfo)
	mux.HandleFunc("POST /wallet/getnowblock", s.getNowBlock)
	mux.HandleFunc("POST "+usdtsim.PayoutTransferPath, s.PayoutTransfer(s.payoutTransfer))
	mux.HandleFunc("POST "+usdtsim.PayoutLookupPath, s.PayoutLookup)
	return mux
}

// TransferSpec is a TRC20 transfer a tester makes happen.
type TransferSpec struct {
	To       string    // base58check; required
	From     string    // base58check; a random address when empty
	Contract string    // base58check; USDTContract when empty
	Units    *big.Int  // at the token's decimals; required
	Success  bool      // false: the transaction is mined but reverted
	At       time.Time // when it is mined; now when zero (a later time: not yet mined)
}

// simTx is a simulated transaction as kept in the State.
type simTx struct {
	Hash     string    `json:"hash"`
	From     string    `json:"from"`     // 41-prefixed hex
	To       string    `json:"to"`       // 41-prefixed hex
	Contract string    `json:"contract"` // 41-prefixed hex
	Units    string    `json:"units"`
	Success  bool      `json:"success"`
	Block    int64     `json:"block"`
	At       time.Time `json:"at"`
}

// AddTransfer makes a transaction carrying the transfer and returns its id
// (64 hex digits). It is in block BlockAt(At), so its confirmations grow as
// the simulator's clock moves.
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
		spec.From, _ = family.AddressFromHex("41" + raw)
	}
	at, err := s.MinedAt(spec.At)
	if err != nil {
		return simTx{}, err
	}
	tx := simTx{Units: spec.Units.String(), Success: spec.Success, Block: s.Chain.BlockAt(at), At: at.UTC()}
	var errs [4]error
	tx.To, errs[0] = family.AddressHex(spec.To)
	tx.From, errs[1] = family.AddressHex(spec.From)
	tx.Contract, errs[2] = family.AddressHex(spec.Contract)
	tx.Hash, errs[3] = usdtsim.RandomHex(32)
	return tx, errors.Join(errs[:]...)
}

// word is a 32-byte hex word: b left-padded.
func word(b []byte) string {
	return hex.EncodeToString(append(make([]byte, 32-len(b)), b...))
}

// SandboxPath is where the gateway mounts this simulator under its public
// URL; the sandbox client's base is publicURL + SandboxPath.
const SandboxPath = "/sandbox/usdt/tron"
