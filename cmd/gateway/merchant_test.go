package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
)

// TestSetPasswordCommand: the password comes from standard input only, and
// the account can then log in with it and with nothing else.
func TestSetPasswordCommand(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.Redis(t)
	url := testenv.RedisURLFor(rdb)
	st := merchant.NewStore(rdb)
	acct, err := st.Create(ctx, merchant.NewAccount{Name: "payer"})
	if err != nil {
		t.Fatal(err)
	}
	cli := func(stdin string, args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := merchantCmd(ctx, append([]string{"set-password"}, append(args, "--redis-url", url)...), strings.NewReader(stdin), &out, &errOut)
		return out.String(), err
	}
	tests := []struct {
		name, stdin string
		args        []string
		wantErr     string
		works       string // the password that checks afterwards
	}{
		{"one line", "first password\n", []string{acct.AppID, "--json"}, "", "first password"},
		{"CRLF and no more", "second password\r\nthird line\n", []string{acct.AppID}, "", "second password"},
		{"no newline", "third password", []string{acct.AppID}, "", "third password"},
		{"password in argv", "", []string{acct.AppID, "fourth password"}, "want APPID, got 2 argument(s)", "third password"},
		{"empty stdin", "", []string{acct.AppID}, "standard input", "third password"},
		{"too short", "short\n", []string{acct.AppID}, "10 to 128 bytes", "third password"},
		{"too long", strings.Repeat("p", 200) + "\n", []string{acct.AppID}, "10 to 128 bytes", "third password"},
		{"unknown account", "fifth password\n", []string{"424242"}, "not found", "third password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := cli(tt.stdin, tt.args...)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err %v, want %q", err, tt.wantErr)
			}
			if strings.Contains(out, "password\n") || strings.Contains(out, tt.stdin) && tt.stdin != "" {
				t.Fatalf("the output echoes the password: %q", out)
			}
			if _, err := st.CheckPassword(ctx, acct.AppID, tt.works); err != nil {
				t.Fatalf("%q does not check: %v", tt.works, err)
			}
			if refused := strings.TrimSpace(tt.stdin); tt.wantErr != "" && refused != "" {
				if _, err := st.CheckPassword(ctx, acct.AppID, refused); !errors.Is(err, merchant.ErrBadCredentials) {
					t.Fatalf("the refused %q checks: %v", refused, err)
				}
			}
		})
	}
}
