// Package platform holds what every role of the gateway needs and no role
// owns: configuration, the error kinds and their HTTP mapping, the client IP
// rule, and the Redis and HTTP plumbing they share.
package platform
