// Package fiatpsp is the sandbox's simulated fiatpsp provider: its payment
// systems, order creation and order list API, its payment page and its
// notifications, with the family's own wire types and signing
// (provider/fiatpsp).
package fiatpsp
