package chaos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
)

// Config is a chaos run.
type Config struct {
	Root      string        // the repository (its scripts/ start the servers)
	Gateway   string        // the release gateway binary
	DataDir   string        // servers' data, gateway logs and pid files
	Quick     bool          // `make chaos-quick`: fewer, shorter scenarios
	Scenarios []string      // names to run; empty: the mode's list
	Settle    time.Duration // how long the audit may wait for the system to settle
	Report    string        // RELIABILITY.md to rewrite the table of ("": print only)
	PlantLoss bool          // after the last scenario, delete one order and expect the audit to fail
	// PlantFailedPays sends every sandbox pay with a wrong key: a broken
	// build the activity floors must fail (the audit alone passes it).
	PlantFailedPays bool
	Failures        string        // JSONL file for every failed request of the load ("": none)
	ClientTimeout   time.Duration // the load's wait for one answer
	Rates           Rates         // the load offered in every scenario
	Floors          Floors        // the least activity every scenario must show
}

// Defaults is the run `make chaos` makes unless a flag says otherwise (the
// chaos command's flags start from it); the gateway binary and the data
// directory are the caller's. Run fills nothing: a zero field is refused.
func Defaults() Config {
	return Config{Root: ".", Settle: 90 * time.Second, PlantLoss: true, ClientTimeout: DefaultClientTimeout,
		Rates: DefaultRates, Floors: DefaultFloors}
}

// Validate checks the run can start; it changes nothing.
func (c Config) Validate() error {
	var errs []error
	if c.Root == "" || c.Gateway == "" || c.DataDir == "" {
		errs = append(errs, errors.New("root, gateway and data are required"))
	}
	if c.ClientTimeout <= 0 {
		errs = append(errs, errors.New("client time-out must be positive"))
	}
	if c.Settle <= 0 {
		errs = append(errs, errors.New("settle must be positive"))
	}
	errs = append(errs, c.Rates.Validate())
	if c.Floors.Fraction <= 0 || c.Floors.PerCreate <= 0 || c.Floors.Creates <= 0 || c.Floors.PaidWebhooks <= 0 || c.Floors.BalancePayments <= 0 {
		errs = append(errs, fmt.Errorf("floors must all be positive (a floor of zero passes on nothing): %+v", c.Floors))
	}
	return errors.Join(errs...)
}

// Cluster is everything a run starts.
type Cluster struct {
	cfg   Config
	log   *slog.Logger
	Redis *Store
	CH    *Store
	Procs []*Proc // command+query ×2, projector ×2, dispatcher ×2
	Proxy *Proxy  // the last dispatcher reaches Redis through it
	Recv  *Receiver
	rdb   redis.UniversalClient
	ch    driver.Conn
	M     *Merchants
	usage *Usage // measured in the clickhouse-stop scenario

	// On a Redis Cluster (the cluster scenario): the cluster instead of
	// Redis and the proxy, and a database of its own on the run's
	// ClickHouse, which chPort names when CH is another run's.
	RCluster *RedisCluster
	chPort   int
	chDB     string

	// The ledger scenario's processes (role ledger), started by it and
	// kept running to the end; how often it killed them; what its
	// planted double posting showed.
	ledgers     []*Proc
	ledgerKills int
	ledgerPlant string

	// The payouts scenario's senders (role payouts), how often it killed
	// them, its merchant and what that merchant was funded with.
	payoutProcs  []*Proc
	payoutKills  int
	payoutApp    string
	payoutFunded int64

	// The payouts Redis-restart scenario's merchant, requests and senders.
	payoutRestart *payoutRestart
	// The endpoint-events scenario's merchant, receiver and figures.
	events *eventsRun
}

// The split: two processes of each role group, so every kill of one leaves
// its twin to carry the role.
var layout = []struct{ name, roles string }{
	{"cq1", "command,query"}, {"cq2", "command,query"},
	{"proj1", "projector"}, {"proj2", "projector"},
	{"disp1", "dispatcher"}, {"disp2", "dispatcher"},
}

