package epay

import (
	"errors"

	"github.com/paygate/gateway/platform"
)

// api.php's answer codes, the reference implementation's: 1 is success,
// every refusal negative (docs/epay-api.md).
const (
	APICodeOK      = 1
	APICodeRefused = -1 // the order, the amount or a rule refuses the call
	APICodeAuth    = -3 // pid unknown or key wrong
	APICodeNoOrder = -4 // neither trade_no nor out_trade_no was given
	APICodeNoAct   = -5 // act is none of query, order, orders, refund
)

// APIError is an api.php refusal: the protocol's code and a message the
// merchant may read (never our internals).
type APIError struct {
	Code int
	Msg  string
	Err  error // the domain error behind it, for our log
}

func (e *APIError) Error() string { return e.Msg }

func (e *APIError) Unwrap() error { return e.Err }

// apiRefused is a -1 with msg.
func apiRefused(msg string) *APIError { return &APIError{Code: APICodeRefused, Msg: msg} }

// fromAPIDomain is a use case's refusal as api.php answers it: -1 with
// the domain error's public message. An error of no kind, or one of ours
// (internal, unavailable), stays an error: the door answers 500.
func fromAPIDomain(err error) error {
	var rl *platform.RateLimited
	if errors.As(err, &rl) {
		return &APIError{Code: APICodeRefused, Msg: "too many requests; retry after " + rl.RetryAfterSeconds() + " s", Err: err}
	}
	var pe *platform.Error
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Kind {
	case platform.KindInternal, platform.KindUnavailable:
		return err
	case platform.KindNotFound:
		return &APIError{Code: APICodeRefused, Msg: "order does not exist", Err: err}
	}
	return &APIError{Code: APICodeRefused, Msg: pe.Msg, Err: err}
}
