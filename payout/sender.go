package payout

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Transfer is what a rail says of a transfer it made.
type Transfer struct {
	TxHash string
	// Refused is a transfer the rail will never make (a bad address, a
	// frozen account): the payout fails and its money goes back.
	Refused bool
	Reason  string
}

// Rail moves USDT out on one network: the exchange's withdrawal API or a
// hot wallet, and in the sandbox the chain simulators. Every transfer
// carries the payout's Reference, which the rail keeps, so a sender that
// crashed after sending finds the transfer instead of sending it twice.
type Rail interface {
	// Lookup finds the transfer made under ref, if any.
	Lookup(ctx context.Context, ref string) (Transfer, bool, error)
	// Send transfers amount (a USD balance's minor units, sent 1:1 in
	// USDT) to address under ref. An error is "we do not know": the payout
	// stays with its sender until Lookup can tell.
	Send(ctx context.Context, ref, address string, amount schema.Amount) (Transfer, error)
}

// SenderConfig is the payout sender's pace.
type SenderConfig struct {
	Poll  time.Duration // how often it looks for payouts to send
	Lease time.Duration // how long a claimed payout is its own; longer than a rail call
	Batch int           // payouts taken per shard per look
}

// SenderDefaults: a look a second, leases of a minute, 20 at a time.
func SenderDefaults() SenderConfig {
	return SenderConfig{Poll: time.Second, Lease: time.Minute, Batch: 20}
}

// Validate checks the pace as given.
func (c SenderConfig) Validate() error {
	if c.Poll <= 0 || c.Lease < 5*time.Second || c.Batch < 1 {
		return fmt.Errorf("payout sender: poll %v must be positive, lease %v at least 5 s, batch %d at least 1", c.Poll, c.Lease, c.Batch)
	}
	return nil
}

// Sender sends approved USDT payouts through their network's rail, each
// under a lease, so any number of senders may run.
type Sender struct {
	cfg   SenderConfig
	store *Store
	rails map[string]Rail // by network: "TRC20", "BEP20", "ERC20"
	log   *slog.Logger
	sends *prometheus.CounterVec
}

// NewSender is a Sender over store with the rails of each network.
func NewSender(cfg SenderConfig, store *Store, rails map[string]Rail, reg prometheus.Registerer, log *slog.Logger) (*Sender, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Sender{cfg: cfg, store: store, rails: rails, log: log,
		sends: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_payout_sends_total",
			Help: "Payout sending steps, by outcome (paid, failed, found after a crash, unknown: retried under a new lease, no_rail)."},
			[]string{"outcome"})}
	if reg != nil {
		if err := reg.Register(s.sends); err != nil {
			return nil, fmt.Errorf("register payout sender metrics: %w", err)
		}
	}
	return s, nil
}

// Run sends until ctx ends.
func (s *Sender) Run(ctx context.Context) {
	platform.Every(ctx, s.cfg.Poll, func(ctx context.Context) { s.Once(ctx) })
}

// Once sends what is due now on every shard and says how many payouts it
// took.
func (s *Sender) Once(ctx context.Context) int {
	n := 0
	for sh := range schema.Shard(schema.NumShards) {
		ids, err := s.store.rdb.ZRangeByScore(ctx, schema.PayoutSendKey(sh), &redis.ZRangeBy{Min: "-inf",
			Max: strconv.FormatInt(s.store.now().UnixMilli(), 10), Count: int64(s.cfg.Batch)}).Result()
		if err != nil {
			s.log.Warn("payout sender: read the send queue", "shard", sh.Tag(), "err", err)
			continue
		}
		for _, id := range ids {
			if s.one(ctx, id) {
				n++
			}
		}
	}
	return n
}

// one claims payout id, sends it unless its transfer is found already, and
// records the end. It says whether it took the payout.
func (s *Sender) one(ctx context.Context, id string) bool {
	token := newToken()
	p, resumed, err := s.store.Claim(ctx, id, token, s.cfg.Lease, senderEntry(ActionSend))
	if err != nil {
		if platform.KindOf(err) == "" {
			s.log.Warn("payout sender: claim", "payout", id, "err", err)
		}
		return false
	}
	rail := s.rails[p.Kind.Network()]
	if rail == nil {
		s.sends.WithLabelValues("no_rail").Inc()
		s.log.Error("payout sender: no rail for the network; the payout waits", "payout", id, "kind", p.Kind)
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Lease/2)
	defer cancel()
	t, err := s.transfer(ctx, rail, p, resumed)
	if err != nil {
		s.sends.WithLabelValues("unknown").Inc()
		s.log.Warn("payout sender: the rail did not answer; retried under a new lease after a lookup", "payout", id, "err", err)
		return true
	}
	s.finish(ctx, p, token, t)
	return true
}

// transfer finds the transfer a previous sender made, or makes it.
func (s *Sender) transfer(ctx context.Context, rail Rail, p Payout, resumed bool) (Transfer, error) {
	if resumed {
		t, found, err := rail.Lookup(ctx, p.Reference())
		if err != nil {
			return Transfer{}, fmt.Errorf("look up transfer %s: %w", p.Reference(), err)
		}
		if found {
			s.sends.WithLabelValues("found").Inc()
			return t, nil
		}
	}
	d, _, err := s.store.destination(ctx, p.AppID, p.Destination)
	if err != nil {
		return Transfer{}, err
	}
	if !d.Removed.IsZero() {
		return Transfer{Refused: true, Reason: "the destination was removed before the payout was sent"}, nil
	}
	return rail.Send(ctx, p.Reference(), d.Address, p.Amount)
}

func (s *Sender) finish(ctx context.Context, p Payout, token string, t Transfer) {
	var err error
	if t.Refused {
		_, err = s.store.MarkFailed(ctx, p.ID, token, t.Reason, senderEntry(ActionFail))
		s.sends.WithLabelValues("failed").Inc()
	} else {
		_, err = s.store.MarkPaid(ctx, p.ID, token, t.TxHash, "", senderEntry(ActionPaid))
		s.sends.WithLabelValues("paid").Inc()
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		// The transfer is made or refused but not recorded: the lease
		// ends, and the next sender's lookup finds it.
		s.log.Error("payout sender: record the end", "payout", p.ID, "err", err)
	}
}

func senderEntry(action string) audit.Entry {
	return audit.Entry{At: time.Now(), ActorID: "payout-sender", Realm: audit.RealmSystem, Role: "payouts", Action: action, Source: "gateway"}
}

func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
