package merchant

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/paygate/gateway/schema"
)

// TestMethodLimits: an override is stored per method, read back with the
// account, replaced and cleared one method at a time, and every change
// bumps the version every process's directory watches.
func TestMethodLimits(t *testing.T) {
	s, mr := newStore(t)
	ctx := context.Background()
	a, err := s.Create(ctx, NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		do      func() (*Account, error)
		want    string // fmt of the account's MethodLimits
		wantErr bool
	}{
		{"none at first", func() (*Account, error) { return s.Get(ctx, a.AppID) }, "map[]", false},
		{"both bounds", func() (*Account, error) {
			return s.SetMethodLimits(ctx, a.AppID, schema.MethodWalletA, schema.AmountLimits{Min: 1_00, Max: 500_00})
		}, "map[wallet_a:{1.00 500.00}]", false},
		{"a second method, min only", func() (*Account, error) {
			return s.SetMethodLimits(ctx, a.AppID, schema.MethodBDCard, schema.AmountLimits{Min: 20_00})
		}, "map[bdcard:{20.00 0.00} wallet_a:{1.00 500.00}]", false},
		{"unbounded overrides a default", func() (*Account, error) {
			return s.SetMethodLimits(ctx, a.AppID, schema.MethodBalance, schema.AmountLimits{})
		}, "map[balance:{0.00 0.00} bdcard:{20.00 0.00} wallet_a:{1.00 500.00}]", false},
		{"replace one", func() (*Account, error) {
			return s.SetMethodLimits(ctx, a.AppID, schema.MethodWalletA, schema.AmountLimits{Max: 9_00})
		}, "map[balance:{0.00 0.00} bdcard:{20.00 0.00} wallet_a:{0.00 9.00}]", false},
		{"clear one", func() (*Account, error) { return s.ClearMethodLimits(ctx, a.AppID, schema.MethodBDCard) },
			"map[balance:{0.00 0.00} wallet_a:{0.00 9.00}]", false},
		{"min above max", func() (*Account, error) {
			return s.SetMethodLimits(ctx, a.AppID, schema.MethodWalletA, schema.AmountLimits{Min: 10_00, Max: 9_00})
		}, "", true},
		{"select is no method", func() (*Account, error) {
			return s.SetMethodLimits(ctx, a.AppID, schema.MethodSelect, schema.AmountLimits{Min: 1})
		}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := mr.Get(schema.MerchantsVersionKey)
			got, err := tt.do()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v", err)
			}
			if err != nil {
				return
			}
			if s := fmt.Sprint(got.MethodLimits); s != tt.want {
				t.Fatalf("limits %s, want %s", s, tt.want)
			}
			if after, _ := mr.Get(schema.MerchantsVersionKey); tt.name != "none at first" && after == before {
				t.Fatal("the merchants version did not move")
			}
		})
	}
	for _, do := range []func() error{
		func() error {
			_, err := s.SetMethodLimits(ctx, "999", schema.MethodWalletA, schema.AmountLimits{})
			return err
		},
		func() error { _, err := s.ClearMethodLimits(ctx, "999", schema.MethodWalletA); return err },
	} {
		if err := do(); !errors.Is(err, ErrNotFound) {
			t.Fatalf("unknown merchant: %v", err)
		}
	}
	if _, err := s.Get(ctx, "999"); !errors.Is(err, ErrNotFound) {
		t.Fatal("a method-limit change created an account")
	}
}
