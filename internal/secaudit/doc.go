// Package secaudit holds the repository-wide security checks that read the
// source itself rather than run it: today, that every comparison of a
// secret (a signature, an API or query key, a webhook or provider secret, a
// password, a token) is made in constant time. It has no code of its own;
// its test walks the module's Go files with go/ast, so a new `==` between
// sign strings fails `make test` instead of waiting for a reviewer.
package secaudit
