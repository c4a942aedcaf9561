package platform

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"time"
)

// Kind is a domain error's kind: the snake_case word merchants see in the
// "error" member and the key of the one table that picks the HTTP status.
type Kind string

const (
	KindBadRequest        Kind = "invalid_request"
	KindMissingParameter  Kind = "missing_parameter"
	KindInvalidParameter  Kind = "invalid_parameter"
	KindInvalidSignType   Kind = "invalid_sign_type"
	KindUnsupportedMethod Kind = "unsupported_method"
	KindMethodUnavailable Kind = "method_unavailable"
	KindInsufficientFunds Kind = "insufficient_balance"
	KindInvalidAppID      Kind = "invalid_appid"
	KindInvalidSign       Kind = "invalid_sign"
	KindInvalidKey        Kind = "invalid_key"
	KindBadCredentials    Kind = "bad_credentials"
	KindMerchantDisabled  Kind = "merchant_disabled"
	KindClientIPMismatch  Kind = "clientip_mismatch"
	KindForbidden         Kind = "forbidden"
	KindNotFound          Kind = "order_not_found"
	KindRouteNotFound     Kind = "not_found"
	KindMethodNotAllowed  Kind = "method_not_allowed"
	KindConflict          Kind = "conflict"
	// An Idempotency-Key reused with other parameters, or still being
	// answered by the call that first used it.
	KindIdempotencyMismatch   Kind = "idempotency_mismatch"
	KindIdempotencyInProgress Kind = "idempotency_in_progress"
	KindTooLarge              Kind = "request_too_large"
	KindRateLimited           Kind = "rate_limited"
	KindUnavailable           Kind = "unavailable"
	KindProviderRefused       Kind = "provider_refused"
	KindBelowMinimum          Kind = "below_minimum"
	KindInternal              Kind = "internal_error"
	// Refunds: more than is left to refund, a clientRefundId reused with
	// another amount, a provider family without a refund call.
	KindRefundExceeded    Kind = "refund_exceeds_paid"
	KindRefundMismatch    Kind = "refund_mismatch"
	KindRefundUnsupported Kind = "refund_not_supported"
)

// statusOf is the one table from error kinds to HTTP status.
var statusOf = map[Kind]int{
	KindBadRequest:            http.StatusBadRequest,
	KindMissingParameter:      http.StatusBadRequest,
	KindInvalidParameter:      http.StatusBadRequest,
	KindInvalidSignType:       http.StatusBadRequest,
	KindUnsupportedMethod:     http.StatusBadRequest,
	KindMethodUnavailable:     http.StatusBadRequest,
	KindInsufficientFunds:     http.StatusUnprocessableEntity,
	KindInvalidAppID:          http.StatusUnauthorized,
	KindInvalidSign:           http.StatusUnauthorized,
	KindInvalidKey:            http.StatusUnauthorized,
	KindBadCredentials:        http.StatusUnauthorized,
	KindMerchantDisabled:      http.StatusForbidden,
	KindClientIPMismatch:      http.StatusForbidden,
	KindForbidden:             http.StatusForbidden,
	KindNotFound:              http.StatusNotFound,
	KindRouteNotFound:         http.StatusNotFound,
	KindMethodNotAllowed:      http.StatusMethodNotAllowed,
	KindConflict:              http.StatusConflict,
	KindIdempotencyMismatch:   http.StatusConflict,
	KindIdempotencyInProgress: http.StatusConflict,
	KindTooLarge:              http.StatusRequestEntityTooLarge,
	KindRateLimited:           http.StatusTooManyRequests,
	KindUnavailable:           http.StatusServiceUnavailable,
	KindProviderRefused:       http.StatusBadGateway,
	KindBelowMinimum:          http.StatusBadRequest,
	KindInternal:              http.StatusInternalServerError,
	KindRefundExceeded:        http.StatusConflict,
	KindRefundMismatch:        http.StatusConflict,
	KindRefundUnsupported:     http.StatusUnprocessableEntity,
}

// Kinds is every error kind with its HTTP status: what
// the API description must name (apidoc's test holds it to this table).
func Kinds() map[Kind]int { return maps.Clone(statusOf) }

// Error is a domain error: its message is written for the merchant and is
// safe to show, unlike the wrapped cause.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
	// RetryAfter, when positive, becomes the response's Retry-After (whole
	// seconds, rounded up): a refusal of load says when to come back.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Err != nil {
		return string(e.Kind) + ": " + e.Msg + ": " + e.Err.Error()
	}
	return string(e.Kind) + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf is the kind of the domain error in err's chain, or "" when it
// holds none (an internal error): the one way callers branch on a kind,
// so none repeats the unwrapping.
func KindOf(err error) Kind {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Kind
	}
	return ""
}

// Errorf makes a domain error of kind with a merchant-facing message.
func Errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Status is the HTTP status for kind.
func Status(kind Kind) int {
	if s, ok := statusOf[kind]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// ErrorBody is DESIGN.md's error response.
type ErrorBody struct {
	Code  int    `json:"code"`
	Error string `json:"error"`
	Msg   string `json:"msg"`
}

// Classify turns any error into what the caller may see; anything that is
// not a domain error is internal and its text stays in logs. The HTTP server
// adds the router's own refusals (web/server.Classify).
func Classify(err error) ErrorBody {
	var rl *RateLimited
	if errors.As(err, &rl) {
		return ErrorBody{Code: Status(KindRateLimited), Error: string(KindRateLimited), Msg: "too many requests; retry after " + rl.RetryAfterSeconds() + "s"}
	}
	var de *Error
	if errors.As(err, &de) {
		return ErrorBody{Code: Status(de.Kind), Error: string(de.Kind), Msg: de.Msg}
	}
	return ErrorBody{Code: http.StatusInternalServerError, Error: string(KindInternal), Msg: "internal error"}
}
