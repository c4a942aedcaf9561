// Package server is the one HTTP server every door mounts on: the fiber app
// with its bounds, the error answer (DESIGN.md's body, the status taken from
// platform's one kind table), request ids and request metrics, readiness and
// draining, the client address behind trusted proxies and the per-address
// limit of the payer pages.
//
// It is the only place outside the doors (web/...) and cmd/ that knows
// fiber, so that the use cases and the platform under them hold no HTTP and
// a door is the one thing that translates a request.
package server