// RedisURL is Redis's address for the gateways and the CLI: the cluster
// seed on a Redis Cluster.
func (c *Cluster) RedisURL() string {
	if c.RCluster != nil {
		return c.RCluster.Seed
	}
	return "redis://127.0.0.1:" + strconv.Itoa(c.Redis.Port) + "/0"
}

// ClickHouseDSN is ClickHouse's.
func (c *Cluster) ClickHouseDSN() string {
	port, db := c.chPort, c.chDB
	if c.CH != nil {
		port = c.CH.Port
	}
	if db == "" {
		db = "gateway"
	}
	return "clickhouse://127.0.0.1:" + strconv.Itoa(port) + "/" + db
}

// Start brings up Redis, ClickHouse, the receiver, the partition proxy,
// the schema, the merchants and the six gateway processes.
func Start(ctx context.Context, cfg Config, log *slog.Logger) (*Cluster, error) {
	c := &Cluster{cfg: cfg, log: log}
	var err error
	if c.Redis, err = newStore(cfg.Root, cfg.DataDir, "redis"); err != nil {
		return nil, err
	}
	if c.CH, err = newStore(cfg.Root, cfg.DataDir, "clickhouse"); err != nil {
		return nil, err
	}
	if err := c.Redis.Start(ctx); err != nil {
		return c, err
	}
	if err := c.CH.Start(ctx); err != nil {
		return c, err
	}
	c.rdb = redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(c.Redis.Port)})
	if err := requireFsync(ctx, c.rdb); err != nil {
		return c, err
	}
	if c.Proxy, err = NewProxy("127.0.0.1:" + strconv.Itoa(c.Redis.Port)); err != nil {
		return c, err
	}
	return c, c.startGateways(ctx)
}

// startGateways brings up what runs on the stores: the receiver, the
// schema, the merchants and the six gateway processes (the last through
// the partition proxy, when there is one).
func (c *Cluster) startGateways(ctx context.Context) error {
	var err error
	if err := c.cli(ctx, nil, "", "migrate"); err != nil {
		return err
	}
	if c.ch, err = platform.OpenClickHouse(c.ClickHouseDSN()); err != nil {
		return fmt.Errorf("clickhouse: %w", err)
	}
	if c.Recv, err = NewReceiver(c.rdb); err != nil {
		return err
	}
	if c.M, err = c.setupMerchants(ctx); err != nil {
		return err
	}
	for i, l := range layout {
		redisURL := c.RedisURL()
		if i == len(layout)-1 && c.Proxy != nil {
			redisURL = "redis://" + c.Proxy.Addr() + "/0"
		}
		p, err := newProc(c.cfg.Gateway, c.dataDir(), l.name, l.roles, c.gatewayEnv(redisURL))
		if err != nil {
			return err
		}
		c.Procs = append(c.Procs, p)
	}
	return c.startProcs(ctx, c.Procs)
}

// dataDir is where this run's processes keep their logs and pid files.
func (c *Cluster) dataDir() string {
	if c.RCluster != nil {
		return c.RCluster.Dir
	}
	return c.cfg.DataDir
}

