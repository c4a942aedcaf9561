package fiatpsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/paygate/gateway/provider"
)

// The provider's answers: an envelope whose type says success or error,
// with the call's members beside it.
type Envelope struct {
	Type    string `json:"type"`
	Message string `json:"message,omitempty"`
}

type WireSystem struct {
	ID        json.Number `json:"id"`
	Name      string      `json:"name"`
	Currency  string      `json:"currency"`
	IsEnabled json.Number `json:"is_enabled"`
}

type SystemsAnswer struct {
	Envelope
	Currencies []WireSystem `json:"currencies"`
}

type CreateAnswer struct {
	Envelope
	OrderID   json.Number `json:"orderId"`
	OrderHash string      `json:"orderHash,omitempty"`
	Location  string      `json:"location"`
}

type WireOrder struct {
	MerchantOrderID string      `json:"merchant_order_id"`
	OrderID         json.Number `json:"order_id"`
	Amount          Literal     `json:"amount"`
	Currency        string      `json:"currency"`
	Status          json.Number `json:"status"`
	Date            string      `json:"date,omitempty"`
}

type OrdersAnswer struct {
	Envelope
	Pages  int         `json:"pages"`
	Orders []WireOrder `json:"orders"`
}

// Literal is a JSON number or string kept as its exact text: amounts are
// never read through float64.
type Literal string

func (l *Literal) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = Literal(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*l = Literal(n)
	return nil
}

func (l Literal) MarshalJSON() ([]byte, error) { return []byte(json.Number(l)), nil }

// Bounds on what we take from an answer, beyond the caller's size bound.
const (
	maxSystems  = 1000
	maxOrders   = 100
	maxTextLen  = 200
	maxIDDigits = 18
)

// errBadAnswer marks an answer we cannot read: the provider is not working
// as it should, which the command side treats like one that is down.
var errBadAnswer = fmt.Errorf("unreadable provider answer: %w", provider.ErrUnavailable)

// decodeAnswer reads a provider answer into v: a 4xx or an error envelope is
// the provider refusing (ErrNotFound for 404), anything unreadable is
// errBadAnswer.
func decodeAnswer(a provider.Answer, v interface{ ok() Envelope }) error {
	if a.Status < 200 || a.Status > 299 {
		var e Envelope
		_ = json.Unmarshal(a.Body, &e)
		kind := provider.ErrRefused
		if a.Status == http.StatusNotFound {
			kind = provider.ErrNotFound
		}
		return fmt.Errorf("HTTP %d %q: %w", a.Status, clean(e.Message), kind)
	}
	dec := json.NewDecoder(bytes.NewReader(a.Body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", errBadAnswer, err)
	}
	if e := v.ok(); e.Type != "success" {
		return fmt.Errorf("answered %q %q: %w", clean(e.Type), clean(e.Message), provider.ErrRefused)
	}
	return nil
}

func (e Envelope) ok() Envelope { return e }

// clean bounds a provider's text before it goes into an error, and drops
// what would not print.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, s)
	if len(s) > maxTextLen {
		s = s[:maxTextLen]
	}
	return s
}

// positiveID reads an integer identifier (system, provider order).
func PositiveID(s string) (int64, bool) {
	if s == "" || len(s) > maxIDDigits {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}
