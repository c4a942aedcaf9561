// Package schema is the contract every side of the gateway shares: the order
// record and its statuses, the method/currency table, money, the request
// signature, order ids, the Redis key layout and the stream event envelope.
//
// It does no I/O so that command, query, projector and dispatcher can agree on
// the data without importing each other.
package schema
