// Package planted holds request values that outlive their handler (lines
// marked "want") and the same shapes made safe (no mark): the fiber-copy
// check must flag exactly the marked lines.
package planted

import (
	"strings"
	"unsafe"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"example.test/planted/labels"
)

type handler struct {
	byFamily *prometheus.CounterVec
	labels   *prometheus.CounterVec
	seen     map[string]int
	last     string
	lastBody []byte
	req      *record
	jobs     chan string
	cache    syncMap
}

type record struct{ Path, Family string }

type syncMap interface{ Store(k, v any) }

var global = map[string]string{}

// The case that broke /metrics: a Params value as a label, through a helper.
func (h *handler) notify(c *fiber.Ctx) error {
	family := Method(c.Params("family"))
	h.count(family, "applied")
	return nil
}

func (h *handler) count(family Method, verdict string) {
	h.byFamily.WithLabelValues(string(family), verdict).Inc() // want
}

type Method string

func (h *handler) labelsDirect(c *fiber.Ctx) error {
	h.labels.WithLabelValues(c.Query("kind")).Inc()                               // want
	h.labels.With(prometheus.Labels{"kind": strings.TrimSpace(c.Get("X"))}).Inc() // want
	h.labels.WithLabelValues(strings.Clone(c.Query("kind"))).Inc()
	h.labels.WithLabelValues(utils.CopyString(c.Params("id"))).Inc()
	h.labels.WithLabelValues(string(c.Request().Header.Peek("X-Kind"))).Inc()
	h.labels.WithLabelValues(c.Route().Path).Inc()
	return nil
}

func (h *handler) maps(c *fiber.Ctx) error {
	id := c.Params("id")
	h.seen[id]++               // want
	global["k"] = c.Query("q") // want
	h.cache.Store(id, 1)       // want
	own := map[string]string{}
	own[id] = c.Query("q") // a local map dies with the handler
	key := strings.Clone(id)
	h.seen[key]++
	return nil
}

func (h *handler) fields(c *fiber.Ctx) error {
	h.last = c.FormValue("name") // want
	h.lastBody = c.Body()        // want
	r := &record{Path: c.Params("*")}
	r.Family = c.Params("family") // r is the handler's own
	h.req = r                     // want
	h.lastBody = append([]byte(nil), c.Body()...)
	h.last = string(c.Body())
	h.last = c.Query("a") + "-" + c.Query("b") // concatenation is a new string
	h.last = c.Query("a") + ""                 // want
	return nil
}

func (h *handler) goroutines(c *fiber.Ctx) error {
	tok := c.Cookies("session")
	go h.use(tok) // want
	go func() {   // want
		h.use(c.Get("X-Id"))
	}()
	copied := strings.Clone(tok)
	go h.use(copied)
	go func() { h.use(copied) }()
	return nil
}

func (h *handler) use(string) {}

func (h *handler) batcher(c *fiber.Ctx) error {
	h.jobs <- c.Query("job") // want
	h.jobs <- strings.Clone(c.Query("job"))
	return nil
}

// fasthttp's own values alias the same memory, callbacks' arguments too.
func (h *handler) headers(args *fasthttp.Args) {
	args.VisitAll(func(k, v []byte) {
		h.seen[string(k)]++ // string(bytes) copies
		h.lastBody = v      // want
	})
}

// A waived line says why it is safe.
func (h *handler) waived(c *fiber.Ctx) error {
	h.last = c.Query("x") // fibercopy:ok planted waiver
	return nil
}

// unsafe conversions alias the request's bytes.
func (h *handler) unsafeViews(c *fiber.Ctx) error {
	b := c.Body()
	h.last = unsafe.String(&b[0], len(b)) // want
	h.last = string(b[1:])
	return nil
}

// Into another package of the module: the label is set there.
func (h *handler) otherPackage(c *fiber.Ctx) error {
	labels.Count(h.labels, c.Query("kind"))
	labels.Count(h.labels, strings.Clone(c.Query("kind")))
	labels.CountPrefixed(h.labels, c.Query("kind"))
	return nil
}
