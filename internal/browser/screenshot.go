package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// ScreenshotsEnv names the folder screenshots go to (`make screenshots`
// sets it to screenshots/ at the repository's root, git-ignored); a
// relative path is taken from the root, as tests run in their package's
// folder. Unset, no screenshot is taken: a full-page capture costs the
// browser more than most checks, and `make test` would take two hundred
// of them that nobody looks at.
const ScreenshotsEnv = "SCREENSHOTS_DIR"

// Screenshot saves the whole page (its full height, the viewport's width)
// as <name>-<width>.png in the screenshots folder and returns the file's
// path ("" when ScreenshotsEnv is unset). The name must be a plain file
// name such as "pay-card".
func (l Look) Screenshot(name string) string {
	l.p.t.Helper()
	if name == "" || fileName(name) != name {
		l.p.t.Fatalf("browser: screenshot name %q: want letters, digits, '.', '_' or '-' only", name)
	}
	if os.Getenv(ScreenshotsEnv) == "" {
		return ""
	}
	path, err := l.p.save(name, l.p.timeout)
	if err != nil {
		l.p.fail("screenshot %s: %v", name, err)
	}
	return path
}

// save captures the page within timeout and writes <name>-<width>.png.
func (p *tab) save(name string, timeout time.Duration) (string, error) {
	dir, err := screenshotDir()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	png, err := chromedp.Run(ctx, fullPage(p.width))
	if err != nil {
		return "", fmt.Errorf("capture: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, p.width))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// fullPage captures a PNG as wide as the viewport and as tall as the
// content, at scale 1, so the image's pixels are the page's CSS pixels.
func fullPage(width int) chromedp.Action[[]byte] {
	return func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, fmt.Errorf("layout metrics: %w", err)
		}
		height := float64(viewportHeight)
		if m.CSSContentSize != nil && m.CSSContentSize.Height > 0 {
			height = math.Ceil(m.CSSContentSize.Height)
		}
		r, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format:                page.CaptureScreenshotFormatPng,
			Clip:                  &page.Viewport{Width: float64(width), Height: height, Scale: 1},
			CaptureBeyondViewport: new(true),
			FromSurface:           new(true),
		})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
}

// screenshotDir resolves ScreenshotsEnv against the repository's root.
func screenshotDir() (string, error) {
	dir := os.Getenv(ScreenshotsEnv)
	if filepath.IsAbs(dir) {
		return dir, nil
	}
	if dir == "" { // a failed step's screenshot
		dir = "screenshots"
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, dir), nil
}

// repoRoot is the nearest folder up from the working directory that holds
// go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; set " + ScreenshotsEnv)
		}
		dir = parent
	}
}

// fileName maps s (e.g. a test's name with its subtests) to a safe file
// name.
func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
