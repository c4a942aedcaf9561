package simkit

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// A simulated provider page names whom the payer pays, looked up by our
// order id through the process's hook, escaped; without the hook it still
// renders.
func TestSimPageNamesTheMerchant(t *testing.T) {
	cases := []struct {
		name  string
		hook  bool
		order string
		want  []string
		not   []string
	}{
		{"named", true, "P1", []string{`Pay <span data-merchant>Tea &amp; &lt;Cake&gt;</span>`, "<code>P1</code>"}, nil},
		{"unknown order", true, "P2", []string{"<h1>Payment</h1>"}, []string{"data-merchant"}},
		{"no hook", false, "P1", []string{"<h1>Payment</h1>"}, []string{"data-merchant"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			app := fiber.New()
			if tc.hook {
				app.Use(WithMerchantNames(func(_ context.Context, id string) string {
					if id == "P1" {
						return "Tea & <Cake>"
					}
					return ""
				}))
			}
			app.Get("/", func(c *fiber.Ctx) error {
				p := SimPage{Provider: "x", OrderID: tc.order, Amount: "1.00", Currency: "USD", Action: "/pay"}
				p.Merchant = SimMerchant(c, p.OrderID)
				var b strings.Builder
				if err := p.Render(&b); err != nil {
					return err
				}
				return c.Type("html").SendString(b.String())
			})
			res, err := app.Test(httptest.NewRequest("GET", "/", nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			for _, w := range tc.want {
				if !strings.Contains(string(body), w) {
					t.Errorf("page lacks %s\n%s", w, body)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(string(body), n) {
					t.Errorf("page has %s", n)
				}
			}
		})
	}
}
