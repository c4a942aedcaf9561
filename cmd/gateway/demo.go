package main

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

const demoUsage = `usage: gateway demo seed [--dir DIR] [--json] [--redis-url URL]
       gateway demo receiver [--addr 127.0.0.1:8099] [--merchant-file FILE]

  seed       what make run needs so that every method pays on the first
             run: a sandbox demo merchant and a sandbox demo payer account
             with a password (reused from DIR when Redis still knows them),
             the FX rates the methods need where none is set, and balances
             topped up for balance payments; prints them
  receiver   a merchant's webhook endpoint on loopback (make run starts
             one): prints each webhook and whether its MD5 sign and its
             webhook-signature verify; answers success when the sign does
`

// demoRates are the rates the sandbox methods need for USD orders: bdcard,
// bdpsp_a and bdpsp_b charge in BDT, fiatpsp's systems in RUB, EUR, UAH and
// KZT. USDT's come from GATEWAY_USDT_RATES when serve starts. Seeded only
// where no rate is set, so an operator's rate is never replaced.
var demoRates = []struct{ base, quote, rate string }{
	{"USD", "BDT", "121.50"}, {"USD", "RUB", "92.00"}, {"USD", "EUR", "0.92"},
	{"USD", "UAH", "41.50"}, {"USD", "KZT", "480.00"},
}

// demoFloor is the balance, in each balance currency, the demo merchant and
// the demo payer are topped up to on every run.
const demoFloor = schema.Amount(1000_00)

// demoPayer is the demo payer's login, kept in DIR/demo-payer.json.
type demoPayer struct {
	Account  string `json:"account"`
	Password string `json:"password"`
}

// demoState is what `demo seed` made or found, as it prints it.
type demoState struct {
	Merchant struct {
		AppID    string `json:"appid"`
		APIKey   string `json:"apiKey"`
		QueryKey string `json:"queryKey"`
		File     string `json:"file"`
	} `json:"merchant"`
	Payer    demoPayer                    `json:"payer"`
	Rates    []fx.Entry                   `json:"rates"`
	Balances map[string]map[string]string `json:"balances"`
}

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "receiver" {
		return demoReceiverCmd(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "seed" {
		fmt.Fprint(stderr, demoUsage)
		return errors.New("demo: want the subcommand seed or receiver")
	}
	fs := subFlags("demo", "seed", "[--dir DIR] [--json]", args[1:], stdout, stderr)
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	dir := fs.String("dir", ".data/run", "where the demo credentials are kept (make run: .data/run)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("demo seed: takes no arguments\n%s", demoUsage)
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return fmt.Errorf("demo seed: %w", err)
	}
	jr, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		return err
	}
	s := demoSeed{accounts: merchant.NewStore(rdb), journal: jr, rates: fx.NewStore(rdb), dir: *dir}
	st, err := s.run(ctx)
	if err != nil {
		return fmt.Errorf("demo seed: %w", err)
	}
	if err := demoKeywords(ctx, rdb); err != nil {
		return fmt.Errorf("demo seed: %w", err)
	}
	if *asJSON {
		return output{w: stdout, json: true}.value(st)
	}
	printDemo(stdout, st)
	return nil
}

// demoSeed makes the demo's state; make run and the tests run the same.
type demoSeed struct {
	accounts *merchant.Store
	journal  *journal.Journal // top-ups
	rates    *fx.Store
	dir      string
}

func (s demoSeed) run(ctx context.Context) (demoState, error) {
	var st demoState
	shop, err := s.merchant(ctx)
	if err != nil {
		return st, err
	}
	st.Merchant.AppID, st.Merchant.APIKey, st.Merchant.QueryKey = shop.AppID, shop.APIKey, shop.QueryKey
	st.Merchant.File = filepath.Join(s.dir, "demo-merchant.json")
	if st.Payer, err = s.payer(ctx); err != nil {
		return st, err
	}
	for _, r := range demoRates {
		p, _ := fx.ParsePair(r.base + ":" + r.quote)
		rate, err := fx.ParseRate(r.rate)
		if err != nil {
			return st, err
		}
		if err := s.rates.Seed(ctx, p, rate); err != nil {
			return st, err
		}
	}
	if _, st.Rates, err = s.rates.Current(ctx); err != nil {
		return st, err
	}
	sort.Slice(st.Rates, func(i, j int) bool { return st.Rates[i].Pair.String() < st.Rates[j].Pair.String() })
	st.Balances = map[string]map[string]string{}
	for _, appid := range []string{shop.AppID, st.Payer.Account} {
		if st.Balances[appid], err = s.topUp(ctx, appid); err != nil {
			return st, err
		}
	}
	return st, nil
}

