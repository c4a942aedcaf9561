package exchange

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// withdrawVectors are the withdrawal calls on the wire, their signatures
// computed outside the project (Python's hmac over the query string) under
// the exchange vectors' secret: the apply and a history read of an older
// window, with the parameters in the order the client sends them.
var withdrawVectors = []struct {
	name, method, path, query, signature string
	call                                 func(c *Client) error
}{
	{"apply", http.MethodPost, WithdrawPath,
		"coin=USDT&withdrawOrderId=PO1001mi3k2p0c9f1e2d3c4b5a6978&network=TRX&address=TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR&amount=60.00&timestamp=1795400102000&recvWindow=5000",
		"505324946e1da7f6312b1d1e7a33d387655815561ad4a9f8b9f1c305a5e109e3",
		func(c *Client) error {
			_, err := c.Withdraw(context.Background(), WithdrawAsk{OrderID: "PO1001mi3k2p0c9f1e2d3c4b5a6978", Network: "TRX",
				Address: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR", Amount: "60.00"})
			return err
		}},
	{"history of a window", http.MethodGet, WithdrawHistoryPath,
		"coin=USDT&withdrawOrderId=PO1001mi3k2p0c9f1e2d3c4b5a6978&startTime=1794190502000&endTime=1794795302000&timestamp=1795400102000&recvWindow=5000",
		"794030e947e8dd9ff0e146fa5aa47a9241e672d4d2c0319e1d94db83b25bd105",
		func(c *Client) error {
			to := time.UnixMilli(1795400102000).Add(-WithdrawWindow)
			_, _, err := c.Withdrawal(context.Background(), "PO1001mi3k2p0c9f1e2d3c4b5a6978", to.Add(-WithdrawWindow), to)
			return err
		}},
}

// TestWithdrawOnTheWire: each withdrawal call goes out as its vector says:
// the method, the path, the query exactly with its signature last, the key
// in its header.
func TestWithdrawOnTheWire(t *testing.T) {
	secret, _ := loadVectors(t)
	for _, v := range withdrawVectors {
		t.Run(v.name, func(t *testing.T) {
			var method, path, query, key string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				method, path, query, key = r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get(APIKeyHeader)
				if r.Method == http.MethodPost {
					_, _ = w.Write([]byte(`{"id":"7213fea8e94b4a5593d507237e5a555b"}`))
					return
				}
				_, _ = w.Write([]byte(`[]`))
			}))
			defer srv.Close()
			c := NewClient(Config{BaseURL: srv.URL, APIKey: "key-1", Secret: secret, Timeout: 10 * time.Second,
				Now: func() time.Time { return time.UnixMilli(1795400102000) }}, srv.Client())
			if err := v.call(c); err != nil {
				t.Fatal(err)
			}
			if method != v.method || path != v.path || query != v.query+"&signature="+v.signature || key != "key-1" {
				t.Errorf("sent %s %s?%s with key %q\nwant %s %s?%s&signature=%s", method, path, query, key, v.method, v.path, v.query, v.signature)
			}
		})
	}
}
