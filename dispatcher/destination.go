package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// ErrBadDestination is a webhook URL CheckDestination refuses; the error
// wrapping it says why in words a merchant may read.
var ErrBadDestination = errors.New("webhook URL refused")

// Destinations checks a webhook URL by the dispatcher's address rules
// before it is stored (the console's default callback URL), so that a
// merchant learns at once what every attempt would be refused for. The
// dispatcher still checks at every connection: a name that resolves well
// today and to our network tomorrow gains nothing.
type Destinations struct {
	g *guardedDialer
}

// NewDestinations checks under allowPrivate (the dispatcher's
// GATEWAY_WEBHOOK_ALLOW_PRIVATE) with the system resolver.
func NewDestinations(allowPrivate bool) *Destinations {
	return &Destinations{g: &guardedDialer{allowPrivate: allowPrivate, resolver: net.DefaultResolver}}
}

// lookupTimeout bounds the name lookup of one check.
const lookupTimeout = 5 * time.Second

// Check accepts an absolute http or https URL whose host resolves, and
// only to addresses a webhook may go to. A host that is an address is
// judged without a lookup.
func (d *Destinations) Check(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return fmt.Errorf("%w: not an http or https URL without credentials", ErrBadDestination)
	}
	host := strings.ToLower(u.Hostname())
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
		defer cancel()
		if addrs, err = d.g.resolve(lctx, host); err != nil || len(addrs) == 0 {
			return fmt.Errorf("%w: the host %s does not resolve", ErrBadDestination, clipHost(host))
		}
	}
	for _, a := range addrs {
		if r := d.g.why(a); r != "" {
			return fmt.Errorf("%w: %s", ErrBadDestination, (&RefusedError{Reason: r}).Public())
		}
	}
	return nil
}
