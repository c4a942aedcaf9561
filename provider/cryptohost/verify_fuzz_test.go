package cryptohost

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/paygate/gateway/provider"
)

// FuzzVerify checks webhook verification on any body and signature header,
// seeded with the shared vectors: nothing panics; every refusal is forged
// (ErrSignature) or malformed (ErrMalformed), never anything else; a body
// signed with our secret is never called forged; the same body with one
// digit of its signature changed, or signed with another secret, always is.
func FuzzVerify(f *testing.F) {
	v := loadVectors(f)
	for i, c := range v.Cases {
		f.Add([]byte(c.Body), c.Signature, uint8(i))
	}
	a := newTestAdapter(f, v.Secret)
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
		if err := verify(header); err == nil && VerifySignature(v.Secret, body, header) != nil {
			t.Fatal("accepted a body whose signature does not verify")
		}
		if len(body) > MaxNotifyBody {
			return
		}
		good := Sign(v.Secret, body)
		if err := verify(good); errors.Is(err, provider.ErrSignature) {
			t.Fatalf("own signature called forged: %v", err)
		}
		b := []byte(good)
		i := int(pos) % len(b)
		b[i] = map[bool]byte{true: '1', false: '0'}[b[i] == '0']
		if err := verify(string(b)); !errors.Is(err, provider.ErrSignature) {
			t.Fatalf("signature with digit %d changed: %v, want ErrSignature", i, err)
		}
		if err := verify(Sign(v.Secret+"x", body)); !errors.Is(err, provider.ErrSignature) {
			t.Fatalf("another secret's signature: %v, want ErrSignature", err)
		}
	})
}
