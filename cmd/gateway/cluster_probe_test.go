package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// failoverProbe measures, per shard and per path, when the gateway answers
// again after a master is killed: each probe sends one request at a time,
// and the first success of a request sent after the kill is its recovery.
type failoverProbe struct {
	mu       sync.Mutex
	killedAt time.Time
	first    map[string]time.Duration // "path shard" → kill to first success
	fails    map[string]int           // failures after the kill
	lastErr  map[string]string
	answered []string // creates answered 200 (any time)
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// probePaths are the merchant and payer paths measured on every shard.
var probePaths = []string{"create", "order", "page", "status"}

// startFailoverProbe runs, for every shard, a wallet_a create with a
// clientOrderId on that shard, and action=order, the payer's page and its
// status poll of an order made on that shard beforehand (ids[shard]).
func startFailoverProbe(t *testing.T, s *server, shop account, ids map[schema.Shard]string) *failoverProbe {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &failoverProbe{first: map[string]time.Duration{}, fails: map[string]int{}, lastErr: map[string]string{}, cancel: cancel}
	client := &http.Client{Timeout: 10 * time.Second}
	for shard, id := range ids {
		for _, path := range probePaths {
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				for n := 0; ctx.Err() == nil; n++ {
					sent := time.Now()
					var err error
					switch path {
					case "create":
						var got string
						got, err = createOn(client, s, shop, shard, n)
						if err == nil {
							p.mu.Lock()
							p.answered = append(p.answered, got)
							p.mu.Unlock()
						}
					case "order":
						err = getOK(client, s.base+"/api/order?"+url.Values{"appid": {shop.AppID}, "key": {shop.QueryKey},
							"action": {"order"}, "paymentId": {id}}.Encode(), `"code":0`)
					case "page":
						err = getOK(client, s.base+"/payment/"+id, "<html")
					case "status":
						err = getOK(client, s.base+"/payment/"+id+"/status", `"status_str"`)
					}
					p.record(path+" "+strconv.Itoa(int(shard)), sent, err)
					time.Sleep(20 * time.Millisecond)
				}
			}()
		}
	}
	t.Cleanup(p.stop)
	return p
}

func (p *failoverProbe) kill(at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.killedAt = at
}

func (p *failoverProbe) record(key string, sent time.Time, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killedAt.IsZero() || sent.Before(p.killedAt) {
		return
	}
	if err != nil {
		p.fails[key]++
		p.lastErr[key] = err.Error()
		return
	}
	if _, ok := p.first[key]; !ok {
		p.first[key] = time.Since(p.killedAt)
	}
}

// recovered reports whether every path on every shard has succeeded since
// the kill.
func (p *failoverProbe) recovered(shards int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.first) == shards*len(probePaths)
}

func (p *failoverProbe) stop() {
	p.cancel()
	p.wg.Wait()
}

// worst is, for one path, the latest first success over the given shards
// and the earliest over all.
func (p *failoverProbe) worst(path string, shards []schema.Shard) (earliest, latest time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	earliest = time.Duration(1<<62 - 1)
	for k, d := range p.first {
		if strings.HasPrefix(k, path+" ") {
			earliest = min(earliest, d)
		}
	}
	for _, s := range shards {
		latest = max(latest, p.first[path+" "+strconv.Itoa(int(s))])
	}
	return earliest, latest
}

func (p *failoverProbe) report() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	keys := make([]string, 0, len(p.fails))
	for k := range p.fails {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %d failures, first success %v, last error %s\n", k, p.fails[k], p.first[k], p.lastErr[k])
	}
	return b.String()
}

// coidOn finds a clientOrderId that ShardFor places on shard.
func coidOn(appid string, shard schema.Shard, n int) string {
	for i := 0; ; i++ {
		c := fmt.Sprintf("fo-%d-%d-%d", shard, n, i)
		if schema.ShardFor(appid, c) == shard {
			return c
		}
	}
}

func createOn(client *http.Client, s *server, shop account, shard schema.Shard, n int) (string, error) {
	p := createParams(shop.AppID)
	p["clientOrderId"] = coidOn(shop.AppID, shard, n)
	return postCreate(client, s, shop, p)
}

// postCreate signs p with shop's key and creates the order, answering its
// paymentId: one create of the failover's probes and load.
func postCreate(client *http.Client, s *server, shop account, p schema.Params) (string, error) {
	p["sign"] = schema.Sign(p, shop.APIKey)
	body, _ := json.Marshal(p)
	res, err := client.Post(s.base+"/api/createorder", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var r apiResponse
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil || res.StatusCode != 200 {
		return "", fmt.Errorf("create: %d %v %s", res.StatusCode, err, r.Msg)
	}
	id, _ := r.Data["paymentId"].(string)
	return id, nil
}

func getOK(client *http.Client, u, want string) error {
	res, err := client.Get(u)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	if res.StatusCode != 200 || !strings.Contains(b.String(), want) {
		return fmt.Errorf("GET %s: %d %.120s", u, res.StatusCode, b.String())
	}
	return nil
}

// slotOwner is the address of the master serving slot, as node sees it.
func slotOwner(ctx context.Context, node *redis.Client, slot int) (string, error) {
	slots, err := node.ClusterSlots(ctx).Result()
	if err != nil {
		return "", err
	}
	for _, s := range slots {
		if s.Start <= slot && slot <= s.End && len(s.Nodes) > 0 {
			return s.Nodes[0].Addr, nil
		}
	}
	return "", fmt.Errorf("no master serves slot %d", slot)
}
