package platform

import "context"

type requestIDKey struct{}

// WithRequestID is ctx carrying the id that ties a request to its log lines;
// the HTTP server sets it, and any use case may log it without knowing HTTP.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id a context carries, if any.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
