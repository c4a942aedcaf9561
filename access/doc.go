// Package access keeps the accounts of the two consoles, with no HTTP in
// it: merchant console users (one merchant each; roles owner, developer,
// finance, viewer) and operators (admin, support, auditor). It sets
// passwords (argon2id, merchant.PasswordHasher), enrols and checks TOTP
// (RFC 6238, with replay refusal and single-use recovery codes), issues
// one-time setup tokens, logs people in under per-IP and per-account
// limits that fail closed, and keeps their sessions server-side in Redis
// with idle and absolute time-outs. The role → permission table (Can) is
// what the pages ask before every action.
//
// Every key is under schema.AccessPrefix (one hash tag), so each script is
// slot-local on Redis Cluster and appends its audit entry (package audit)
// to the same tag's audit stream in the same step as its change.
package access
