package platform

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gofiber/fiber/v2"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want ErrorBody
	}{
		{"domain", Errorf(KindInvalidSign, "sign does not match"), ErrorBody{401, "invalid_sign", "sign does not match"}},
		{"wrapped domain", fmt.Errorf("ctx: %w", Errorf(KindMerchantDisabled, "off")), ErrorBody{403, "merchant_disabled", "off"}},
		{"internal details hidden", errors.New("dial tcp 10.0.0.1:6379: refused"), ErrorBody{500, "internal_error", "internal error"}},
		{"domain error wrapping a cause hides the cause", &Error{Kind: KindUnavailable, Msg: "retry later", Err: errors.New("secret")}, ErrorBody{503, "unavailable", "retry later"}},
		{"fiber not found", fiber.ErrNotFound, ErrorBody{404, "not_found", "Not Found"}},
		{"fiber too large", fiber.ErrRequestEntityTooLarge, ErrorBody{413, "request_too_large", "Request Entity Too Large"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.want {
				t.Fatalf("Classify = %+v, want %+v", got, tt.want)
			}
		})
	}
	for kind := range statusOf {
		if Status(kind) < 400 {
			t.Errorf("kind %s maps to %d", kind, Status(kind))
		}
	}
}
