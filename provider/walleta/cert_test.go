package walleta_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/md5"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	walleta "github.com/paygate/gateway/provider/walleta"
	walletasim "github.com/paygate/gateway/web/sandbox/walleta"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/rsakey"
)

// atv is one attribute of a distinguished name, with its DER string tag.
type atv struct {
	oid asn1.ObjectIdentifier
	tag int
	val string
}

var (
	oidC     = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidO     = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidOU    = asn1.ObjectIdentifier{2, 5, 4, 11}
	oidCN    = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidSN    = asn1.ObjectIdentifier{2, 5, 4, 5}
	oidEmail = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
)

// rawName is a DER Name with the RDNs in the order given (Go's pkix.Name
// would put them in its own order).
func rawName(t *testing.T, rdns ...atv) []byte {
	t.Helper()
	type attr struct {
		Type  asn1.ObjectIdentifier
		Value asn1.RawValue
	}
	var seq []asn1.RawValue
	for _, a := range rdns {
		set, err := asn1.MarshalWithParams([]attr{{a.oid, asn1.RawValue{Tag: a.tag, Bytes: []byte(a.val)}}}, "set")
		if err != nil {
			t.Fatal(err)
		}
		seq = append(seq, asn1.RawValue{FullBytes: set})
	}
	der, err := asn1.Marshal(seq)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// ca is a certificate authority whose subject DER is exactly name.
type ca struct {
	cert *x509.Certificate
	key  crypto.Signer
	pem  string
}

func newCA(t *testing.T, name []byte, ec bool) ca {
	t.Helper()
	var key crypto.Signer
	var err error
	if ec {
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	} else {
		key, err = rsakey.ParsePrivate(freshKeyPEM(t))
	}
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), RawSubject: name, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return ca{cert: c, key: key, pem: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))}
}

// issue is a certificate for pubPEM's key with serial, issued by c.
func (c ca) issue(t *testing.T, pubPEM string, serial *big.Int) string {
	t.Helper()
	pub, err := rsakey.ParsePublic(pubPEM)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: "app"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, pub, c.key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// sn is the provider's serial, from the issuer's name written out by hand.
func sn(issuer string, serial *big.Int) string {
	sum := md5.Sum([]byte(issuer + serial.String()))
	return hex.EncodeToString(sum[:])
}

// TestCertSN: the serial is MD5 of the issuer name as the provider's Java
// SDK writes it (RDNs last first, in the certificate's order, Java's
// keywords, other attributes as OID=#DER, RFC 2253 escapes) and the serial
// number in decimal.
func TestCertSN(t *testing.T) {
	email := "ca@example.com"
	tests := []struct {
		name   string
		issuer []atv
		want   string
	}{
		{"usual order", []atv{{oidC, asn1.TagPrintableString, "CN"}, {oidO, asn1.TagUTF8String, "Test Financial"},
			{oidOU, asn1.TagUTF8String, "Certification Authority"}, {oidCN, asn1.TagUTF8String, "Test Class 2 R1"}},
			"CN=Test Class 2 R1,OU=Certification Authority,O=Test Financial,C=CN"},
		{"certificate's own order", []atv{{oidCN, asn1.TagUTF8String, "Root"}, {oidO, asn1.TagUTF8String, "Org"}, {oidC, asn1.TagPrintableString, "CN"}},
			"C=CN,O=Org,CN=Root"},
		{"escapes and attributes without a keyword", []atv{{oidO, asn1.TagUTF8String, "A=B, Inc #1 "},
			{oidSN, asn1.TagPrintableString, "123"}, {oidEmail, asn1.TagIA5String, email}},
			"1.2.840.113549.1.9.1=#160e" + hex.EncodeToString([]byte(email)) + ",2.5.4.5=#1303313233,O=A\\=B\\, Inc \\#1\\ "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCA(t, rawName(t, tt.issuer...), false)
			serial, _ := new(big.Int).SetString("4011081001712846557", 10)
			got, err := walleta.CertSN(c.issue(t, walleta.SandboxAppPublicPEM, serial))
			if err != nil {
				t.Fatal(err)
			}
			if want := sn(tt.want, serial); got != want {
				t.Fatalf("CertSN = %s, want %s (md5 of %q + serial)", got, want, tt.want)
			}
		})
	}
}

// TestRootCertSN: the root file's serial joins the RSA-signed roots'
// serials by "_" in file order and leaves the others out.
func TestRootCertSN(t *testing.T) {
	a := newCA(t, rawName(t, atv{oidCN, asn1.TagUTF8String, "Root A"}), false)
	ec := newCA(t, rawName(t, atv{oidCN, asn1.TagUTF8String, "Root EC"}), true)
	b := newCA(t, rawName(t, atv{oidCN, asn1.TagUTF8String, "Root B"}), false)
	got, err := walleta.RootCertSN(a.pem + ec.pem + b.pem)
	if err != nil {
		t.Fatal(err)
	}
	if want := sn("CN=Root A", big.NewInt(1)) + "_" + sn("CN=Root B", big.NewInt(1)); got != want {
		t.Fatalf("RootCertSN = %s, want %s", got, want)
	}
	if _, err := walleta.RootCertSN(ec.pem); err == nil {
		t.Fatal("a root file without an RSA-signed root has a serial")
	}
}

// certAccount is a certificate-mode account: its configuration pieces and
// the serials the provider has on file for them, written by hand.
type certAccount struct {
	appCert, providerCert, roots string
	appSN, providerSN, rootSN    string
}

