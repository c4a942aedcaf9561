package main

import (
	"os"
	"testing"

	"github.com/paygate/gateway/internal/browser"
)

// TestMain stops the browser the payer-page tests share when the package's
// tests end, so its profile does not outlive them.
func TestMain(m *testing.M) { os.Exit(browser.Main(m)) }
