// Package query is the read side merchants call: the use cases of
// GET /api/order (its HTTP door is web/api) and the consoles' reads. Single
// orders come from Redis while it holds them; listings (and archived
// orders) come from ClickHouse, filled by the projector.
package query
