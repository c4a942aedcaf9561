package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Realms: who acted.
const (
	RealmMerchant = "merchant" // a merchant console user
	RealmOperator = "operator" // an operator console user
	RealmCLI      = "cli"      // the gateway CLI, run by whoever holds the machine
	RealmSystem   = "system"   // the gateway itself (sweeps, reviewers)
)

// Entry is one action. Its fields are the allow-list of what an entry may
// say (TestEntryFieldsAreTheAllowList holds the struct to it): adding a
// field is a decision, not an accident.
type Entry struct {
	At         time.Time
	ActorID    string // the account's id; for the CLI, the OS user if known
	ActorEmail string
	Realm      string // RealmMerchant, RealmOperator, RealmCLI, RealmSystem
	Role       string // the actor's role when it acted
	Action     string // dotted verb: "user.create", "session.login_failed", "order.refund"
	Target     string // what it acted on, "user:ID", "order:ID", "merchant:APPID"
	AppID      string // the merchant the action concerns, "" for none: what an owner may read
	Source     string // the client's IP address, or "cli"
	// Details are short facts about the action, under allowed keys only
	// (DetailKeys): a reason, a new role, an amount. Never a secret.
	Details map[string]string
}

// DetailKeys is the allow-list of Details keys. A secret has no key here,
// and none may be added: passwords, TOTP codes and secrets, recovery codes,
// setup and session tokens, API, query and webhook keys.
var DetailKeys = []string{
	"reason", "note", "role", "old_role", "email", "amount", "currency", "status", "result",
	"method", "network", "count", "grace", "require_totp", "realm", "until", "via",
	// Operator changes: settings as set, never a key or a secret.
	"rate", "mode", "old_mode", "confirmations", "min", "max", "limit", "name", "kind", "handled",
	// An FX rate set beyond the allowed deviation, confirmed: how far, from what.
	"deviation_confirmed", "old_rate",
	// A fee schedule as set (fees.Describe).
	"fee",
	// An exception's provider refund: our refund id, the family, the
	// provider's references of the charge and of the refund, its error.
	"refund", "provider", "ref", "provider_refund", "error",
	// A merchant's money: its terms as set, an adjustment's bucket.
	"terms", "bucket",
	// A channel's routing data as set, its breaker's state, the keyword list (as "words": "key" names secrets here).
	"channel", "settings", "state", "words", "group",
	// A webhook endpoint as set: its URL and the event types it takes.
	"url", "types",
	// A provider statement imported: its day, the file by its sha256 (never
	// its content), the match's counts, what it cleared off the receivable.
	"day", "sha256", "counts", "cleared",
}

var detailAllowed = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range DetailKeys {
		m[k] = true
	}
	return m
}()

// Bounds of a field and a detail value, in bytes.
const (
	maxField  = 256
	maxDetail = 1024
)

var knownRealm = map[string]bool{RealmMerchant: true, RealmOperator: true, RealmCLI: true, RealmSystem: true}

// ErrInvalid is an entry Validate refuses.
var ErrInvalid = errors.New("invalid audit entry")

// Validate refuses an entry that lacks its action, realm or time, names a
// detail key outside DetailKeys, or carries an oversized or non-UTF-8 value.
func (e *Entry) Validate() error {
	var errs []error
	if e.Action == "" || !knownRealm[e.Realm] || e.At.IsZero() {
		errs = append(errs, errors.New("action, a known realm and the time are required"))
	}
	for name, v := range e.fields() {
		if len(v) > maxField || !utf8.ValidString(v) {
			errs = append(errs, fmt.Errorf("field %s is too long or not UTF-8", name))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Details)) {
		if !detailAllowed[k] {
			errs = append(errs, fmt.Errorf("detail %q is not an allowed key", k))
		} else if v := e.Details[k]; len(v) > maxDetail || !utf8.ValidString(v) {
			errs = append(errs, fmt.Errorf("detail %q is too long or not UTF-8", k))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return nil
}

// Stream field names.
const (
	fAt      = "at"
	fActor   = "actor"
	fEmail   = "email"
	fRealm   = "realm"
	fRole    = "role"
	fAction  = "action"
	fTarget  = "target"
	fAppID   = "appid"
	fSource  = "src"
	fDetails = "details"
)

// fields are the entry's string fields by stream field name.
func (e *Entry) fields() map[string]string {
	return map[string]string{
		fActor: e.ActorID, fEmail: e.ActorEmail, fRealm: e.Realm, fRole: e.Role, fAction: e.Action,
		fTarget: e.Target, fAppID: e.AppID, fSource: e.Source,
	}
}

// values is the entry as XADD's field-value pairs, in a fixed order.
func (e *Entry) values() []any {
	d := "{}"
	if len(e.Details) > 0 {
		b, _ := json.Marshal(e.Details) // map[string]string always marshals
		d = string(b)
	}
	return []any{
		fAt, strconv.FormatInt(e.At.UnixMilli(), 10), fActor, e.ActorID, fEmail, e.ActorEmail, fRealm, e.Realm,
		fRole, e.Role, fAction, e.Action, fTarget, e.Target, fAppID, e.AppID, fSource, e.Source, fDetails, d,
	}
}

// decode reads a stream entry back. It never fails: an entry written by an
// older or broken writer keeps what it has (the stream entry's own id time
// stands in for a missing or bad "at"), so the log loses no entry.
func decode(id string, v map[string]any) Entry {
	s := func(k string) string { x, _ := v[k].(string); return x }
	e := Entry{ActorID: s(fActor), ActorEmail: s(fEmail), Realm: s(fRealm), Role: s(fRole), Action: s(fAction),
		Target: s(fTarget), AppID: s(fAppID), Source: s(fSource)}
	if ms, err := strconv.ParseInt(s(fAt), 10, 64); err == nil && ms > 0 {
		e.At = time.UnixMilli(ms).UTC()
	} else if ms, err := strconv.ParseInt(strings.SplitN(id, "-", 2)[0], 10, 64); err == nil {
		e.At = time.UnixMilli(ms).UTC()
	}
	if d := s(fDetails); d != "" && d != "{}" {
		_ = json.Unmarshal([]byte(d), &e.Details)
	}
	return e
}
