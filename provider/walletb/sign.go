package walletb

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/rsakey"
)

// SignedMessage is what the provider signs in an answer or a notification:
// time stamp, nonce and the raw body, each followed by a newline.
func SignedMessage(timestamp, nonce string, body []byte) []byte {
	return []byte(timestamp + "\n" + nonce + "\n" + string(body) + "\n")
}

// RequestMessage is what we sign in a call: method, path with query,
// time stamp, nonce and body, each followed by a newline.
func RequestMessage(method, pathQuery, timestamp, nonce string, body []byte) []byte {
	return []byte(method + "\n" + pathQuery + "\n" + timestamp + "\n" + nonce + "\n" + string(body) + "\n")
}

// SigHeaders are the provider's signature headers of an answer or a
// notification.
type SigHeaders struct {
	Timestamp, Nonce, Signature, Serial string
}

func readSigHeaders(h http.Header, prefix string) SigHeaders {
	return SigHeaders{
		Timestamp: h.Get(prefix + "Timestamp"), Nonce: h.Get(prefix + "Nonce"),
		Signature: h.Get(prefix + "Signature"), Serial: h.Get(prefix + "Serial"),
	}
}

// Set writes the headers through set (http.Header.Set or fiber's c.Set).
func (s SigHeaders) Set(prefix string, set func(k, v string)) {
	set(prefix+"Timestamp", s.Timestamp)
	set(prefix+"Nonce", s.Nonce)
	set(prefix+"Signature", s.Signature)
	set(prefix+"Serial", s.Serial)
}

// verifier checks the provider's signed messages.
type verifier struct {
	keys    *keyring
	maxSkew time.Duration
	now     func() time.Time
}

// verify checks, in this order, that the headers are all there, that the
// serial they name is a platform key we trust (the keyring may fetch the
// provider's list for a serial it does not have), that the signature
// verifies, and that the time stamp is within the replay window. Every
// failure is ErrSignature.
func (v verifier) verify(ctx context.Context, h SigHeaders, body []byte) error {
	if h.Timestamp == "" || h.Nonce == "" || h.Signature == "" || h.Serial == "" {
		return fmt.Errorf("signature headers missing: %w", provider.ErrSignature)
	}
	pub, err := v.keys.key(ctx, h.Serial)
	if err != nil {
		return err
	}
	return v.check(pub, h, body)
}

// check verifies the signature with pub and the time stamp's window.
func (v verifier) check(pub *rsa.PublicKey, h SigHeaders, body []byte) error {
	if rsakey.Verify(pub, SignedMessage(h.Timestamp, h.Nonce, body), h.Signature) != nil {
		return fmt.Errorf("message: %w", provider.ErrSignature)
	}
	ts, err := strconv.ParseInt(h.Timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("time stamp %q: %w", h.Timestamp, provider.ErrSignature)
	}
	if skew := v.now().Sub(time.Unix(ts, 0)); skew > v.maxSkew || skew < -v.maxSkew {
		return fmt.Errorf("time stamp %v away from now, outside the replay window: %w", skew.Round(time.Second), provider.ErrSignature)
	}
	return nil
}

// signMessage signs body as the provider does, for the simulator.
func SignMessage(key *rsa.PrivateKey, serial string, now time.Time, body []byte) (SigHeaders, error) {
	h := SigHeaders{Timestamp: strconv.FormatInt(now.Unix(), 10), Nonce: RandomToken(32), Serial: serial}
	sig, err := rsakey.Sign(key, SignedMessage(h.Timestamp, h.Nonce, body))
	if err != nil {
		return SigHeaders{}, err
	}
	h.Signature = sig
	return h, nil
}

// Authorization is our Authorization header's value for a call.
func Authorization(scheme, mchid, serial string, key *rsa.PrivateKey, method, pathQuery string, now time.Time, body []byte) (string, error) {
	ts, nonce := strconv.FormatInt(now.Unix(), 10), RandomToken(32)
	sig, err := rsakey.Sign(key, RequestMessage(method, pathQuery, ts, nonce, body))
	if err != nil {
		return "", fmt.Errorf("sign call: %w", err)
	}
	return fmt.Sprintf(`%s mchid="%s",nonce_str="%s",signature="%s",timestamp="%s",serial_no="%s"`,
		scheme, mchid, nonce, sig, ts, serial), nil
}

// parseAuthorization reads an Authorization header of scheme into its
// parameters (mchid, nonce_str, signature, timestamp, serial_no).
func ParseAuthorization(scheme, header string) (map[string]string, error) {
	rest, ok := strings.CutPrefix(header, scheme+" ")
	if !ok {
		return nil, errors.New("not the expected scheme")
	}
	params := map[string]string{}
	for _, part := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return nil, errors.New("malformed parameter")
		}
		params[k] = v[1 : len(v)-1]
	}
	for _, k := range []string{"mchid", "nonce_str", "signature", "timestamp", "serial_no"} {
		if params[k] == "" {
			return nil, fmt.Errorf("no %s", k)
		}
	}
	return params, nil
}

// Resource is a notification's encrypted payload.
type Resource struct {
	Algorithm      string `json:"algorithm"`
	Ciphertext     string `json:"ciphertext"`
	AssociatedData string `json:"associated_data"`
	OriginalType   string `json:"original_type"`
	Nonce          string `json:"nonce"`
}

const algorithmGCM = "AEAD_AES_256_GCM"

// decrypt opens the resource with the API v3 key. A tag that fails is
// ErrSignature (the content is not what the provider sealed); a resource
// that cannot even be tried is ErrMalformed.
func (r Resource) decrypt(apiv3Key []byte) ([]byte, error) {
	if r.Algorithm != algorithmGCM {
		return nil, fmt.Errorf("resource algorithm %q: %w", r.Algorithm, provider.ErrMalformed)
	}
	ct, err := base64.StdEncoding.DecodeString(r.Ciphertext)
	if err != nil {
		return nil, fmt.Errorf("resource ciphertext: %w", errors.Join(provider.ErrMalformed, err))
	}
	aead, err := newGCM(apiv3Key)
	if err != nil {
		return nil, err
	}
	if len(r.Nonce) != aead.NonceSize() || len(ct) < aead.Overhead() {
		return nil, fmt.Errorf("resource nonce or ciphertext length: %w", provider.ErrMalformed)
	}
	plain, err := aead.Open(nil, []byte(r.Nonce), ct, []byte(r.AssociatedData))
	if err != nil {
		return nil, fmt.Errorf("resource does not decrypt: %w", provider.ErrSignature)
	}
	return plain, nil
}

// seal makes a resource of plaintext, for the simulator.
func Seal(apiv3Key []byte, plaintext []byte, associatedData string) (Resource, error) {
	aead, err := newGCM(apiv3Key)
	if err != nil {
		return Resource{}, err
	}
	nonce := RandomToken(aead.NonceSize())
	ct := aead.Seal(nil, []byte(nonce), plaintext, []byte(associatedData))
	return Resource{
		Algorithm: algorithmGCM, Ciphertext: base64.StdEncoding.EncodeToString(ct),
		AssociatedData: associatedData, OriginalType: "transaction", Nonce: nonce,
	}, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("API v3 key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("API v3 key: %w", err)
	}
	return aead, nil
}

const tokenAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// RandomToken is n random characters of [A-Z0-9], the nonces' form.
func RandomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = tokenAlphabet[int(b[i])%len(tokenAlphabet)]
	}
	return string(b)
}
