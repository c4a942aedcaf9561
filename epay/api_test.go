package epay

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/paygate/gateway/schema"
)

// TestAPIVectors runs each request of testdata/api-vectors.json through
// the use case and compares its answer, as the door would write it, with
// the one computed outside our code.
func TestAPIVectors(t *testing.T) {
	v := readAPIVectors(t)
	api := newTestAPI(t, v, newAPIWorld(t, v))
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := api.Do(context.Background(), APICall{Params: c.Params, Post: c.Post})
			var e *APIError
			if errors.As(err, &e) {
				got, err = map[string]any{"code": e.Code, "msg": e.Msg}, nil
			}
			if err != nil {
				t.Fatal(err)
			}
			if g, w := canonical(t, got), canonical(t, c.Answer); !reflect.DeepEqual(g, w) {
				t.Fatalf("answer\n got %v\nwant %v", g, w)
			}
		})
	}
}

// canonical is v as JSON decodes it (numbers as float64), for comparing.
func canonical(t *testing.T, v any) any {
	t.Helper()
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPaging(t *testing.T) {
	tests := []struct {
		name          string
		p             Params
		limit, offset int
		ok            bool
	}{
		{"defaults", Params{}, 10, 0, true},
		{"limit above 50 read as 50", Params{"limit": "1000"}, 50, 0, true},
		{"offset", Params{"limit": "5", "offset": "7"}, 5, 7, true},
		{"page", Params{"limit": "5", "page": "3"}, 5, 10, true},
		{"offset wins over page", Params{"offset": "1", "page": "3"}, 10, 1, true},
		{"limit 0", Params{"limit": "0"}, 0, 0, false},
		{"negative offset", Params{"offset": "-1"}, 0, 0, false},
		{"page 0", Params{"page": "0"}, 0, 0, false},
		{"no number", Params{"limit": "ten"}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit, offset, err := paging(tt.p)
			if (err == nil) != tt.ok || (tt.ok && (limit != tt.limit || offset != tt.offset)) {
				t.Fatalf("limit %d offset %d err %v; want %d %d ok=%v", limit, offset, err, tt.limit, tt.offset, tt.ok)
			}
		})
	}
}

// TestAPIRefundOutcomes: a refund the provider has not confirmed yet is
// accepted (code 1, status pending: we ask it again), one it refused is
// the protocol's -1 with the reason.
func TestAPIRefundOutcomes(t *testing.T) {
	v := readAPIVectors(t)
	tests := []struct {
		name   string
		status schema.RefundStatus
		code   int
		word   string
	}{
		{"succeeded", schema.RefundSucceeded, APICodeOK, "succeeded"},
		{"pending", schema.RefundPending, APICodeOK, "pending"},
		{"failed", schema.RefundFailed, APICodeRefused, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newAPIWorld(t, v)
			w.refund = tt.status
			got, err := newTestAPI(t, v, w).Do(context.Background(), APICall{Post: true,
				Params: Params{"pid": "1001", "key": "k-1001", "act": "refund", "trade_no": "P-A1", "money": "1"}})
			var e *APIError
			switch {
			case errors.As(err, &e):
				if e.Code != tt.code || e.Msg != "refund failed: declined by the provider" {
					t.Fatalf("refused %d %q", e.Code, e.Msg)
				}
			case err != nil:
				t.Fatal(err)
			default:
				a := got.(RefundAnswer)
				if a.Code != tt.code || a.Status != tt.word || a.Money != "1.00" {
					t.Fatalf("answer %+v", a)
				}
			}
		})
	}
}
