// Package query is the read side merchants call: GET /api/order. Single
// orders come from Redis while it holds them; listings (and archived
// orders) come from ClickHouse, filled by the projector.
package query
