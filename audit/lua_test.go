package audit

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// A script of the kind the account and order scripts are: its own
// arguments first, its change and its audit entry in one step.
var testScript = Script(`
local own = #ARGV - gw_audit_argc()
if own ~= 2 then
  return redis.error_reply('own args ' .. own)
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1] .. ARGV[2])
gw_audit(KEYS[2])
return 1
`)

// TestScriptAppend: on the real Redis (the test client checks the keys
// share a slot), the script's change and its entry come together, and a
// refused change writes no entry.
func TestScriptAppend(t *testing.T) {
	rdb := testenv.Redis(t)
	ctx := context.Background()
	keys := []string{"gw:{access}:test", schema.AuditKey(schema.AccessTag)}
	for i, want := range []int64{1, 0} {
		args, err := ScriptArgs([]any{"a", "b"}, good())
		if err != nil {
			t.Fatal(err)
		}
		n, err := testScript.Run(ctx, rdb, keys, args...).Int64()
		if err != nil || n != want {
			t.Fatalf("run %d: %d, %v", i, n, err)
		}
	}
	if v := rdb.Get(ctx, keys[0]).Val(); v != "ab" {
		t.Fatalf("value %q", v)
	}
	msgs, err := rdb.XRange(ctx, keys[1], "-", "+").Result()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("%d entries, want 1 (the refused run writes none): %v", len(msgs), err)
	}
	if got := decode(msgs[0].ID, msgs[0].Values); !reflect.DeepEqual(got, good()) {
		t.Fatalf("entry %+v", got)
	}
	bad := good()
	bad.Details["token"] = "t"
	if _, err := ScriptArgs(nil, bad); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a secret detail went into script args: %v", err)
	}
}
