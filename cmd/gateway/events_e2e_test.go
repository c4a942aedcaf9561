package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestEndpointReceivesOrderExpired: with the real binary, a merchant's
// endpoint subscribed to order.expired (and nothing else) receives the
// event when an order's payment window ends unpaid: the body is the
// catalogue's envelope with the order, signed with the endpoint's secret
// as Standard Webhooks lays out. The paid callback is not what it gets.
func TestEndpointReceivesOrderExpired(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	got := make(chan *http.Request, 8)
	bodies := make(chan []byte, 8)
	var once sync.Once
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		once.Do(func() { got <- r; bodies <- b })
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	s := e.serve("GATEWAY_ORDER_TTL=2s")
	p := schema.Params{"appid": shop.AppID, "requestId": "ep-1", "timestamp": strconv.FormatInt(time.Now().Unix(), 10),
		"url": recv.URL + "/events", "types": "order.expired"}
	p["sign"] = schema.Sign(p, shop.APIKey)
	raw, _ := json.Marshal(p)
	req, _ := http.NewRequest(http.MethodPost, s.base+"/api/webhook-endpoints", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	ep := call(t, req)
	secret, _ := ep.Data["secret"].(string)
	if ep.Status != 200 || secret == "" {
		t.Fatalf("endpoint create: %d %s", ep.Status, ep.Raw)
	}
	order := s.create(t, createParams(shop.AppID), shop.APIKey)
	id, _ := order.Data["paymentId"].(string)
	if order.Status != 200 || id == "" {
		t.Fatalf("create: %d %s", order.Status, order.Raw)
	}
	var r *http.Request
	var body []byte
	select {
	case r = <-got:
		body = <-bodies
	case <-time.After(60 * time.Second):
		t.Fatal("no event reached the endpoint within 60 s of the order's 2 s window")
	}
	var ev struct {
		ID, Type string
		Data     map[string]any
	}
	if err := json.Unmarshal(body, &ev); err != nil || ev.Type != "order.expired" || ev.Data["paymentId"] != id {
		t.Fatalf("received %s (%v)", body, err)
	}
	if r.Header.Get("webhook-id") != ev.ID || !strings.HasPrefix(ev.ID, "evt_") {
		t.Fatalf("webhook-id %q for event %q", r.Header.Get("webhook-id"), ev.ID)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !strings.Contains(" "+r.Header.Get("webhook-signature")+" ", " "+want+" ") {
		t.Fatalf("webhook-signature %q does not verify with the endpoint's secret", r.Header.Get("webhook-signature"))
	}
}
