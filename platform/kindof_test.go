package platform

import (
	"errors"
	"fmt"
	"testing"
)

// TestKindOf: the kind of the domain error anywhere in the chain, "" for
// an error without one.
func TestKindOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, ""},
		{"internal", errors.New("boom"), ""},
		{"domain", Errorf(KindNotFound, "order x not found"), KindNotFound},
		{"wrapped", fmt.Errorf("read order: %w", Errorf(KindConflict, "taken")), KindConflict},
		{"joined", errors.Join(errors.New("first"), Errorf(KindRateLimited, "slow down")), KindRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KindOf(tt.err); got != tt.want {
				t.Fatalf("KindOf = %q, want %q", got, tt.want)
			}
		})
	}
}
