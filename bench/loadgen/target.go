package loadgen

import (
	"time"

	"github.com/valyala/fasthttp"
)

// Target builds the requests of a run. Fill is called from many goroutines
// at once, each with its own req (already reset), and must be cheap: build
// bodies and URIs before the run, not in Fill.
type Target interface {
	// Fill sets up request number i (0, 1, 2, ...). False means there is no
	// request i: the requests are used up and the run ends early.
	Fill(i int, req *fasthttp.Request) bool
}

// TargetFunc adapts a function to Target.
type TargetFunc func(i int, req *fasthttp.Request) bool

// Fill calls f.
func (f TargetFunc) Fill(i int, req *fasthttp.Request) bool { return f(i, req) }

// Post is a Target of pre-built POST bodies to one path, one body per
// request, in order.
type Post struct {
	Path        string
	ContentType string
	Bodies      Bodies
}

// Fill implements Target.
func (p *Post) Fill(i int, req *fasthttp.Request) bool {
	if i >= p.Bodies.Len() {
		return false
	}
	req.Header.SetMethod(fasthttp.MethodPost)
	req.SetRequestURI(p.Path)
	req.Header.SetContentType(p.ContentType)
	req.SetBodyRaw(p.Bodies.At(i)) // no copy: the arena outlives the run
	return true
}

// Get is a Target of GET requests to pre-built URIs, cycling through them
// (a read can be repeated; a create cannot).
type Get struct {
	URIs []string
}

// Fill implements Target.
func (g *Get) Fill(i int, req *fasthttp.Request) bool {
	if len(g.URIs) == 0 {
		return false
	}
	req.Header.SetMethod(fasthttp.MethodGet)
	req.SetRequestURI(g.URIs[i%len(g.URIs)])
	return true
}

// Bodies holds many request bodies in one allocation, so that hundreds of
// thousands of pre-signed bodies cost the garbage collector nothing to scan.
type Bodies struct {
	arena []byte
	ends  []int
}

// Add appends a body.
func (b *Bodies) Add(body []byte) {
	b.arena = append(b.arena, body...)
	b.ends = append(b.ends, len(b.arena))
}

// Grow reserves room for n more bodies of about size bytes each.
func (b *Bodies) Grow(n, size int) {
	if free := cap(b.arena) - len(b.arena); free < n*size {
		a := make([]byte, len(b.arena), len(b.arena)+n*size)
		copy(a, b.arena)
		b.arena = a
	}
	if free := cap(b.ends) - len(b.ends); free < n {
		e := make([]int, len(b.ends), len(b.ends)+n)
		copy(e, b.ends)
		b.ends = e
	}
}

// Len is the number of bodies.
func (b *Bodies) Len() int { return len(b.ends) }

// At is body i; callers must not modify it.
func (b *Bodies) At(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.arena[start:b.ends[i]:b.ends[i]]
}

// Response is one completed request as a run's OnResponse sees it.
type Response struct {
	Index  int       // the request's number, as given to Fill
	Status int       // HTTP status, 0 on a transport error
	Body   []byte    // valid only during the call
	Start  time.Time // intended send time (open loop) or actual send time (closed loop)
	Done   time.Time
}