// newCertAccount issues the certificates; n makes the serials (n+1, n+2)
// and the root's name ("Test Root n"), so two accounts differ.
func newCertAccount(t *testing.T, n int64) certAccount {
	t.Helper()
	issuer := "CN=Test Class 2 R1,OU=Certification Authority,O=Test Financial,C=CN"
	c := newCA(t, rawName(t, atv{oidC, asn1.TagPrintableString, "CN"}, atv{oidO, asn1.TagUTF8String, "Test Financial"},
		atv{oidOU, asn1.TagUTF8String, "Certification Authority"}, atv{oidCN, asn1.TagUTF8String, "Test Class 2 R1"}), false)
	rootName := "Test Root " + big.NewInt(n).String()
	root := newCA(t, rawName(t, atv{oidCN, asn1.TagUTF8String, rootName}), false)
	ec := newCA(t, rawName(t, atv{oidCN, asn1.TagUTF8String, "Test Root EC"}), true)
	return certAccount{
		appCert: c.issue(t, walleta.SandboxAppPublicPEM, big.NewInt(n+1)), appSN: sn(issuer, big.NewInt(n+1)),
		providerCert: c.issue(t, walleta.SandboxProviderPublicPEM, big.NewInt(n+2)), providerSN: sn(issuer, big.NewInt(n+2)),
		roots: root.pem + ec.pem, rootSN: sn("CN="+rootName, big.NewInt(1)),
	}
}

func (ac certAccount) config(base string) walleta.Config {
	cfg := walleta.SandboxConfig(base)
	cfg.ProviderPublicKeyPEM = ""
	cfg.AppCertPEM, cfg.ProviderCertPEM, cfg.RootCertPEM = ac.appCert, ac.providerCert, ac.roots
	cfg.CertParamPrefix = "wa_"
	return cfg
}

// TestCertificateMode: against a simulator in certificate mode, an adapter
// in certificate mode sends the serials the provider has on file and
// verifies answers and notifications with the provider certificate's key;
// a public-key-mode adapter, or one with another app or root certificate,
// is refused.
func TestCertificateMode(t *testing.T) {
	ac := newCertAccount(t, 100)
	h := newHarnessWith(t, func(c *walletasim.SimConfig) {
		c.AppCertSN, c.RootCertSN, c.ProviderCertSN, c.CertParamPrefix = ac.appSN, ac.rootSN, ac.providerSN, "wa_"
	})
	simBase := h.base + "/sandbox/provider/wallet_a"
	h.adapter = newAdapter(t, ac.config(simBase))
	p := h.payment("P-cert", 12345, "CNY")
	init, err := h.adapter.Initialise(t.Context(), p)
	if err != nil {
		t.Fatalf("Initialise in certificate mode: %v", err)
	}
	settle(t, h, init.Ref, true)
	if r := h.got.Next(t); r.err != nil {
		t.Fatalf("notification in certificate mode: %v", r.err)
	} else {
		checkPaid(t, r.n, p.OrderID, "123.45", "CNY")
	}
	other := newCertAccount(t, 200) // same keys, other certificates
	tests := []struct {
		name string
		cfg  func() walleta.Config
	}{
		{"public-key mode", func() walleta.Config { return walleta.SandboxConfig(simBase) }},
		{"other app certificate", func() walleta.Config { c := ac.config(simBase); c.AppCertPEM = other.appCert; return c }},
		{"other root certificates", func() walleta.Config { c := ac.config(simBase); c.RootCertPEM = other.roots; return c }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAdapter(t, tt.cfg())
			if _, err := a.Initialise(t.Context(), h.payment("P-cert-"+strings.ReplaceAll(tt.name, " ", "-"), 100, "CNY")); !errors.Is(err, provider.ErrRefused) {
				t.Fatalf("Initialise = %v, want ErrRefused", err)
			}
		})
	}
	t.Run("answer signed under another provider certificate", func(t *testing.T) {
		c := ac.config(simBase)
		// a provider certificate of another key: the provider has moved on
		c.ProviderCertPEM = newCA(t, rawName(t, atv{oidCN, asn1.TagUTF8String, "X"}), false).issue(t, walleta.SandboxAppPublicPEM, big.NewInt(7))
		_, err := newAdapter(t, c).Initialise(t.Context(), h.payment("P-cert-newcert", 100, "CNY"))
		if !errors.Is(err, provider.ErrSignature) || !strings.Contains(err.Error(), ac.providerSN) {
			t.Fatalf("Initialise = %v, want ErrSignature naming the answer's certificate %s", err, ac.providerSN)
		}
	})
}

// TestCertConfigValidate: certificate mode takes all three certificates,
// an app certificate for the app key, and the provider key from its
// certificate only.
func TestCertConfigValidate(t *testing.T) {
	ac := newCertAccount(t, 100)
	tests := []struct {
		name   string
		change func(*walleta.Config)
		want   string
	}{
		{"complete", func(*walleta.Config) {}, ""},
		{"provider key twice", func(c *walleta.Config) { c.ProviderPublicKeyPEM = walleta.SandboxProviderPublicPEM }, "certificate mode"},
		{"no root", func(c *walleta.Config) { c.RootCertPEM = "" }, "root certificate"},
		{"no provider certificate", func(c *walleta.Config) { c.ProviderCertPEM = "" }, "provider certificate"},
		{"app certificate of another key", func(c *walleta.Config) { c.AppCertPEM = ac.providerCert }, "not for the app private key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ac.config("http://sim.example")
			tt.change(&c)
			err := c.Validate()
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Validate = %v, want %q", err, tt.want)
			}
		})
	}
}
