package exchange

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"
)

// signVector is a case of the "exchange" family of provider/testdata.
type signVector struct {
	Name, Query, Signature string
}

func loadVectors(t *testing.T) (secret string, cases []signVector) {
	t.Helper()
	b, err := os.ReadFile("../../provider/testdata/provider-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var all struct {
		Families struct {
			Exchange struct {
				Secret string
				Cases  []signVector
			}
		}
	}
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Families.Exchange.Cases) == 0 {
		t.Fatal("no exchange vectors")
	}
	return all.Families.Exchange.Secret, all.Families.Exchange.Cases
}

func TestSignVectors(t *testing.T) {
	secret, cases := loadVectors(t)
	for _, v := range cases {
		t.Run(v.Name, func(t *testing.T) {
			if got := Sign(secret, v.Query); got != v.Signature {
				t.Errorf("Sign = %s, want %s", got, v.Signature)
			}
			if !Verify(secret, v.Query, v.Signature) {
				t.Error("Verify refused the vector")
			}
			for name, q := range map[string]string{"a parameter changed": v.Query + "1", "reordered": reorder(v.Query)} {
				if Verify(secret, q, v.Signature) {
					t.Errorf("%s: Verify accepted", name)
				}
			}
			if Verify(secret+"x", v.Query, v.Signature) {
				t.Error("Verify accepted another secret")
			}
		})
	}
}

// reorder moves the first parameter to the end: the same values, another
// string.
func reorder(q string) string {
	for i := range q {
		if q[i] == '&' {
			return q[i+1:] + "&" + q[:i]
		}
	}
	return q
}

// TestClientSendsTheVector makes the client send the vector's request and
// checks the wire: the query exactly, the signature last, the key header.
func TestClientSendsTheVector(t *testing.T) {
	secret, cases := loadVectors(t)
	v := cases[0]
	want, err := url.ParseQuery(v.Query)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := strconv.ParseInt(want.Get("timestamp"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.UnixMilli(ms)
	var gotQuery, gotKey, gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery, gotKey, gotPath = r.URL.RawQuery, r.Header.Get(APIKeyHeader), r.URL.Path
		_, _ = w.Write([]byte(`[]`))
	}))
	defer srv.Close()
	c := NewClient(Config{BaseURL: srv.URL, APIKey: "key-1", Secret: secret, Timeout: 10 * time.Second, Now: func() time.Time { return ts }}, srv.Client())
	_, _ = c.Deposit(context.Background(), want.Get("network"), want.Get("txId"))
	if gotQuery != v.Query+"&signature="+v.Signature || gotKey != "key-1" || gotPath != DepositPath {
		t.Errorf("sent %s?%s with key %q\nwant %s?%s&signature=%s", gotPath, gotQuery, gotKey, DepositPath, v.Query, v.Signature)
	}
}
