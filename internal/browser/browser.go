package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paygate/gateway/internal/testenv"
)

// ChromiumEnv names the browser binary to use instead of the one on PATH.
const ChromiumEnv = "CHROMIUM"

// candidates are the names the browser goes by on PATH: Debian's package,
// Ubuntu's, and Google's build.
var candidates = []string{"chromium", "chromium-browser", "google-chrome"}

// startTimeout bounds the browser's start. It is longer than an action's
// timeout: on a loaded 2-core machine Chromium can take seconds to start.
const startTimeout = 60 * time.Second

// Browser is one test's handle on the shared browser process; NewPage
// opens tabs in it that belong to that test (its failures, its cleanup). A
// subtest calls New with its own t: that is cheap once the browser runs.
type Browser struct {
	t   testing.TB
	ctx context.Context // the chromedp context of the shared browser
}

// shared is the one browser process of this test binary. A package-level
// value because `go test` gives no other place that outlives one test; it
// is started by the first New and stopped by Main.
var shared struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	err    error
}

// New returns the test's handle on the browser, starting it the first time.
// Where no browser is installed the test is skipped, or fails under CI=true.
func New(t testing.TB) *Browser {
	t.Helper()
	path := findChromium(t)
	shared.once.Do(func() {
		shared.ctx, shared.cancel, shared.err = start(path)
	})
	if shared.err != nil {
		t.Fatalf("browser: %v", shared.err)
	}
	return &Browser{t: t, ctx: shared.ctx}
}

// Main runs the tests and then stops the shared browser, so its profile
// directory does not outlive the run. Use it as
//
//	func TestMain(m *testing.M) { os.Exit(browser.Main(m)) }
//
// Without it the browser still dies with the test binary (the kernel kills
// it when its parent exits), but leaves its temporary profile behind.
func Main(m *testing.M) int {
	code := m.Run()
	if shared.cancel != nil {
		shared.cancel()
	}
	return code
}

// findChromium returns the browser binary: CHROMIUM when set (then it must
// work: someone asked for it), else the first candidate on PATH.
func findChromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(ChromiumEnv); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			t.Fatalf("browser: %s=%q: %v", ChromiumEnv, p, err)
		}
		return path
	}
	for _, name := range candidates {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	// Skips, or fails under CI=true, naming the package to install.
	return testenv.Tool(t, candidates[0])
}

// start launches the browser and waits until it answers. The first run on a
// chromedp context owns the process, so it gets no deadline of its own (a
// deadline there would later kill the browser); the wait is bounded here.
func start(path string) (context.Context, context.CancelFunc, error) {
	out := &tail{max: 4096}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // root in containers and CI
		chromedp.DisableGPU,
		chromedp.CombinedOutput(out),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	cancel := func() { cancelCtx(); cancelAlloc() }
	if err := firstRun(ctx, cancel, startTimeout); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w; its output:\n%s", path, err, out)
	}
	return ctx, cancel, nil
}

// firstRun makes the context's first run (which starts the browser or opens
// the tab) and gives up after d, cancelling the context.
func firstRun(ctx context.Context, cancel context.CancelFunc, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(ctx) }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			cancel()
		}
		return err
	case <-timer.C:
		cancel()
		<-done
		return errors.New("no answer within " + d.String())
	}
}

// tail keeps the last bytes the browser printed, for the message when it
// fails to start.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (w *tail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = w.buf[over:]
	}
	return len(p), nil
}

func (w *tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}
