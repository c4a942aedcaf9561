package admin

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/schema"
)

// TestFXRateNeedsConfirmation: a rate ten times the current one is not set
// from the form; the page comes back (409) with the deviation, the pair's
// last rates, the input kept and a confirmation; sent again confirmed, it
// is set and flagged in the audit log. A rate within the bound needs no
// confirmation.
func TestFXRateNeedsConfirmation(t *testing.T) {
	e := newEnv(t)
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	set := func(rate, confirm string) (int, string) {
		t.Helper()
		v := url.Values{"csrf": {admin.CSRF}, "base": {"usd"}, "quote": {"BDT"}, "rate": {rate}}
		if confirm != "" {
			v.Set("confirm", confirm)
		}
		res := e.do(t, post("/admin/settings/fx", admin, v))
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	current := func() string {
		t.Helper()
		_, r, _, err := fx.NewStore(e.rdb).Get(context.Background(), fx.Pair{Base: "USD", Quote: "BDT"})
		if err != nil {
			t.Fatal(err)
		}
		return r.String()
	}
	if st, body := set("121.5", ""); st != http.StatusSeeOther {
		t.Fatalf("first rate: %d %.300s", st, body)
	}
	st, body := set("1215", "")
	if st != http.StatusConflict || current() != "121.5" {
		t.Fatalf("ten times: %d, rate %s", st, current())
	}
	for _, want := range []string{`data-fx-warning`, "USD/BDT 1215 is 900.0% above the current rate 121.5", "more than the 10%",
		`data-pair-recent`, `>121.5</td>`, `name="rate" required inputmode="decimal" maxlength="20" value="1215"`, `value="usd"`,
		`name="confirm" value="1" required`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page sent back lacks %q", want)
		}
	}
	if st, _ := set("12.15", ""); st != http.StatusConflict || current() != "121.5" {
		t.Fatalf("a tenth: %d, rate %s", st, current())
	}
	if st, body := set("1215", "1"); st != http.StatusSeeOther || current() != "1215" {
		t.Fatalf("confirmed: %d, rate %s %.300s", st, current(), body)
	}
	if st, _ := set("1300", ""); st != http.StatusSeeOther || current() != "1300" {
		t.Fatalf("within 10%%: %d, rate %s", st, current())
	}
	rows, err := audit.Read(context.Background(), e.rdb, schema.AuditKey(schema.AuditTag), 1000)
	if err != nil {
		t.Fatal(err)
	}
	var flagged []map[string]string
	for _, r := range rows {
		if r.Action == "fx.set" && r.Details["deviation_confirmed"] != "" {
			flagged = append(flagged, r.Details)
		}
	}
	if len(flagged) != 1 || flagged[0]["rate"] != "1215" || flagged[0]["old_rate"] != "121.5" || flagged[0]["deviation_confirmed"] != "above 900.0%" {
		t.Fatalf("flagged fx.set entries %v, want the confirmed one", flagged)
	}
}
