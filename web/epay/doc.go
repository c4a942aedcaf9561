// Package epay is the HTTP door of the epay-compatible merchant protocol
// (package epay holds its rules): submit.php, mapi.php and api.php, each
// reading the protocol's parameters, calling one use case and writing the
// protocol's answer. It only translates; no rule lives here.
package epay
