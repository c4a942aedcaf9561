// Package loadgen drives an HTTP server with pre-built requests and measures
// it the way a payment gateway's SLOs are stated: throughput at a fixed
// concurrency (closed loop) and latency percentiles at a fixed arrival rate
// (open loop).
//
// Open-loop latency is measured from each request's intended send time, not
// from when the generator got round to sending it, so a server that stalls
// is charged for every request that should have gone out meanwhile
// (coordinated omission, as wrk2 and HdrHistogram describe it). Latencies go
// into a fixed-size log-linear histogram, so a run of any length costs the
// same memory and every percentile is within 1% of the exact value.
//
// The client is fasthttp over keep-alive connections to one loopback
// address: it costs the shared 2-core machine a fraction of what net/http
// would, so the generator is not what limits the figure.
package loadgen
