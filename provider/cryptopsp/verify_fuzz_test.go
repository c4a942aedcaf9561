package cryptopsp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/paygate/gateway/provider"
)

// FuzzVerify checks IPN verification on any body and signature, seeded
// with the shared vectors: nothing panics; every refusal is forged or
// malformed; the canonical form is a fixed point (a body re-serialised
// canonically canonicalises to itself, so what was signed is what is
// read); a body signed over its canonical form with our secret is never
// called forged, and with one digit of the signature changed always is.
func FuzzVerify(f *testing.F) {
	v := loadVectors(f)
	for i, c := range v.Cases {
		f.Add([]byte(c.Body), c.Signature, uint8(i))
	}
	a := newTestAdapter(f, v.IPNSecret)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, body []byte, header string, pos uint8) {
		verify := func(sig string) error {
			h := http.Header{}
			h.Set(DefaultSignatureHeader, sig)
			_, err := a.Verify(ctx, &provider.Request{Header: h, Body: body, Path: NotifyPath})
			if err != nil && !errors.Is(err, provider.ErrSignature) && !errors.Is(err, provider.ErrMalformed) {
				t.Fatalf("refusal of neither kind: %v", err)
			}
			return err
		}
		_ = verify(header)
		form, err := Canonical(body)
		if err != nil || len(body) > MaxNotifyBody {
			return
		}
		again, err := Canonical(form)
		if err != nil || !bytes.Equal(again, form) {
			t.Fatalf("canonical form %q reads back as %q (%v)", form, again, err)
		}
		good := Sign(v.IPNSecret, form)
		if err := verify(good); errors.Is(err, provider.ErrSignature) {
			t.Fatalf("own signature called forged: %v", err)
		}
		b := []byte(good)
		i := int(pos) % len(b)
		b[i] = map[bool]byte{true: '1', false: '0'}[b[i] == '0']
		if err := verify(string(b)); !errors.Is(err, provider.ErrSignature) {
			t.Fatalf("signature with digit %d changed: %v, want ErrSignature", i, err)
		}
	})
}
