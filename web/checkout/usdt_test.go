package checkout

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestUSDTReviewWords: the payer's page says where the review stands, in
// plain words in every language, and an administrator's rejection reason
// as written (escaped), never a generic "did not match", which left
// payers guessing.
func TestUSDTReviewWords(t *testing.T) {
	h := newHarness(t)
	next := time.Now().Add(30 * time.Second).UTC().Truncate(time.Second)
	until := next.Add(23 * time.Hour)
	under := func(p schema.USDTProgress) func(o *schema.Order) {
		return func(o *schema.Order) {
			o.Method, o.NextAction, o.PayableAmount, o.Network = schema.MethodUSDTDirect, schema.NextUSDTReview, "1.000001", "TRC20"
			o.TxHash, o.ReviewProgress = strings.Repeat("ab", 32), p
		}
	}
	rejected := func(reason string) func(o *schema.Order) {
		return func(o *schema.Order) {
			o.Method, o.NextAction, o.PayableAmount, o.Network = schema.MethodUSDTDirect, schema.NextUSDTDirectPay, "1.000001", "TRC20"
			o.Review, o.ReviewReason = "rejected", reason
		}
	}
	at := func(t time.Time) string { return t.Format("2006-01-02 15:04 UTC") }
	clock := func(t time.Time) string { return t.Format("15:04:05 UTC") }
	evil := `sent 1 USDT short <script>alert(1)</script>`
	cases := []struct {
		name  string
		mut   func(o *schema.Order)
		want  map[string][]string // by language prefix ("" is en)
		state string
	}{
		{"queued", under(schema.USDTProgress{}), map[string][]string{
			"": {"We received your transaction hash"}, "/zh": {"我们已收到您的交易哈希"}, "/es": {"Hemos recibido el hash"}}, "queued"},
		{"checking", under(schema.USDTProgress{Step: schema.ReviewChecking, Until: until}), map[string][]string{
			"": {"looking for your transaction on the network now"}, "/zh": {"正在网络上查找"}, "/es": {"Estamos buscando su transacción"}}, "checking"},
		{"not found yet", under(schema.USDTProgress{Step: schema.ReviewNotFound, NextCheck: next, Until: until}), map[string][]string{
			"":    {"We have not found this transaction yet; we keep checking until " + at(until), "Next check: " + clock(next)},
			"/zh": {"我们暂时还没有找到这笔交易", at(until)}, "/es": {"Todavía no hemos encontrado esta transacción", at(until)}}, "not_found"},
		{"confirmations", under(schema.USDTProgress{Step: schema.ReviewConfirming, NextCheck: next, Until: until, Confirmations: 4, Required: 30}), map[string][]string{
			"": {"It has 4 of the 30 network confirmations"}, "/zh": {"它已有 4 个确认，共需 30 个"}, "/es": {"Tiene 4 de las 30 confirmaciones"}}, "confirming"},
		{"backend down", under(schema.USDTProgress{Step: schema.ReviewRetrying, NextCheck: next, Until: until}), map[string][]string{
			"": {"could not reach the network just now; we try again at " + clock(next)}, "/zh": {"暂时无法连接网络"}, "/es": {"No hemos podido consultar la red"}}, "retrying"},
		{"waiting for an administrator", func(o *schema.Order) {
			under(schema.USDTProgress{})(o)
			o.Review, o.ReviewReason = "waiting", "disagree"
		}, map[string][]string{"": {"An administrator is checking"}, "/zh": {"管理员正在核对"}, "/es": {"Un administrador está comprobando"}}, "waiting_admin"},
		{"rejected by the reviewer", rejected("wrong_amount"), map[string][]string{
			"": {"the amount was not exactly the amount shown"}, "/zh": {"金额与显示的金额不完全一致"}, "/es": {"el importe no era exactamente"}}, ""},
		{"rejected by an administrator, escaped", rejected(evil), map[string][]string{
			"":    {"The reviewer wrote: “sent 1 USDT short &lt;script&gt;alert(1)&lt;/script&gt;”"},
			"/zh": {"审核人员说明：“sent 1 USDT short &lt;script&gt;alert(1)&lt;/script&gt;”"},
			"/es": {"El revisor escribió: «sent 1 USDT short &lt;script&gt;alert(1)&lt;/script&gt;»"}}, ""},
	}
	for i, tc := range cases {
		for lang, want := range tc.want {
			t.Run(tc.name+lang, func(t *testing.T) {
				id := "o-rw" + string(rune('a'+i)) + strings.TrimPrefix(lang, "/")
				h.orders.add(order(id, tc.mut))
				r := h.get(t, lang+"/payment/"+id+"/usdt-direct")
				if r.code != http.StatusOK {
					t.Fatalf("%d\n%s", r.code, r.body)
				}
				checkPage(t, r)
				for _, w := range want {
					if !strings.Contains(r.body, w) {
						t.Errorf("page lacks %q\n%s", w, r.body)
					}
				}
				if tc.state != "" && !strings.Contains(r.body, `data-review-state="`+tc.state+`"`) {
					t.Errorf("no review state %s on the page", tc.state)
				}
				if strings.Contains(r.body, "<script>alert") || strings.Contains(r.body, "did not match") && tc.name == "rejected by an administrator, escaped" {
					t.Error("the administrator's text rendered as markup or replaced")
				}
			})
		}
	}
}
