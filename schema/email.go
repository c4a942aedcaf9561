package schema

import "strings"

// NormalEmail is the form an e-mail address is searched by: trimmed and in
// lower case, so "Ann@Example.com " finds the order of "ann@example.com".
// The projector files orders under it (order_emails) and the search looks
// it up the same way; both call this one function so they cannot disagree.
// Lower-casing the local part is looser than RFC 5321 allows, and what every
// payer and support desk expects.
func NormalEmail(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}
