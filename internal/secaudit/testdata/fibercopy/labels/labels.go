// Package labels is the other package a planted handler hands its values
// to: the check follows a call pkg.F into it.
package labels

import "github.com/prometheus/client_golang/prometheus"

// Count counts under kind.
func Count(v *prometheus.CounterVec, kind string) {
	v.WithLabelValues(kind).Inc() // want
}

// CountPrefixed counts under a new string made from kind.
func CountPrefixed(v *prometheus.CounterVec, kind string) {
	v.WithLabelValues("kind:" + kind).Inc()
}
