package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Fault is how a sandbox simulator's payment creation misbehaves, so that
// a tester sees the gateway fail over to another channel and the breaker
// open: the ways a live provider account lets a gateway down.
type Fault string

// The faults. Off (or nothing stored) is a simulator that works.
const (
	FaultOff Fault = "off"
	// FaultRestricted answers the create call as the provider answers for a
	// restricted or blocked merchant account, in its own error shape and
	// words (each family's phrase is in RestrictedPhrases).
	FaultRestricted Fault = "restricted"
	// FaultHang holds the create call until the caller gives up (at most
	// HangLimit, or until the server shuts down).
	FaultHang Fault = "hang"
	// FaultReset closes the connection without an answer.
	FaultReset Fault = "reset"
)

// Faults lists every fault, off first.
func Faults() []Fault { return []Fault{FaultOff, FaultRestricted, FaultHang, FaultReset} }

// ParseFault reads a fault's name.
func ParseFault(s string) (Fault, error) {
	for _, f := range Faults() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("fault %q: want one of restricted, hang, reset, off", s)
}

// HangLimit bounds a hang: long past any caller's time-out, short enough
// that held requests never pile up for good.
const HangLimit = 30 * time.Second

// faultTTL keeps a switched fault for a month; off is stored too (it ends
// the fault at once in every process reading the state).
const faultTTL = 30 * 24 * time.Hour

// FaultKey is where the fault of the simulator mounted at path (SimPath)
// is kept in provider.State.
func FaultKey(path string) string { return "simfault:" + path }

// SetFault switches the simulator mounted at path (SimPath) to f.
func SetFault(ctx context.Context, st provider.State, path string, f Fault) error {
	if _, err := ParseFault(string(f)); err != nil {
		return err
	}
	if err := st.Put(ctx, FaultKey(path), []byte(f), faultTTL); err != nil {
		return fmt.Errorf("switch simulator fault: %w", err)
	}
	return nil
}

// FaultAt is the fault the simulator mounted at path is switched to; off
// when none was ever switched.
func FaultAt(ctx context.Context, st provider.State, path string) (Fault, error) {
	b, err := st.Get(ctx, FaultKey(path))
	if errors.Is(err, provider.ErrNotFound) {
		return FaultOff, nil
	}
	if err != nil {
		return FaultOff, fmt.Errorf("read simulator fault: %w", err)
	}
	return ParseFault(string(b))
}

// MountPath is the SimPath of a simulator from its public base address
// (PublicURL + SimPath): the part from /sandbox/provider/ on, so that a
// public URL with a path prefix names the same key as the CLI does.
func MountPath(base string) string {
	p := base
	if u, err := url.Parse(base); err == nil {
		p = u.Path
	}
	if i := strings.Index(p, "/sandbox/provider/"); i >= 0 {
		return p[i:]
	}
	return p
}

// FaultSwitch is one simulator's fault, read on each create call. Every
// simulator's create endpoint consults it first.
type FaultSwitch struct {
	st   provider.State
	path string
	log  *slog.Logger
	hold time.Duration
}

// NewFaultSwitch is the switch of the simulator mounted at base (its public
// base address).
func NewFaultSwitch(st provider.State, base string, log *slog.Logger) *FaultSwitch {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &FaultSwitch{st: st, path: MountPath(base), log: log, hold: HangLimit}
}

// Path is the SimPath the switch is keyed by.
func (f *FaultSwitch) Path() string { return f.path }

// Guard is a handler to put before a create endpoint's own: it answers
// with restricted, hangs or resets when the simulator is switched so, and
// passes on to the endpoint otherwise.
func (f *FaultSwitch) Guard(restricted fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if done, err := f.Intercept(c, restricted); done {
			return err
		}
		return c.Next()
	}
}

// Intercept applies the fault to a create call: done says the call was
// answered (or dropped) and the endpoint must not go on. A state that
// cannot be read leaves the simulator working (and is logged): a fault is
// a tester's tool, never a reason for the sandbox to break.
func (f *FaultSwitch) Intercept(c *fiber.Ctx, restricted fiber.Handler) (done bool, err error) {
	if f == nil || f.st == nil {
		return false, nil
	}
	fault, err := FaultAt(c.UserContext(), f.st, f.path)
	if err != nil {
		f.log.Warn("sandbox fault unreadable; simulator works", "path", f.path, "err", err)
		return false, nil
	}
	switch fault {
	case FaultRestricted:
		return true, restricted(c)
	case FaultHang:
		t := time.NewTimer(f.hold)
		defer t.Stop()
		select { // the server's shutdown ends the hold too
		case <-t.C:
		case <-c.Context().Done():
		}
		return true, c.SendStatus(fiber.StatusGatewayTimeout)
	case FaultReset:
		reset(c)
		return true, nil
	}
	return false, nil
}

// reset drops the connection without an answer; on TCP with a reset (no
// linger), as a provider's overloaded balancer does.
func reset(c *fiber.Ctx) {
	c.Context().HijackSetNoResponse(true)
	c.Context().Hijack(func(conn net.Conn) {
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = conn.Close()
	})
}

// RestrictedPhrases is, per method, the words of its simulator's restricted
// answer that the adapter's refusal carries: what an operator's keyword
// list names to open a channel's breaker at once (docs/channels.md,
// "Sandbox faults"). Each is the provider's own code or wording for a
// blocked or deactivated merchant account.
func RestrictedPhrases() map[schema.Method]string {
	return map[schema.Method]string{
		schema.MethodWalletA:    "SELLER_BEEN_BLOCKED",
		schema.MethodWalletB:    "NO_AUTH",
		schema.MethodCryptohost: "account has been restricted",
		schema.MethodCryptoPSP:  "Account is blocked",
		schema.MethodBDCard:     "Store is De-active",
		schema.MethodBDPSPA:     "Store is De-active",
		schema.MethodBDPSPB:     "account is suspended",
		schema.MethodFiatPSP:    "Shop is blocked",
	}
}
