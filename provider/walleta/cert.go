package walleta

import (
	"crypto/md5"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// In certificate mode the provider identifies the keys of a call by the
// serial numbers of certificates, not by the keys: our app certificate's
// (app_cert_sn) and its root certificates' (the root serial parameter),
// sent with every call, and its own certificate's, named in every answer.
// A "serial" here is the provider's: the MD5, in hex, of the certificate
// issuer's distinguished name as Java's X500Principal.getName() writes it
// (RFC 2253) followed by the serial number in decimal. Computing the name
// as Java does, rather than as Go's pkix.Name.String() does (which reorders
// the attributes and names some others), is what makes our serial the one
// the provider has on file.

// CertSN is the provider's serial of the certificate in pemText (the first
// CERTIFICATE block).
func CertSN(pemText string) (string, error) {
	certs, err := pemCerts(pemText)
	if err != nil {
		return "", err
	}
	return certSN(certs[0])
}

// RootCertSN is the provider's serial of its root certificate file: the
// serials of the certificates in it that are signed with RSA (signature
// algorithm under 1.2.840.113549.1.1, as the provider's SDK tests it),
// joined by "_" in file order. The file also holds roots of other
// algorithms, which the provider leaves out.
func RootCertSN(pemText string) (string, error) {
	certs, err := pemCerts(pemText)
	if err != nil {
		return "", err
	}
	var sns []string
	for _, der := range certs {
		oid, err := signatureOID(der)
		if err != nil {
			return "", err
		}
		if !strings.HasPrefix(oid, "1.2.840.113549.1.1") {
			continue
		}
		sn, err := certSN(der)
		if err != nil {
			return "", err
		}
		sns = append(sns, sn)
	}
	if len(sns) == 0 {
		return "", errors.New("no RSA-signed certificate in the root certificate file")
	}
	return strings.Join(sns, "_"), nil
}

// CertPublicKey is the RSA public key of the certificate in pemText.
func CertPublicKey(pemText string) (*rsa.PublicKey, error) {
	certs, err := pemCerts(pemText)
	if err != nil {
		return nil, err
	}
	c, err := x509.ParseCertificate(certs[0])
	if err != nil {
		return nil, fmt.Errorf("certificate: %w", err)
	}
	pub, ok := c.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("certificate's key is not RSA")
	}
	return pub, nil
}

// pemCerts are the DER certificates of pemText, in order; at least one.
func pemCerts(pemText string) ([][]byte, error) {
	var out [][]byte
	rest := []byte(pemText)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "CERTIFICATE" {
			out = append(out, b.Bytes)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM certificate")
	}
	return out, nil
}

// signatureOID is the certificate's outer signature algorithm, read
// without parsing the rest (roots of algorithms Go does not parse are
// skipped, not refused).
func signatureOID(der []byte) (string, error) {
	var c struct {
		TBS    asn1.RawValue
		SigAlg pkix.AlgorithmIdentifier
		Sig    asn1.BitString
	}
	if _, err := asn1.Unmarshal(der, &c); err != nil {
		return "", fmt.Errorf("certificate: %w", err)
	}
	return c.SigAlg.Algorithm.String(), nil
}

func certSN(der []byte) (string, error) {
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return "", fmt.Errorf("certificate: %w", err)
	}
	name, err := rfc2253(c.RawIssuer)
	if err != nil {
		return "", err
	}
	sum := md5.Sum([]byte(name + c.SerialNumber.String()))
	return hex.EncodeToString(sum[:]), nil
}

// rfc2253Keywords are the attribute names Java's RFC 2253 form uses; any
// other attribute is written as its dotted OID and its value's DER in hex.
var rfc2253Keywords = map[string]string{
	"2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O", "2.5.4.11": "OU",
	"2.5.4.9": "STREET", "0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
}

// rfc2253 writes a DER Name as Java's X500Principal.getName() does: the
// RDNs last first, joined by ","; an RDN's attributes in their order,
// joined by "+"; string values with ,=+<>#;"\ and leading or trailing
// spaces escaped by a backslash.
func rfc2253(rawName []byte) (string, error) {
	var seq []asn1.RawValue // RDNs: SETs of AttributeTypeAndValue
	if rest, err := asn1.Unmarshal(rawName, &seq); err != nil || len(rest) > 0 {
		return "", errors.New("certificate issuer does not parse")
	}
	rdns := make([]string, 0, len(seq))
	for i := len(seq) - 1; i >= 0; i-- {
		var atvs []struct {
			Type  asn1.ObjectIdentifier
			Value asn1.RawValue
		}
		if _, err := asn1.UnmarshalWithParams(seq[i].FullBytes, &atvs, "set"); err != nil {
			return "", errors.New("certificate issuer does not parse")
		}
		parts := make([]string, 0, len(atvs))
		for _, a := range atvs {
			parts = append(parts, rfc2253ATV(a.Type.String(), a.Value))
		}
		rdns = append(rdns, strings.Join(parts, "+"))
	}
	return strings.Join(rdns, ","), nil
}

func rfc2253ATV(oid string, v asn1.RawValue) string {
	kw, ok := rfc2253Keywords[oid]
	if !ok || v.Class != asn1.ClassUniversal || !directoryString(v.Tag) {
		if !ok {
			kw = oid
		}
		return kw + "=#" + hex.EncodeToString(v.FullBytes)
	}
	return kw + "=" + escape2253(derString(v))
}

// directoryString: the string types Java writes as text (the others as hex).
func directoryString(tag int) bool {
	switch tag {
	case asn1.TagPrintableString, asn1.TagT61String, asn1.TagIA5String, asn1.TagGeneralString, asn1.TagUTF8String,
		asn1.TagBMPString, 28: // 28: UniversalString
		return true
	}
	return false
}

// derString decodes a string value: BMPString as UTF-16, UniversalString as
// UTF-32, the rest as their bytes (UTF-8 or ASCII).
func derString(v asn1.RawValue) string {
	b := v.Bytes
	switch v.Tag {
	case asn1.TagBMPString:
		r := make([]rune, 0, len(b)/2)
		for i := 0; i+1 < len(b); i += 2 {
			r = append(r, rune(b[i])<<8|rune(b[i+1]))
		}
		return string(r)
	case 28:
		r := make([]rune, 0, len(b)/4)
		for i := 0; i+3 < len(b); i += 4 {
			r = append(r, rune(b[i])<<24|rune(b[i+1])<<16|rune(b[i+2])<<8|rune(b[i+3]))
		}
		return string(r)
	}
	return string(b)
}

func escape2253(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`,=+<>#;"\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	out := b.String()
	lead := len(out) - len(strings.TrimLeft(out, " "))
	trail := len(out) - len(strings.TrimRight(out, " "))
	if lead == len(out) {
		return strings.Repeat(`\ `, lead)
	}
	return strings.Repeat(`\ `, lead) + out[lead:len(out)-trail] + strings.Repeat(`\ `, trail)
}