// merchant is the demo merchant of DIR/demo-merchant.json (the printout of
// `merchant create --json`, as make run always kept it), or a new one when
// the file is missing or Redis no longer knows its account. The file is
// written again from the account as Redis has it, so a key or secret
// rotated since the last run (console or CLI) is not kept stale in it.
func (s demoSeed) merchant(ctx context.Context) (*merchant.Account, error) {
	file := filepath.Join(s.dir, "demo-merchant.json")
	var kept struct {
		AppID string `json:"appid"`
	}
	raw, err := os.ReadFile(file)
	var a *merchant.Account
	if err == nil && json.Unmarshal(raw, &kept) == nil && kept.AppID != "" {
		a, err = s.accounts.Get(ctx, kept.AppID)
		if err != nil && !errors.Is(err, merchant.ErrNotFound) {
			return nil, err
		}
		if err != nil || !a.Sandbox {
			a = nil
		}
	}
	if a == nil {
		if a, err = s.accounts.Create(ctx, merchant.NewAccount{Name: "Demo shop", Sandbox: true}); err != nil {
			return nil, err
		}
	}
	// The demo settles at once, so a payment shows as available money
	// straight away rather than the next day.
	if !a.Terms.Instant {
		t := a.Terms
		t.Instant = true
		if a, err = s.accounts.SetTerms(ctx, a.AppID, t); err != nil {
			return nil, err
		}
	}
	return a, writeDemoMerchant(file, raw, a)
}

// payer is the demo payer of DIR/demo-payer.json: a sandbox account with a
// password, for the balance flow at /merchant/login. One Redis no longer
// knows, or whose password no longer checks, is made again.
func (s demoSeed) payer(ctx context.Context) (demoPayer, error) {
	file := filepath.Join(s.dir, "demo-payer.json")
	var p demoPayer
	if raw, err := os.ReadFile(file); err == nil && json.Unmarshal(raw, &p) == nil && p.Account != "" {
		a, err := s.accounts.CheckPassword(ctx, p.Account, p.Password)
		if err == nil && a.Sandbox && !a.Disabled {
			if !a.PayerOnly { // made before the mark was kept
				return p, s.accounts.MarkPayerOnly(ctx, a.AppID)
			}
			return p, nil
		}
	}
	a, err := s.accounts.Create(ctx, merchant.NewAccount{Name: "Demo payer", Sandbox: true, PayerOnly: true})
	if err != nil {
		return p, err
	}
	pw := make([]byte, 15)
	if _, err := rand.Read(pw); err != nil {
		return p, err
	}
	p = demoPayer{Account: a.AppID, Password: strings.ToLower(base32.StdEncoding.EncodeToString(pw))}
	if err := s.accounts.SetPassword(ctx, p.Account, p.Password); err != nil {
		return p, err
	}
	raw, _ := json.MarshalIndent(p, "", "  ")
	return p, writeFileAtomic(file, append(raw, '\n'))
}

// topUp credits each balance currency of appid up to demoFloor of
// available money, by journal top-ups.
func (s demoSeed) topUp(ctx context.Context, appid string) (map[string]string, error) {
	bals, err := s.accounts.Balances(ctx, appid)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, cur := range schema.MethodBalance.Currencies() {
		have := bals[cur]
		if have < demoFloor {
			if have, _, err = s.journal.TopUp(ctx, "", appid, cur, demoFloor-have, nil); err != nil {
				return nil, err
			}
		}
		out[cur] = have.String()
	}
	return out, nil
}

func writeFileAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// printDemo is the part of make run's banner that names the demo state.
func printDemo(w io.Writer, st demoState) {
	fmt.Fprintf(w, "demo merchant (sandbox) — %s\n  appid:     %s\n  API key:   %s\n  query key: %s\n",
		st.Merchant.File, st.Merchant.AppID, st.Merchant.APIKey, st.Merchant.QueryKey)
	fmt.Fprintf(w, "demo payer (sandbox, for balance payments at /merchant/login)\n  account:   %s\n  password:  %s\n",
		st.Payer.Account, st.Payer.Password)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  BALANCES\tCNY\tUSD")
	for _, who := range []struct{ name, appid string }{{"merchant", st.Merchant.AppID}, {"payer", st.Payer.Account}} {
		b := st.Balances[who.appid]
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\n", who.name, who.appid, b["CNY"], b["USD"])
	}
	_ = tw.Flush()
	fmt.Fprint(w, "  FX rates:  ")
	for i, e := range st.Rates {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s/%s %s", e.Base, e.Quot, e.Rate)
	}
	fmt.Fprintln(w)
}
