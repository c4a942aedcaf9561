package account

import (
	"regexp"
	"strings"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/web/frame"
)

// auditLine is one entry of the merchant's audit log: what happened as a
// sentence, beside the entry (its details as the operators' view shows
// them).
type auditLine struct {
	audit.Entry
	Sentence string
}

// auditSentence says entry e as a person would ("ana@shop.test refunded
// 7.00 CNY of order P2026…: damaged goods"): the message audit_<action>
// with the entry's details as its {parameters}, its reason or note after
// it when the sentence does not carry it; an action without a message of
// its own gets the plain one (who, action, target).
func auditSentence(l *frame.Catalog, e audit.Entry) string {
	id := "audit_" + strings.NewReplacer(".", "_").Replace(e.Action)
	if e.Action == "webhook.resend" && e.Details["kind"] == "dead" {
		id = "audit_webhook_resend_dead" // the bulk one: a count, not a target
	}
	_, target, ok := strings.Cut(e.Target, ":")
	if !ok {
		target = e.Target
	}
	pairs := []any{"Who", auditWho(l, e), "Target", target, "Action", e.Action}
	for k, v := range e.Details {
		pairs = append(pairs, k, v)
	}
	if !l.Has(id) {
		id = "audit_other"
	}
	s := l.T(id, pairs...)
	if unfilled.MatchString(s) {
		// An entry without a detail its sentence names (an older
		// entry, a failure recorded before its outcome): the plain one.
		id, s = "audit_other", l.T("audit_other", pairs...)
	}
	for _, k := range []string{"reason", "note"} {
		if v := e.Details[k]; v != "" && !strings.Contains(l.Msg[id], "{"+k+"}") {
			s += ": " + v
		}
	}
	return s
}

// unfilled is a {detail} a sentence names that the entry lacks.
var unfilled = regexp.MustCompile(`\{[a-z_]+\}`)

// auditWho names who acted: the person's e-mail, else its id, else the
// kind of actor (the command line, the system).
func auditWho(l *frame.Catalog, e audit.Entry) string {
	switch {
	case e.ActorEmail != "":
		return e.ActorEmail
	case e.Realm == audit.RealmCLI:
		return l.T("audit_who_cli")
	case e.ActorID != "":
		return e.ActorID
	}
	return l.T("audit_who_system")
}

// auditLines are the page's entries with their sentences.
func auditLines(l *frame.Catalog, rows []audit.Row) []auditLine {
	out := make([]auditLine, len(rows))
	for i, r := range rows {
		out[i] = auditLine{Entry: r.Entry, Sentence: auditSentence(l, r.Entry)}
	}
	return out
}
