package schema

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// packedOrder is an order with every packed field set, each to a value
// that would break a separator-based packing.
func packedOrder() Order {
	return Order{
		ID: "P" + strings.Repeat("0", 35), AppID: "app:1", Sandbox: true, ClientOrderID: "c:1:2", Amount: 1234,
		Currency: "USD", Method: MethodWalletA, Status: StatusReady, Description: "tea: 2 cups\x00\n12:",
		CustomerName: "Ann", CustomerEmail: "a@b.example", CustomerPhone: "+1 555", NotifyURL: "https://h.example/n?a=1:2",
		ReturnURL: "https://h.example/r", Lang: "zh", AllowedMethods: "wallet_a,wallet_b", ClientIP: "::1",
		Door: DoorEpay, DoorType: "alipay", DoorParam: "9:x", Version: 3,
		CreatedAt: time.UnixMilli(1700000000000).UTC(), UpdatedAt: time.UnixMilli(1700000000500).UTC(),
	}
}

func TestPackedFieldsRoundTrip(t *testing.T) {
	full := packedOrder()
	tests := []struct {
		name string
		o    Order
	}{
		{"every packed field set", full},
		{"only the first", Order{ID: full.ID, AppID: "a", Version: 1, CreatedAt: full.CreatedAt}},
		{"only the last", Order{ID: full.ID, DoorParam: "p", Version: 1, CreatedAt: full.CreatedAt}},
		{"empty ones between", Order{ID: full.ID, AppID: "a", ClientIP: "1.2.3.4", Version: 1, CreatedAt: full.CreatedAt}},
		{"none", Order{ID: full.ID, Version: 1, CreatedAt: full.CreatedAt}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := fieldMap(tc.o.Fields())
			for _, n := range packedNames {
				if _, ok := h[n]; ok {
					t.Errorf("field %s is held apart, want it packed", n)
				}
			}
			got, err := OrderFromFields(h)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.o
			if want.Lang == "" {
				want.Lang = DefaultLang
			}
			if want.UpdatedAt.IsZero() {
				want.UpdatedAt = want.CreatedAt
			}
			if got != want {
				t.Errorf("read back\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestPackedFieldsReadWithFieldsApart: an order stored before the packing
// holds every field apart and reads the same; a field held apart wins over
// the packed one.
func TestPackedFieldsReadWithFieldsApart(t *testing.T) {
	o := packedOrder()
	apart := map[string]string{FID: o.ID, FAppID: o.AppID, FSandbox: "1", FClientOrder: o.ClientOrderID, FAmount: "1234",
		FCurrency: "USD", FMethod: string(o.Method), FStatus: "1", FDescription: o.Description, FCustName: o.CustomerName,
		FCustEmail: o.CustomerEmail, FCustPhone: o.CustomerPhone, FNotifyURL: o.NotifyURL, FReturnURL: o.ReturnURL,
		FLang: "zh", FAllowed: o.AllowedMethods, FClientIP: o.ClientIP, FDoor: o.Door, FDoorType: o.DoorType,
		FDoorParam: o.DoorParam, FCreatedAt: "1700000000000", FUpdatedAt: "1700000000500", FVersion: "3"}
	got, err := OrderFromFields(apart)
	if err != nil {
		t.Fatal(err)
	}
	if got != o {
		t.Errorf("fields apart read\n%+v\nwant\n%+v", got, o)
	}
	h := fieldMap(o.Fields())
	h[FNotifyURL] = "https://later.example/"
	if got, _ := OrderFromFields(h); got.NotifyURL != "https://later.example/" || got.AppID != o.AppID {
		t.Errorf("with nu apart: notify %q, appid %q; want the field apart and the packed appid", got.NotifyURL, got.AppID)
	}
	if v := RecordField(func(k string) string { return h[k] }, FClientOrder); v != o.ClientOrderID {
		t.Errorf("RecordField(coid) = %q, want %q", v, o.ClientOrderID)
	}
}

// TestRecordFieldReadsEveryPackedField: each packed field by its name from
// a packed record, and none of the fields held apart from the packed value.
func TestRecordFieldReadsEveryPackedField(t *testing.T) {
	o := packedOrder()
	h := fieldMap(o.Fields())
	get := func(k string) string { return h[k] }
	var want [len(packedNames)]string
	if err := unpackValues(h[FPacked], func(i int, v string) { want[i] = v }); err != nil {
		t.Fatal(err)
	}
	for i, n := range packedNames {
		if got := RecordField(get, n); got != want[i] || got == "" {
			t.Errorf("RecordField(%q) = %q, want %q", n, got, want[i])
		}
	}
	for _, n := range []string{FStatus, FMethod, FReturnURL, FVersion} {
		if got := RecordField(get, n); got != h[n] {
			t.Errorf("RecordField(%q) = %q, want the field held apart, %q", n, got, h[n])
		}
	}
	if got := RecordField(get, "nope"); got != "" {
		t.Errorf("RecordField of a field nobody writes = %q", got)
	}
}

func TestPackedFieldsRefuseWhatDoesNotRead(t *testing.T) {
	for _, k := range []string{"5:abc", "x:abc", "3abc", ":abc", "3:abcd", "99999999999999999999:a", "1:a0:1:x3:12x"} {
		t.Run(k, func(t *testing.T) {
			if _, err := OrderFromFields(map[string]string{FID: "P1", FPacked: k, FVersion: "1"}); err == nil {
				t.Errorf("packed %q read without an error", k)
			}
		})
	}
}

// TestOrderLuaReadsPackedFields runs order_hmget in a script on an order
// written as create.lua writes it, and on one with its fields apart.
func TestOrderLuaReadsPackedFields(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	ctx := context.Background()
	o := packedOrder()
	f := o.Fields()[2:] // the hash holds all but the id
	args := make([]any, len(f))
	for i, v := range f {
		args[i] = v
	}
	rdb.HSet(ctx, "packed", args...)
	rdb.HSet(ctx, "apart", FAppID, "app:1", FClientOrder, "c:1:2", FAmount, "1234", FCurrency, "USD", FStatus, "1")
	rdb.HSet(ctx, "both", FPacked, fieldMap(f)[FPacked], FAppID, "other")
	sc := redis.NewScript(OrderLua() + `return order_hmget(KEYS[1], 'st', 'appid', 'coid', 'amt', 'cur', 'dpar', 'nope')`)
	tests := []struct {
		key  string
		want []any
	}{
		{"packed", []any{"1", "app:1", "c:1:2", "1234", "USD", "9:x", nil}},
		{"apart", []any{"1", "app:1", "c:1:2", "1234", "USD", nil, nil}},
		{"both", []any{nil, "other", "c:1:2", "1234", "USD", "9:x", nil}},
		{"missing", []any{nil, nil, nil, nil, nil, nil, nil}},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			got, err := sc.Run(ctx, rdb, []string{tc.key}).Slice()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("field %d: %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
