package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/usdt"
)

const usdtUsage = `usage: gateway usdt <subcommand> [flags] [--json] [--redis-url URL]

  config set NETWORK [--address A[,B]] [--contract C] [--decimals N]
             [--confirmations N] [--mode chain|exchange|dual|exchange_pay]
             [--exchange-network TRX] [--sandbox]
                      configure a network (TRC20, BEP20, ERC20) for live
                      orders, or with --sandbox for sandbox orders; flags not
                      given keep their value, or take the chain's default
                      (USDT contract, decimals, 30 confirmations on TRON, 15
                      on BSC, mode chain); every process sees it within a
                      second
  config show         the networks as configured
  config remove NETWORK [--sandbox]
  reviews [--state waiting|failed|all]
                      usdt_direct orders for an administrator: waiting for
                      one, rejected and still payable, or every order under
                      review
  approve PAYMENTID --note TEXT [--by NAME]
                      the order's submitted transfer pays it
  reject PAYMENTID --reason TEXT [--note TEXT] [--by NAME]
                      it does not; the payer sees the reason and may pay again;
                      the hash is free again for the order it does pay
  attach PAYMENTID HASH --note TEXT [--by NAME]
                      put a transfer under review on this order (one a payer
                      could not submit, or submitted on the wrong order: reject
                      it there first); the review then decides as usual
`

// usdtCmd is the USDT networks' configuration and the USDT reviews.
func usdtCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usdtUsage)
		return errors.New("usdt: no subcommand given")
	}
	switch args[0] {
	case "config":
		return usdtConfigCmd(ctx, args[1:], stdout, stderr)
	case "reviews", "approve", "reject", "attach":
		return usdtReviewsCmd(ctx, args[0], args[1:], stdout, stderr)
	}
	fmt.Fprint(stderr, usdtUsage)
	return fmt.Errorf("usdt: unknown subcommand %q", args[0])
}

// networkFlags are config set's flags; only those given change the network.
type networkFlags struct {
	address, contract, mode, exchange string
	decimals                          int
	confirmations                     int64
}

func usdtConfigCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usdtUsage)
		return errors.New("usdt config: want set, show or remove")
	}
	sub := args[0]
	fs, common := cliFlags("usdt config "+sub, args[1:], stdout, stderr)
	var nf networkFlags
	fs.StringVar(&nf.address, "address", "", "set: our receiving address(es), comma-separated; the first is shown to payers")
	fs.StringVar(&nf.contract, "contract", "", "set: the USDT token contract")
	fs.IntVar(&nf.decimals, "decimals", 0, "set: the token's decimals")
	fs.Int64Var(&nf.confirmations, "confirmations", 0, "set: blocks a transfer needs on top of it")
	fs.StringVar(&nf.mode, "mode", "", "set: review mode: chain, exchange, dual or exchange_pay")
	fs.StringVar(&nf.exchange, "exchange-network", "", "set: the exchange's name of the network (TRX, BSC)")
	sandbox := fs.Bool("sandbox", false, "set, remove: the sandbox's network")
	by := fs.String("by", "", "set, remove: who makes the change, recorded in the audit log (default: the OS user)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if n, ok := map[string]int{"show": 0, "remove": 1, "set": 1}[sub]; !ok || len(pos) != n {
		fmt.Fprint(stderr, usdtUsage)
		return fmt.Errorf("usdt config %s: wrong arguments %q", sub, pos)
	}
	actor, err := cliAuditActor(*by, given(fs, "by"))
	if err != nil && sub != "show" {
		return fmt.Errorf("usdt config %s: %w", sub, err)
	}
	rdb, err := common.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	st, out := usdt.NewStore(rdb), common.output(stdout)
	settings, err := cliSettings(rdb)
	if err != nil {
		return err
	}
	switch {
	case sub == "show" && len(pos) == 0:
		nets, err := st.List(ctx)
		if err != nil || out.json {
			return errors.Join(err, out.value(nets))
		}
		printNetworks(stdout, nets)
		return nil
	case sub == "remove" && len(pos) == 1:
		return settings.RemoveNetwork(ctx, actor, pos[0], *sandbox)
	case sub == "set" && len(pos) == 1:
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		n, err := settings.SetNetwork(ctx, actor, nf.change(pos[0], *sandbox, given))
		if err != nil {
			return err
		}
		return out.value(n)
	}
	fmt.Fprint(stderr, usdtUsage)
	return fmt.Errorf("usdt config %s: wrong arguments %q", sub, pos)
}

// change is the network change the flags given ask for.
func (nf networkFlags) change(name string, sandbox bool, given map[string]bool) operator.NetworkChange {
	c := operator.NetworkChange{Name: name, Sandbox: sandbox}
	if given["address"] {
		a := strings.Split(nf.address, ",")
		c.Addresses = &a
	}
	if given["contract"] {
		c.Contract = &nf.contract
	}
	if given["decimals"] {
		c.Decimals = &nf.decimals
	}
	if given["confirmations"] {
		c.Confirmations = &nf.confirmations
	}
	if given["mode"] {
		c.Mode = &nf.mode
	}
	if given["exchange-network"] {
		c.ExchangeNetwork = &nf.exchange
	}
	return c
}

// cliSettings are the Advanced Settings as the CLI changes them: the same
// use case as the console's, recorded in the same audit log, configured
// from the environment as serve is (GATEWAY_FX_MAX_DEVIATION).
func cliSettings(rdb redis.UniversalClient) (*operator.Settings, error) {
	cfg, err := envConfig()
	if err != nil {
		return nil, err
	}
	return operator.NewSettings(settingsConfig(cfg), fx.NewStore(rdb), usdt.NewStore(rdb), audit.NewLog(rdb))
}

func printNetworks(w io.Writer, nets []usdt.Network) {
	if len(nets) == 0 {
		_ = noRows(w, "USDT networks", "live payers can choose none; sandbox orders get the built-in null addresses")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NETWORK\tFOR\tMODE\tCONFIRMATIONS\tDECIMALS\tEXCHANGE\tCONTRACT\tADDRESSES")
	for _, n := range nets {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", n.Name, map[bool]string{true: "sandbox", false: "live"}[n.Sandbox],
			n.Mode, n.Confirmations, n.Decimals, n.ExchangeNetwork, n.Contract, strings.Join(n.Addresses, ","))
	}
	_ = tw.Flush()
}
