package chaos

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Failure is one failed request of the load and why it failed, as the
// client saw it. Gateway logs cannot say why a request failed when the
// gateway never saw the failure (a client time-out, a refused connection),
// so every failure is kept with its reason.
type Failure struct {
	At       time.Time `json:"at"`
	Scenario string    `json:"scenario"`
	Op       string    `json:"op"`     // create, sandbox pay, balance create, balance transfer, query
	Reason   string    `json:"reason"` // a Reason* or "status NNN"
	Status   int       `json:"status,omitempty"`
	TookMS   int64     `json:"took_ms"` // from sending to the failure
	Detail   string    `json:"detail"`  // the error, with the answer's body when there was one
}

// The reasons of a failure without an HTTP answer.
const (
	ReasonTimeout     = "time-out"           // the client's own time-out: the gateway may still have answered later
	ReasonRefused     = "connection refused" // nothing listening: the process is down
	ReasonReset       = "connection reset"
	ReasonEOF         = "connection closed" // closed before a whole answer (EOF)
	ReasonIdleClosed  = "server closed idle connection"
	ReasonNoLocalPort = "no local port" // EADDRNOTAVAIL: the client's ephemeral ports are spent
	ReasonOther       = "other"
)

// statusError is a request the gateway answered, with the wrong status.
type statusError struct {
	step   string
	status int
	body   string
}

func (e *statusError) Error() string { return fmt.Sprintf("%s: %d %s", e.step, e.status, e.body) }

// snippet is the start of an answer's body, for a failure's detail.
func snippet(b string) string {
	b = strings.TrimSpace(b)
	if len(b) > 200 {
		b = b[:200] + "…"
	}
	return b
}

// reasonOf classifies a failed request's error.
func reasonOf(err error) (reason string, status int) {
	var se *statusError
	var ne net.Error
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("status %d", se.status), se.status
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return ReasonTimeout, 0
	case errors.Is(err, syscall.ECONNREFUSED):
		return ReasonRefused, 0
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return ReasonReset, 0
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return ReasonNoLocalPort, 0
	case strings.Contains(err.Error(), "server closed idle connection"): // net/http's error is unexported
		return ReasonIdleClosed, 0
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ReasonEOF, 0
	}
	return ReasonOther, 0
}

// failureLog writes every failure as one JSON line, as it happens, so a
// run that is killed still leaves what it saw.
type failureLog struct {
	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

// openFailureLog creates path ("": no file, the counts only).
func openFailureLog(path string) (*failureLog, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("failed-requests file: %w", err)
	}
	w := bufio.NewWriter(f)
	return &failureLog{f: f, w: w, enc: json.NewEncoder(w)}, nil
}

func (fl *failureLog) write(f Failure) {
	if fl == nil {
		return
	}
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if err := fl.enc.Encode(f); err != nil && fl.err == nil {
		fl.err = err
	}
}

// flush writes what is buffered (at the end of each scenario).
func (fl *failureLog) flush() error {
	if fl == nil {
		return nil
	}
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return errors.Join(fl.err, fl.w.Flush())
}

// Close flushes and closes the file.
func (fl *failureLog) Close() error {
	if fl == nil {
		return nil
	}
	return errors.Join(fl.flush(), fl.f.Close())
}

// reasonsLine is a scenario's failures counted by kind of request and
// reason, most first: "query time-out 4, create status 500 120".
func reasonsLine(reasons map[string]int) string {
	if len(reasons) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if reasons[a] != reasons[b] {
			return reasons[b] - reasons[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, reasons[k])
	}
	return strings.Join(parts, ", ")
}
