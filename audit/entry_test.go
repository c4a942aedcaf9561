package audit

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

var at = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func good() Entry {
	return Entry{At: at, ActorID: "u1", ActorEmail: "a@shop.test", Realm: RealmMerchant, Role: "owner",
		Action: "order.refund", Target: "order:X", AppID: "1001", Source: "192.0.2.1", Details: map[string]string{"reason": "asked", "amount": "1.00"}}
}

// TestEntryValidate: an entry names its action, realm and time; details
// only under allowed keys; bounded values. The secret-bearing keys a
// careless caller would reach for are refused.
func TestEntryValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Entry)
		ok   bool
	}{
		{"good", func(*Entry) {}, true},
		{"no details", func(e *Entry) { e.Details = nil }, true},
		{"no action", func(e *Entry) { e.Action = "" }, false},
		{"unknown realm", func(e *Entry) { e.Realm = "root" }, false},
		{"no time", func(e *Entry) { e.At = time.Time{} }, false},
		{"password detail", func(e *Entry) { e.Details["password"] = "hunter2hunter2" }, false},
		{"totp code detail", func(e *Entry) { e.Details["code"] = "123456" }, false},
		{"token detail", func(e *Entry) { e.Details["token"] = "abc" }, false},
		{"api key detail", func(e *Entry) { e.Details["api_key"] = "K" }, false},
		{"secret detail", func(e *Entry) { e.Details["secret"] = "S" }, false},
		{"overlong target", func(e *Entry) { e.Target = string(make([]byte, 300)) }, false},
		{"not UTF-8", func(e *Entry) { e.Details["note"] = "\xff" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := good()
			tt.mod(&e)
			err := e.Validate()
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalid)) {
				t.Fatalf("err %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestEntryFieldsAreTheAllowList: Entry's fields and the detail keys are
// exactly these; none names a secret. Adding one fails here first, so it
// is a reviewed decision.
func TestEntryFieldsAreTheAllowList(t *testing.T) {
	want := []string{"At", "ActorID", "ActorEmail", "Realm", "Role", "Action", "Target", "AppID", "Source", "Details"}
	var got []string
	for f := range reflect.TypeFor[Entry]().Fields() {
		got = append(got, f.Name)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Entry fields %v, want %v", got, want)
	}
	secret := regexp.MustCompile(`(?i)pass|secret|token|key|code|sign|otp|hash|cookie|session|csrf`)
	for _, k := range DetailKeys {
		if secret.MatchString(k) && k != "require_totp" { // a policy's on/off, not a TOTP secret
			t.Errorf("detail key %q names a secret", k)
		}
	}
}

// TestLogAppend: a plain append lands on the {audit} stream and reads back
// as written; an invalid entry is refused and nothing is written.
func TestLogAppend(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	ctx := context.Background()
	l := NewLog(rdb)
	if _, err := l.Append(ctx, good()); err != nil {
		t.Fatal(err)
	}
	bad := good()
	bad.Details["password"] = "x"
	if _, err := l.Append(ctx, bad); !errors.Is(err, ErrInvalid) {
		t.Fatalf("secret detail: %v", err)
	}
	msgs, err := rdb.XRange(ctx, schema.AuditKey(schema.AuditTag), "-", "+").Result()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("%d entries, %v", len(msgs), err)
	}
	if got := decode(msgs[0].ID, msgs[0].Values); !reflect.DeepEqual(got, good()) {
		t.Fatalf("read back %+v, want %+v", got, good())
	}
}
