package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/web/server"
)

// okAnswer is what server.OK writes for d: the reference the hand-written
// answer must equal, byte for byte, with its content type.
func okAnswer(t testing.TB, d createData) (body []byte, ctype string) {
	t.Helper()
	app := fiber.New()
	c := app.AcquireCtx(&fasthttp.RequestCtx{})
	defer app.ReleaseCtx(c)
	if err := server.OK(c, d); err != nil {
		t.Fatalf("server.OK: %v", err)
	}
	return bytes.Clone(c.Response().Body()), string(c.Response().Header.ContentType())
}

func ownAnswer(t testing.TB, d createData) (body []byte, ctype string) {
	t.Helper()
	app := fiber.New()
	c := app.AcquireCtx(&fasthttp.RequestCtx{})
	defer app.ReleaseCtx(c)
	if err := sendCreateAnswer(c, &d); err != nil {
		t.Fatalf("sendCreateAnswer: %v", err)
	}
	return bytes.Clone(c.Response().Body()), string(c.Response().Header.ContentType())
}

// everyField is a createData with every field set, found by reflection: a
// field added to createData but not to appendCreateBody makes the answers
// differ.
func everyField() createData {
	var d createData
	v := reflect.ValueOf(&d).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		name := v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.String:
			f.SetString("v-" + name)
		case reflect.Pointer:
			s := "p-" + name
			f.Set(reflect.ValueOf(&s))
		case reflect.Int:
			f.SetInt(int64(7 + i))
		case reflect.Bool:
			f.SetBool(true)
		default:
			panic("createData field " + name + " of a kind the test does not fill")
		}
	}
	return d
}

func TestCreateAnswerMatchesPlatformOK(t *testing.T) {
	provider := "https://pay.example/checkout?a=1&b=<2>&c=\"q\"\\"
	qr := "http://127.0.0.1:8080/payment/01ABC/qr.png"
	tests := []struct {
		name string
		d    createData
	}{
		{"select order, no pointers", createData{PaymentID: "01J5", OrderID: "01J5", SelectURL: "http://h/payment/01J5?step=select",
			NextAction: "select", Status: 1, StatusString: "ready", Amount: "12.34", Currency: "USD", PaymentMethod: "select",
			ClientOrderID: "cmax-1", CreatedAt: "2026-11-26T19:00:00Z"}},
		{"provider URL with & < > quotes and a QR", createData{PaymentID: "x", OrderID: "x", RedirectURL: &provider, QRImageURL: &qr,
			Status: 1, StatusString: "ready", Amount: "1.00", Currency: "CNY", PaymentMethod: "wallet_a", CreatedAt: "t"}},
		{"replay of a balance order", createData{PaymentID: "y", OrderID: "y", Status: 2, StatusString: "paid", PaidWithBalance: true,
			Idempotent: true, Amount: "0.01", Currency: "USD", PaymentMethod: "balance", ClientOrderID: "c:1", CreatedAt: "t"}},
		{"control characters, invalid UTF-8, U+2028 and U+2029", createData{PaymentID: "\x00\x01\b\f\n\r\t\x1f\x7f",
			OrderID: "\xff\xfe ok \xe2\x80\xa8 \xe2\x80\xa9 é 漢 🙂 \xed\xa0\x80", PayableAmount: "<script>&amp;</script>"}},
		{"zero value", createData{}},
		{"every field set", everyField()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, wantType := okAnswer(t, tc.d)
			got, gotType := ownAnswer(t, tc.d)
			if !bytes.Equal(got, want) || gotType != wantType {
				t.Errorf("answer differs from server.OK:\n got %s (%s)\nwant %s (%s)", got, gotType, want, wantType)
			}
		})
	}
}

// FuzzAppendJSONString holds the quoting to encoding/json's for any string.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "a&b<c>d", "\"\\", "\x00\x1f\x7f", "\xff", "\u2028\u2029", "é漢🙂", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

// TestCreateAnswerAllocatesNothing: the answer is built on the stack and
// copied into the response's pooled buffer.
func TestCreateAnswerAllocatesNothing(t *testing.T) {
	app := fiber.New()
	c := app.AcquireCtx(&fasthttp.RequestCtx{})
	defer app.ReleaseCtx(c)
	d := everyField()
	if n := testing.AllocsPerRun(100, func() { _ = sendCreateAnswer(c, &d) }); n != 0 {
		t.Errorf("sendCreateAnswer allocates %.1f times per answer, want 0", n)
	}
}
