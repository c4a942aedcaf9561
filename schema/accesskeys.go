package schema

// Console accounts (package access): merchant console users and operators,
// their sessions, setup tokens and recovery codes. Every key shares the
// {access} hash tag, so each account script (create, finish setup, log in,
// check a session, log out everywhere) is one slot-local script on Redis
// Cluster too, with its audit entry appended to AuditKey(AccessTag) in the
// same step. Accounts are few and console traffic is people clicking, so
// one slot carries them easily, as {merchants} carries the merchants.

// AccessTag is the hash tag of every console account key.
const AccessTag = "{access}"

// AccessPrefix starts every key of package access; the package builds its
// key names from it (user hashes, e-mail index, sessions, setup tokens).
const AccessPrefix = "gw:" + AccessTag + ":"

// The audit log (package audit). Each hash tag that a state-changing
// script runs on has an audit stream of its own, so the script appends its
// entry in the same atomic step as the change; the audit consumer group
// reads them all into ClickHouse.

// AuditTag is the tag of the stream that actions which are not one Redis
// script append to (CLI commands, multi-step use cases).
const AuditTag = "{audit}"

// AuditKey is the audit stream of keys tagged tag ("{access}", a shard's
// tag, "{merchants}", AuditTag).
func AuditKey(tag string) string { return "gw:" + tag + ":audit" }

// AuditStreams lists every audit stream the audit consumer reads.
func AuditStreams() []string {
	out := []string{AuditKey(AuditTag), AuditKey(AccessTag), AuditKey("{merchants}")}
	for _, s := range AllShards() {
		out = append(out, AuditKey(s.Tag()))
	}
	return out
}

// GroupAudit is the consumer group that projects the audit streams into
// ClickHouse.
const GroupAudit = "audit"
