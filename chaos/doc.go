// Package chaos is the fault suite (`make chaos`): it runs the
// release gateway binary in separate processes with split roles against
// Redis (AOF, appendfsync always) and ClickHouse, holds a steady mixed load,
// injects faults (kill -9 of each role and of every gateway, Redis kill -9
// and restart from its AOF, ClickHouse stopped, a merchant endpoint that
// hangs, resets or answers slowly, a partition between a dispatcher and
// Redis, processes whose clocks are skewed by minutes through
// GATEWAY_CLOCK_OFFSET, see clockskew.go; and, in a world of its own on a
// Redis Cluster, kill -9 of a master, see rediscluster.go; ledger processes
// killed mid-batch again and again, then the journal audited and a planted
// double posting that its verify must catch, see ledger.go), and after each
// scenario audits Redis, ClickHouse and the webhook receiver against what
// the load was answered.
//
// The audit (audit.go) is pure: it judges a Snapshot, so its rules are unit
// tested without servers; collect.go fills a Snapshot from the real stores.
// Failing creates during a fault are allowed and counted; losing an answered
// one is not; and a scenario that did next to nothing, next to what the
// same run's baseline did, fails its activity floor (floor.go), so no rule
// passes on nothing. Every failed request of the load is kept with its
// reason (failures.go).
package chaos
