package chaos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Sources are where a snapshot is read from: Redis, ClickHouse (nil: not
// read) and what the receiver saw.
type Sources struct {
	Redis    redis.UniversalClient
	CH       driver.Conn
	Received map[string]Webhook
	M        *Merchants
	Creates  []Create
}

// Collect reads a Snapshot of the load's merchants.
func Collect(ctx context.Context, src Sources) (Snapshot, error) {
	s := Snapshot{Creates: src.Creates, Webhooks: map[string]Webhook{}}
	appids := []string{src.M.Shop.AppID, src.M.Self.AppID, src.M.XShop.AppID}
	var err error
	if s.Orders, err = redisOrders(ctx, src.Redis, appids); err != nil {
		return s, err
	}
	if src.CH != nil {
		s.Rows, err = clickhouseRows(ctx, src.CH, appids)
		s.CheckCH = err == nil
		s.CHErr = err
	}
	if err := webhooks(ctx, src.Redis, &s, src.Received); err != nil {
		return s, err
	}
	if s.Balances, err = balances(ctx, src.Redis, src.M, s.Orders); err != nil {
		return s, err
	}
	s.Streams, err = streams(ctx, src.Redis)
	return s, err
}

// redisOrders reads every order hash of the given merchants. A SCAN is
// fine at the suite's size (tens of thousands of orders).
func redisOrders(ctx context.Context, rdb redis.UniversalClient, appids []string) (map[string]Order, error) {
	want := map[string]bool{}
	for _, a := range appids {
		want[a] = true
	}
	keys, err := scanKeys(ctx, rdb, "gw:*:order:*")
	if err != nil {
		return nil, fmt.Errorf("scan orders: %w", err)
	}
	out := map[string]Order{}
	for len(keys) > 0 {
		batch := keys[:min(len(keys), 500)]
		keys = keys[len(batch):]
		pipe := rdb.Pipeline()
		cmds := make([]*redis.MapStringStringCmd, len(batch))
		for i, k := range batch {
			cmds[i] = pipe.HGetAll(ctx, k)
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("read orders: %w", err)
		}
		for i, c := range cmds {
			h := c.Val()
			if !want[schema.RecordField(func(k string) string { return h[k] }, schema.FAppID)] {
				continue
			}
			id := schema.OrderIDFromKey(batch[i])
			o, err := schema.OrderFromHash(id, h)
			if err != nil {
				return nil, fmt.Errorf("order %s: %w", id, err)
			}
			out[o.ID] = Order{ID: o.ID, AppID: o.AppID, ClientOrderID: o.ClientOrderID, Status: int(o.Status),
				Version: o.Version, Amount: int64(o.Amount), Method: string(o.Method), NotifyURL: o.NotifyURL}
		}
	}
	return out, nil
}

// clickhouseRows reads what the listing would show: FINAL collapses the
// versions of a row, so more than one row for an id is a duplicate.
func clickhouseRows(ctx context.Context, ch driver.Conn, appids []string) (map[string]Row, error) {
	args := make([]any, len(appids))
	for i, a := range appids {
		args[i] = a
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(appids)), ",")
	rows, err := ch.Query(ctx, `SELECT id, count(), argMax(status, version), max(version)
		FROM orders FINAL WHERE appid IN (`+marks+`) GROUP BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("clickhouse orders: %w", err)
	}
	defer rows.Close()
	out := map[string]Row{}
	for rows.Next() {
		var (
			id      string
			n       uint64
			status  uint8
			version uint64
		)
		if err := rows.Scan(&id, &n, &status, &version); err != nil {
			return nil, fmt.Errorf("clickhouse row: %w", err)
		}
		out[id] = Row{Rows: int(n), Status: int(status), Version: int64(version)}
	}
	return out, rows.Err()
}

// webhooks joins the receiver's counts with the delivery state Redis
// recorded for every paid order.
func webhooks(ctx context.Context, rdb redis.UniversalClient, s *Snapshot, received map[string]Webhook) error {
	for id, w := range received {
		s.Webhooks[id] = w
	}
	pipe := rdb.Pipeline()
	cmds := map[string]*redis.StringCmd{}
	for id, o := range s.Orders {
		if o.Status != int(schema.StatusPaid) {
			continue
		}
		shard, _ := schema.ParseOrderID(id)
		cmds[id] = pipe.HGet(ctx, schema.WebhookKey(shard, id), "st")
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("webhook states: %w", err)
	}
	for id, c := range cmds {
		w := s.Webhooks[id]
		w.State = c.Val()
		s.Webhooks[id] = w
	}
	return nil
}

// balances: Self pays its own balance orders; Payer pays every paid XShop
// order and XShop receives them.
func balances(ctx context.Context, rdb redis.UniversalClient, m *Merchants, orders map[string]Order) ([]Balance, error) {
	var self, xshop int64
	for _, o := range orders {
		switch {
		case o.Status != int(schema.StatusPaid):
		case o.AppID == m.Self.AppID && o.Method == string(schema.MethodBalance):
			self += o.Amount
		case o.AppID == m.XShop.AppID:
			xshop += o.Amount
		}
	}
	get := func(appid string) (int64, error) {
		v, err := rdb.HGet(ctx, schema.AccountsKey(appid), "available:USD").Int64() // the journal's available bucket
		if errors.Is(err, redis.Nil) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("balance of %s: %w", appid, err)
		}
		return v, nil
	}
	out := []Balance{
		{Who: "self " + m.Self.AppID, Start: m.Credited, Moved: self, Sign: -1},
		{Who: "payer " + m.Payer.AppID, Start: m.Credited, Moved: xshop, Sign: -1},
		{Who: "xshop " + m.XShop.AppID, Start: 0, Moved: xshop, Sign: 1},
	}
	for i, appid := range []string{m.Self.AppID, m.Payer.AppID, m.XShop.AppID} {
		v, err := get(appid)
		if err != nil {
			return nil, err
		}
		out[i].End = v
	}
	return out, nil
}

// streams reads every shard stream's highest removed id and its groups'
// positions.
func streams(ctx context.Context, rdb redis.UniversalClient) ([]Stream, error) {
	var out []Stream
	for _, sh := range schema.AllShards() {
		key := schema.EventsKey(sh)
		info, err := rdb.XInfoStream(ctx, key).Result()
		if err != nil {
			if strings.Contains(err.Error(), "no such key") {
				continue
			}
			return nil, fmt.Errorf("xinfo stream %s: %w", key, err)
		}
		st := Stream{Key: key, MaxDeleted: info.MaxDeletedEntryID}
		groups, err := rdb.XInfoGroups(ctx, key).Result()
		if err != nil {
			return nil, fmt.Errorf("xinfo groups %s: %w", key, err)
		}
		for _, g := range groups {
			gr := Group{Name: g.Name, LastDelivered: g.LastDeliveredID}
			if g.Pending > 0 {
				p, err := rdb.XPending(ctx, key, g.Name).Result()
				if err != nil && !errors.Is(err, redis.Nil) {
					return nil, fmt.Errorf("xpending %s %s: %w", key, g.Name, err)
				}
				if p != nil && p.Count > 0 {
					gr.PendingLower = p.Lower
				}
			}
			st.Groups = append(st.Groups, gr)
		}
		out = append(out, st)
	}
	return out, nil
}

// scanKeys lists the keys matching pattern: on every master of a Redis
// Cluster (a SCAN reaches one node), else on the one server.
func scanKeys(ctx context.Context, rdb redis.UniversalClient, pattern string) ([]string, error) {
	scan := func(ctx context.Context, c redis.UniversalClient) ([]string, error) {
		var keys []string
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		return keys, iter.Err()
	}
	cl, ok := rdb.(*redis.ClusterClient)
	if !ok {
		return scan(ctx, rdb)
	}
	var mu sync.Mutex
	var all []string
	err := cl.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		keys, err := scan(ctx, m)
		mu.Lock()
		all = append(all, keys...)
		mu.Unlock()
		return err
	})
	return all, err
}
