// Package projector copies every order event from the shard streams into
// ClickHouse for the order listing. It reads as the consumer group
// "projector", inserts in batches bounded by size and time, and acknowledges
// only what ClickHouse has confirmed: at least once, and duplicates are
// harmless because the table keeps each order's highest version.
package projector
