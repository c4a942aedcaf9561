package epay

import (
	"errors"

	"github.com/paygate/gateway/platform"
)

// The protocol's answer codes (docs/epay.md). Success is CodeOK; every
// refusal is negative, and the plugins in the field only test code == 1.
const (
	CodeOK        = 1
	CodeRefused   = -1 // a parameter, the merchant or a rule refuses the call
	CodeNotPlaced = -2 // the order could not be placed with a provider
	CodeBadSign   = -3 // the sign is missing or does not verify
	CodeNoParams  = -4 // mapi.php without pid: nothing was sent
)

// Error is a refusal in the protocol's terms: its code and a message the
// merchant may read (never our internals).
type Error struct {
	Code int
	Msg  string
	Err  error // the domain error behind it, for our log
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() error { return e.Err }

func refused(msg string) *Error { return &Error{Code: CodeRefused, Msg: msg} }

// fromDomain is a use case's refusal as the protocol answers it: the
// domain error's public message, with a code by its kind. An error of no
// kind is ours (Redis, a bug) and stays an error: the door answers 500.
func fromDomain(err error) error {
	var rl *platform.RateLimited
	if errors.As(err, &rl) {
		return &Error{Code: CodeRefused, Msg: "too many requests; retry after " + rl.RetryAfterSeconds() + " s", Err: err}
	}
	var pe *platform.Error
	if !errors.As(err, &pe) {
		return err
	}
	code := CodeRefused
	switch pe.Kind {
	case platform.KindInternal, platform.KindUnavailable:
		return err
	case platform.KindMethodUnavailable, platform.KindProviderRefused:
		code = CodeNotPlaced
	}
	return &Error{Code: code, Msg: pe.Msg, Err: err}
}

// Kind is the refusal as a page answers it: 401 for the sign, 400 for the
// rest.
func (e *Error) Kind() platform.Kind {
	switch e.Code {
	case CodeBadSign:
		return platform.KindInvalidSign
	}
	return platform.KindInvalidParameter
}
