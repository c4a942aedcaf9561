// Package secaudit holds the repository-wide security checks that read the
// source itself rather than run it: that every comparison of a secret (a
// signature, an API or query key, a webhook or provider secret, a password,
// a token, a MAC inside a verifier) is made in constant time; that no value
// fiber hands out (which aliases memory fasthttp reuses) is kept past its
// handler without a copy; and that our scripts' databases listen on
// loopback only. It has no code of its own; its tests walk the module's Go
// files with go/ast, so a new `==` between sign strings or an uncopied
// c.Params in a metric label fails `make test` instead of waiting for a
// reviewer. Each check also runs over planted violations in testdata/, so
// a check that stopped finding anything fails too.
package secaudit
