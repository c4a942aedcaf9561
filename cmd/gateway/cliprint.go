package main

import (
	"fmt"
	"io"
	"strings"
)

// noRows is what every list prints in place of its table when it has
// nothing to show, the same way everywhere: "no <things>", and where it
// helps, how to make one. With --json a list prints [] instead.
func noRows(w io.Writer, things, hint string) error {
	if hint != "" {
		_, err := fmt.Fprintf(w, "no %s (%s)\n", things, hint)
		return err
	}
	_, err := fmt.Fprintf(w, "no %s\n", things)
	return err
}

// newAccountSetup is what `console-user add` and `operator add` (and
// `operator reissue`) print: the same shape for both consoles' accounts,
// with the one-time setup link that is shown only now. JSON has the same
// fields (appid only for a merchant's user).
type newAccountSetup struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	AppID     string `json:"appid,omitempty"`
	SetupLink string `json:"setupLink"`
}

func (s newAccountSetup) print(out output, what string) error {
	if out.json {
		return out.value(s)
	}
	of := ""
	if s.AppID != "" {
		of = " of merchant " + s.AppID
	}
	_, err := fmt.Fprintf(out.w, "%s %s (%s)%s: setup link (one use, 72 h; send it to the person, it is shown only now):\n%s\n",
		what, s.Email, s.Role, of, strings.TrimSpace(s.SetupLink))
	return err
}

// nonNil is s, or an empty slice where s is nil, so that an empty list
// prints as [] in JSON, not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
