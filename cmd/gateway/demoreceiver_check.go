package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// verdict is whether one of a webhook's two signatures verifies, and if
// not, why in words a merchant can act on.
type verdict struct {
	OK  bool
	Why string
}

func (v verdict) String() string {
	if v.OK {
		return "verified"
	}
	return "NOT verified: " + v.Why
}

// webhookTolerance is how far a webhook-timestamp may be from now, the
// Standard Webhooks specification's suggestion against replays.
const webhookTolerance = 5 * time.Minute

// checkSign verifies the MD5 sign as SPEC.md tells a merchant to: every
// parameter but sign and sign_type, sorted, the API key appended.
func checkSign(form url.Values, apiKey string) verdict {
	got := form.Get("sign")
	if got == "" {
		return verdict{Why: "no sign parameter"}
	}
	if apiKey == "" {
		return verdict{Why: "no API key to check with"}
	}
	p := schema.Params{}
	for k := range form {
		p[k] = form.Get(k)
	}
	if !schema.VerifySign(p, apiKey, got) {
		return verdict{Why: "sign differs (another API key, or a changed parameter)"}
	}
	return verdict{OK: true}
}

// checkHMAC verifies the Standard Webhooks headers from the specification,
// not from the dispatcher's code, so a mistake on either side shows:
// HMAC-SHA256 keyed with the bytes the whsec_ secret's base64 stands for,
// over id.timestamp.body, one of the space-separated v1 entries equal.
func checkHMAC(h http.Header, body []byte, secret string, now time.Time) verdict {
	id, ts, sig := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sig == "" {
		return verdict{Why: "no webhook-id, webhook-timestamp or webhook-signature header"}
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, merchant.WebhookSecretPrefix))
	if secret == "" || err != nil || len(key) == 0 {
		return verdict{Why: "no whsec_ webhook secret to check with"}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return verdict{Why: "webhook-timestamp is not unix seconds"}
	}
	if d := now.Sub(time.Unix(sec, 0)); d.Abs() > webhookTolerance {
		return verdict{Why: fmt.Sprintf("webhook-timestamp is %s away from now (a replay?)", d.Round(time.Second).Abs())}
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, entry := range strings.Fields(sig) {
		v, b64, _ := strings.Cut(entry, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if v == "v1" && err == nil && hmac.Equal(got, want) {
			return verdict{OK: true}
		}
	}
	return verdict{Why: "no v1 signature matches (another webhook secret, or a changed body)"}
}

// receiverKeys is what the receiver checks with: --api-key and
// --webhook-secret when given, else the demo merchant's file, read at each
// webhook so a rotation make run's gateway writes into it is followed.
type receiverKeys struct {
	file, apiKey, secret string
}

func (k receiverKeys) load() (apiKey, secret string, err error) {
	apiKey, secret = k.apiKey, k.secret
	if (apiKey != "" && secret != "") || k.file == "" {
		return apiKey, secret, nil
	}
	raw, err := os.ReadFile(k.file)
	if err != nil {
		return apiKey, secret, fmt.Errorf("read the demo merchant's keys: %w", err)
	}
	var f struct {
		APIKey        string `json:"apiKey"`
		WebhookSecret string `json:"webhookSecret"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return apiKey, secret, fmt.Errorf("read the demo merchant's keys from %s: %w", k.file, err)
	}
	if apiKey == "" {
		apiKey = f.APIKey
	}
	if secret == "" {
		secret = f.WebhookSecret
	}
	return apiKey, secret, nil
}
