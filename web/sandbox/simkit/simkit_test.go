package simkit

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
)

func TestPageAndChoice(t *testing.T) {
	app := fiber.New()
	app.Get("/p", func(c *fiber.Ctx) error {
		return SendPage(c, SimPage{Provider: "fam", Amount: "1.00", Currency: "USD", Action: "/p"})
	})
	app.Post("/p", func(c *fiber.Ctx) error {
		paid, ok := Choice(c)
		if !ok {
			return RefuseChoice(c)
		}
		if paid {
			return c.SendString("paid")
		}
		return c.SendString("failed")
	})
	res, err := app.Test(httptest.NewRequest("GET", "/p", nil))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(string(body), `value="pay"`) {
		t.Fatalf("page: %d %q %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	for outcome, want := range map[string]string{"pay": "paid", "fail": "failed", "": ChoiceError, "cancel": ChoiceError} {
		req := httptest.NewRequest("POST", "/p", strings.NewReader(url.Values{"outcome": {outcome}}.Encode()))
		req.Header.Set("Content-Type", fiber.MIMEApplicationForm)
		res, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		if string(body) != want || (want == ChoiceError) != (res.StatusCode == 400) {
			t.Errorf("outcome %q: %d %s", outcome, res.StatusCode, body)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	type rec struct{ A string }
	ctx, st := context.Background(), &provider.MemState{}
	if err := Save(ctx, st, "k", rec{"x"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if r, err := Load[rec](ctx, st, "k"); err != nil || r.A != "x" {
		t.Fatalf("Load = %+v, %v", r, err)
	}
	if _, err := Load[rec](ctx, st, "absent"); !errors.Is(err, provider.ErrNotFound) {
		t.Fatalf("Load(absent) = %v", err)
	}
	_ = st.Put(ctx, "bad", []byte("{"), time.Minute)
	if _, err := Load[rec](ctx, st, "bad"); err == nil {
		t.Fatal("bad JSON loaded")
	}
	if len(RandomHex(4)) != 8 || RandomHex(4) == RandomHex(4) {
		t.Fatal("RandomHex")
	}
}
