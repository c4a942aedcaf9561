-- Mark an exception handled and append its audit entry, in one step: no
-- mark without its entry, no entry without its mark.
-- KEYS[1] the mark, KEYS[2] the audit stream of the mark's hash tag.
-- ARGV[1] the mark (JSON), ARGV[2] how long it is kept (ms), then the
-- audit entry (audit.ScriptArgs).
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return gw_audit(KEYS[2])
