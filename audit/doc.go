// Package audit is the append-only log of every state-changing action taken
// in a console or with the CLI: who (actor id and e-mail, realm, role), what
// (action, target, the merchant it concerns), from where, when; never a
// secret. An Entry has a fixed set of fields and its details a fixed set of
// keys (Validate refuses any other), so a password, code or key cannot be
// logged by mistake.
//
// Durability: an action that is one Redis script appends its entry to the
// audit stream of its own hash tag inside that script (Script, ScriptArgs),
// so no change is made without its entry; any other action appends with
// Log.Append before it answers. Either way the entry is built and checked
// (Entry.Check) before the change, so a value the log cannot keep refuses
// the action instead of leaving a change unlogged; a person's free text
// is cleaned where it is read (Text), a provider's answer clipped (Clip).
// Streams are never trimmed here. The
// Projector (consumer group "audit") copies every entry into ClickHouse's
// audit_log table, where Search and ExportCSV read it.
package audit
