package admin

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
)

// TestAPIKeySentence: one sentence, from the account, that never says
// "never rotated" beside an old key that still works, and never names an
// old key whose grace has run out.
func TestAPIKeySentence(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	rotated := now.Add(-2 * time.Hour)
	byConsole := []audit.Row{{Entry: audit.Entry{Action: "merchant.rotate_api_key", At: rotated}}}
	for _, tc := range []struct {
		name string
		a    merchant.Account
		hist []audit.Row
		want apiKeyState
	}{
		{"never rotated", merchant.Account{}, nil, apiKeyState{MsgID: "merchant_key_never"}},
		{"rotated, old key still works", merchant.Account{KeyRotatedAt: rotated, PrevAPIKey: "old", PrevKeyTill: now.Add(time.Hour)}, nil,
			apiKeyState{MsgID: "merchant_key_rotated_grace", At: rotated, OldTill: now.Add(time.Hour)}},
		{"rotated, grace over", merchant.Account{KeyRotatedAt: rotated, PrevAPIKey: "old", PrevKeyTill: now.Add(-time.Hour)}, nil,
			apiKeyState{MsgID: "merchant_key_rotated_at", At: rotated}},
		{"rotated when, no one knows; the old key still works", merchant.Account{PrevAPIKey: "old", PrevKeyTill: now.Add(time.Hour)}, nil,
			apiKeyState{MsgID: "merchant_key_rotated_grace_unknown", OldTill: now.Add(time.Hour)}},
		{"rotated on the Developers page before the stamps", merchant.Account{PrevAPIKey: "old", PrevKeyTill: now.Add(time.Hour)}, byConsole,
			apiKeyState{MsgID: "merchant_key_rotated_grace", At: rotated, OldTill: now.Add(time.Hour)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := apiKeyOf(&tc.a, tc.hist, now); got != tc.want {
				t.Errorf("%+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestOperatorSeesSandboxBarAndKeySentence: the merchant page and the
// view of a sandbox merchant's console carry the sandbox bar (a live
// merchant's do not), and a rotated key reads as one sentence.
func TestOperatorSeesSandboxBarAndKeySentence(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	store := merchant.NewStore(e.rdb)
	sb, err := store.Create(ctx, merchant.NewAccount{Name: "Test Shop", Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.RotateKey(ctx, sb.AppID, time.Hour); err != nil {
		t.Fatal(err)
	}
	s := e.session(t, access.RealmOperator, "ann@ops.test")
	for _, tc := range []struct {
		name, path string
		bar        bool
	}{
		{"sandbox merchant page", "/admin/merchants/" + sb.AppID, true},
		{"sandbox merchant view", "/admin/merchants/" + sb.AppID + "/view", true},
		{"sandbox merchant orders view", "/admin/merchants/" + sb.AppID + "/view/orders", true},
		{"live merchant page", "/admin/merchants/" + e.appid, false},
		{"live merchant view", "/admin/merchants/" + e.appid + "/view", false},
		{"merchants list", "/admin/merchants", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.do(t, get(tc.path, s))
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("%d\n%s", res.StatusCode, body)
			}
			if got := strings.Contains(string(body), "data-sandbox-bar"); got != tc.bar {
				t.Errorf("sandbox bar %v, want %v", got, tc.bar)
			}
		})
	}
	res := e.do(t, get("/admin/merchants/"+sb.AppID, s))
	body, _ := io.ReadAll(res.Body)
	i := strings.Index(string(body), "data-api-key>")
	if i < 0 {
		t.Fatalf("no API key sentence\n%s", body)
	}
	line := string(body)[i : i+strings.Index(string(body)[i:], "</dd>")]
	if !strings.Contains(line, "Rotated ") || !strings.Contains(line, "old key keeps working until") || strings.Contains(line, "never") ||
		strings.Contains(line, "&lt;time") || !strings.Contains(line, " UTC") {
		// The times sit inside a sentence: plain text in the viewer's zone,
		// never a <time> element escaped into view.
		t.Errorf("API key sentence %q", line)
	}
}
