// Package console is the merchant console under /console on the public
// listener: overview charts, order search and export, an order's
// detail and timeline with the actions the person's role allows, and the
// live orders feed. It stands on frame (sessions, CSRF, layout) and reads
// through the query side's own types; its writes go through a small
// Actions interface the gateway binds to the command side, and every write
// is appended to the audit log.
package console