// gatewayEnv is what every gateway shares: our servers, limits the load
// never reaches (rate limiting is not under test), private notify URLs
// allowed (the receiver is on loopback) and a compressed retry schedule,
// so a delivery failed during a fault is retried within the settle time
// instead of the production 15 s, 1 min, 5 min, ...
func (c *Cluster) gatewayEnv(redisURL string) []string {
	return append(c.quickEnv(), []string{
		"GATEWAY_REDIS_URL=" + redisURL, "GATEWAY_CLICKHOUSE_DSN=" + c.ClickHouseDSN(),
		"GATEWAY_LOG_LEVEL=info",
		"GATEWAY_RATE_CREATE=1000000/s", "GATEWAY_RATE_QUERY=1000000/s", "GATEWAY_RATE_REPORT=1000000/s", "GATEWAY_RATE_PAGES=1000000/s",
		"GATEWAY_RATE_LOGIN_IP=1000000/m", "GATEWAY_RATE_LOGIN_ACCOUNT=1000000/m",
		"GATEWAY_WEBHOOK_ALLOW_PRIVATE=true",
		"GATEWAY_WEBHOOK_SCHEDULE=2s,4s,8s,8s,8s,8s,8s,8s,8s,8s,8s",
		"GATEWAY_SHUTDOWN_DRAIN=0s",
		"GATEWAY_SANDBOX_CHANNELS=" + chaosChannels,
		"GATEWAY_REDIS_CLUSTER=" + strconv.FormatBool(c.RCluster != nil),
	}...)
}

// quickClaimIdle is how long events a killed process left unacknowledged
// wait for another process in the quick run. At the default 30 s, each
// scenario that kills a consumer (kill9-all, redis-kill9, ledger-kill9)
// spent half a minute of `make test` waiting for the takeover; the
// takeover and the audit after it are the same at 10 s. The full run
// keeps the default, as deployed.
const quickClaimIdle = "10s"

func (c *Cluster) quickEnv() []string {
	if !c.cfg.Quick {
		return nil
	}
	return []string{"GATEWAY_CLAIM_IDLE=" + quickClaimIdle}
}

// startProcs starts processes side by side and waits for all.
func (c *Cluster) startProcs(ctx context.Context, ps []*Proc, extra ...string) error {
	errc := make(chan error, len(ps))
	for _, p := range ps {
		go func() { errc <- p.Start(ctx, extra...) }()
	}
	var errs []error
	for range ps {
		errs = append(errs, <-errc)
	}
	return errors.Join(errs...)
}

// Proc is the process of that name.
func (c *Cluster) Proc(name string) *Proc {
	for _, p := range c.Procs {
		if p.Name == name {
			return p
		}
	}
	panic("chaos: no process " + name)
}

// Close stops everything the run started, gracefully. The processes stop
// side by side: each may wait out its own shutdown, and one after the
// other those waits added up at the end of every run.
func (c *Cluster) Close() {
	began := time.Now()
	var wg sync.WaitGroup
	for _, p := range append(append(c.Procs, c.ledgers...), c.payoutProcs...) {
		wg.Go(p.Stop)
	}
	wg.Wait()
	c.log.Info("gateway processes stopped", "in", time.Since(began).Round(100*time.Millisecond))
	if c.Recv != nil {
		c.Recv.Close()
	}
	if c.Proxy != nil {
		c.Proxy.Close()
	}
	if c.rdb != nil {
		_ = c.rdb.Close()
	}
	if c.ch != nil {
		_ = c.ch.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if c.Redis != nil {
		_ = c.Redis.Stop(ctx)
	}
	if c.RCluster != nil {
		_ = c.RCluster.Stop(ctx)
	}
	if c.CH != nil {
		_ = c.CH.Stop(ctx)
	}
	c.log.Info("servers stopped", "in", time.Since(began).Round(100*time.Millisecond))
}

// requireFsync refuses to run on a Redis that does not fsync every write:
// the redis-kill9 scenarios would then pass on luck (kill -9 keeps what is
// in the page cache), and RELIABILITY.md's promise rests on the setting.
func requireFsync(ctx context.Context, rdb redis.UniversalClient) error {
	v, err := rdb.ConfigGet(ctx, "appendfsync").Result()
	if err != nil {
		return fmt.Errorf("read Redis appendfsync: %w", err)
	}
	on, _ := rdb.ConfigGet(ctx, "appendonly").Result()
	if v["appendfsync"] != "always" || on["appendonly"] != "yes" {
		return fmt.Errorf("redis runs with appendonly %q, appendfsync %q: chaos needs yes and always", on["appendonly"], v["appendfsync"])
	}
	return nil
}
