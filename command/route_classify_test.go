package command

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/provider"
)

// TestClassifyCallerFailures: what provider.Caller returns for a 5xx, a
// refused connection and a time-out is told apart by the causes it marks,
// as the breaker and the timeline name them; a refusal is a keyword only
// when its text holds one.
func TestClassifyCallerFailures(t *testing.T) {
	pm, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	caller := provider.NewCaller("walleta", provider.CallerConfig{Timeout: 50 * time.Millisecond}, nil, pm,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.WriteHeader(http.StatusBadGateway)
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	call := func(url string) error {
		_, err := caller.Do(context.Background(), "create", false, func(ctx context.Context) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		})
		return err
	}
	for _, tt := range []struct {
		name, url, want string
	}{
		{"5xx", srv.URL + "/create", channel.ReasonHTTP5xx},
		{"connection refused", closed + "/create", channel.ReasonTransport},
		{"time-out", srv.URL + "/hang", channel.ReasonTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := classify(call(tt.url), nil); got.Reason != tt.want || got.FailsOver() != true {
				t.Errorf("classify = %+v, want %s", got, tt.want)
			}
		})
	}
}
