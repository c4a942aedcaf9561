package schema

import (
	"errors"
	"net/url"
)

// MaxURLLen bounds every URL a merchant gives us (DESIGN.md).
const MaxURLLen = 2048

// CheckURL accepts an absolute http or https URL of at most MaxURLLen bytes.
func CheckURL(s string) error {
	if len(s) > MaxURLLen {
		return errors.New("must be at most 2048 characters")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an absolute http or https URL")
	}
	return nil
}
