package server

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/platform"
)

// HeaderRequestID carries the id that ties a request to its log lines.
const HeaderRequestID = "X-Request-Id"

// httpMetrics counts requests by route pattern (never the raw path, whose
// ids would make the label unbounded), method and status.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_http_requests_total", Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gateway_http_request_duration_seconds", Help: "HTTP request latency by route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route", "method"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_http_errors_total",
			Help: "Error answers by route pattern and error kind (invalid_sign, clientip_mismatch, invalid_appid, ...).",
		}, []string{"route", "kind"}),
	}
	reg.MustRegister(m.requests, m.duration, m.errors)
	return m
}

// observe gives every request an id (the caller's X-Request-Id when it is
// sane, else a new one), runs it, and records it; errors go through the
// error handler first so the status is the one the client gets.
func (m *httpMetrics) observe(c *fiber.Ctx) error {
	start := time.Now()
	id := sanitizeRequestID(c.Get(HeaderRequestID))
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	c.Set(HeaderRequestID, id)
	c.SetUserContext(platform.WithRequestID(c.UserContext(), id))
	err := c.Next()
	if err != nil {
		if herr := c.App().ErrorHandler(c, err); herr != nil {
			_ = c.SendStatus(fiber.StatusInternalServerError)
		}
	}
	route := "unmatched"
	if r := c.Route(); r != nil && r.Path != "/" && r.Path != "" {
		route = r.Path
	}
	if err != nil {
		m.errors.WithLabelValues(route, Classify(err).Error).Inc()
	}
	method := strings.Clone(c.Method()) // fiber's strings alias its buffers; a label outlives the request
	m.requests.WithLabelValues(route, method, strconv.Itoa(c.Response().StatusCode())).Inc()
	m.duration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
	return nil
}

// sanitizeRequestID keeps a caller's id only if it is short and plain, so
// it can go into logs and headers as it is.
func sanitizeRequestID(s string) string {
	if len(s) == 0 || len(s) > 64 {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return ""
		}
	}
	return string([]byte(s)) // copy: fiber's strings alias its buffers
}
