package audit

import "github.com/redis/go-redis/v9"

// luaAppend is the helper a script calls to append its audit entry in the
// same atomic step as its change. The entry rides at the end of ARGV
// (ScriptArgs): its field-value pairs, then how many ARGV slots they take.
// The stream must be one of the script's KEYS (Redis Cluster routes by
// them) and carry the hash tag of the script's other keys.
const luaAppend = `
local function gw_audit_argc()
  return tonumber(ARGV[#ARGV]) + 1
end
local function gw_audit(stream)
  local last = #ARGV
  local n = tonumber(ARGV[last])
  return redis.call('XADD', stream, '*', unpack(ARGV, last - n, last - 1))
end
`

// Script is src with the audit helpers defined before it: gw_audit(stream)
// appends the entry ScriptArgs put at the end of ARGV; gw_audit_argc() is
// how many ARGV slots the entry takes, so the script's own arguments are
// ARGV[1 .. #ARGV - gw_audit_argc()].
func Script(src string) *redis.Script { return redis.NewScript(luaAppend + src) }

// ScriptArgs appends e to a script's own arguments, after checking it
// (Check: an entry the log cannot keep is a 400, and the script never runs).
func ScriptArgs(args []any, e Entry) ([]any, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	v := e.values()
	out := make([]any, 0, len(args)+len(v)+1)
	out = append(append(out, args...), v...)
	return append(out, len(v)), nil
}
