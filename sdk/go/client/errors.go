package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Error kinds the gateway answers (the error member of its error body,
// OpenAPI's ErrorKind). A program branches on Kind, never on Message.
const (
	KindInvalidRequest        = "invalid_request"
	KindMissingParameter      = "missing_parameter"
	KindInvalidParameter      = "invalid_parameter"
	KindUnsupportedMethod     = "unsupported_method"
	KindInvalidAppID          = "invalid_appid"
	KindInvalidSign           = "invalid_sign"
	KindInvalidKey            = "invalid_key"
	KindMerchantDisabled      = "merchant_disabled"
	KindClientIPMismatch      = "clientip_mismatch"
	KindOrderNotFound         = "order_not_found"
	KindConflict              = "conflict"
	KindIdempotencyMismatch   = "idempotency_mismatch"
	KindIdempotencyInProgress = "idempotency_in_progress"
	KindRefundExceedsPaid     = "refund_exceeds_paid"
	KindRefundMismatch        = "refund_mismatch"
	KindRefundNotSupported    = "refund_not_supported"
	KindInsufficientBalance   = "insufficient_balance"
	KindRateLimited           = "rate_limited"
	KindInternal              = "internal_error"
	KindProviderRefused       = "provider_refused"
	KindUnavailable           = "unavailable"
)

// Error is the gateway's refusal of a call: its HTTP status, its error
// kind and its message (safe to show). An answer that is not the gateway's
// JSON error body (a proxy's page, say) has an empty Kind.
type Error struct {
	Status  int
	Kind    string
	Message string
	// RetryAfter is the wait the gateway asked for (429, some 503s).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Kind == "" {
		return fmt.Sprintf("paygate: HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("paygate: %s (HTTP %d): %s", e.Kind, e.Status, e.Message)
}

// Temporary says whether the same call may succeed later unchanged: a
// server error, a rate limit, or an idempotent call whose first attempt
// is still running.
func (e *Error) Temporary() bool {
	return e.Status >= 500 || e.Status == http.StatusTooManyRequests || e.Kind == KindIdempotencyInProgress
}

// errorBody is the gateway's error answer: {code, error, msg}.
type errorBody struct {
	Code  int    `json:"code"`
	Error string `json:"error"`
	Msg   string `json:"msg"`
}

// apiError makes an *Error of a refused answer.
func apiError(status int, h http.Header, body []byte) *Error {
	e := &Error{Status: status, RetryAfter: retryAfter(h.Get("Retry-After"))}
	var b errorBody
	if json.Unmarshal(body, &b) == nil && b.Error != "" {
		e.Kind, e.Message = b.Error, b.Msg
		return e
	}
	e.Message = http.StatusText(status)
	return e
}

// retryAfter reads a Retry-After of seconds; a date or garbage is none.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
