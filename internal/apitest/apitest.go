// Package apitest holds what tests of the merchant API need on both sides
// of its door: the command side's tests (which drive the use cases through
// it) and the door's own (web/api). One copy, so that an answer is decoded
// and a call signed the same way in both.
package apitest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Signed is a copy of p with its sign made with key.
func Signed(p schema.Params, key string) schema.Params {
	out := make(schema.Params, len(p)+1)
	for k, v := range p {
		out[k] = v
	}
	out["sign"] = schema.Sign(out, key)
	return out
}

// Response is a decoded answer: DESIGN.md's body when it is JSON, and the
// raw text always.
type Response struct {
	Status int
	Header http.Header
	Body   struct {
		Code  int             `json:"code"`
		Error string          `json:"error"`
		Msg   string          `json:"msg"`
		Data  json.RawMessage `json:"data"`
	}
	Raw string
}

// Decode reads and closes res.
func Decode(t testing.TB, res *http.Response) *Response {
	t.Helper()
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := &Response{Status: res.StatusCode, Header: res.Header, Raw: string(raw)}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
	}
	return r
}

// Data is the data member as an object.
func (r *Response) Data(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body.Data, &m); err != nil {
		t.Fatalf("data of %s: %v", r.Raw, err)
	}
	return m
}

// RawList is the data member as a list.
func (r *Response) RawList(t testing.TB) ([]any, error) {
	t.Helper()
	var l []any
	err := json.Unmarshal(r.Body.Data, &l)
	return l, err
}

// CountEvents is how many events of order id the shard's stream holds.
func CountEvents(t testing.TB, rdb redis.UniversalClient, shard schema.Shard, id string) int {
	t.Helper()
	msgs, err := rdb.XRange(context.Background(), schema.EventsKey(shard), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range msgs {
		ev, err := schema.DecodeEvent(m.ID, m.Values)
		if err != nil {
			t.Fatalf("undecodable event: %v", err)
		}
		if ev.Order.ID == id {
			n++
		}
	}
	return n
}
