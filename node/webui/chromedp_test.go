package webui_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/adpnode/adpnode/internal/polltest"
)

// updateDocs rewrites the screenshots under docs/ that the README shows.
var updateDocs = flag.Bool("update-docs", false, "write the 1440 px screenshots to docs/")

// browserTimeout bounds each wait on the page.
const browserTimeout = 30 * time.Second

// chromium returns the path of a headless-capable Chromium. Under CI the
// test fails without one; elsewhere it skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium found (install Debian's chromium package; .ci/run does)")
	}
	t.Skip("no Chromium found: install the chromium package to run the browser test")
	return ""
}

// browser starts a headless Chromium and returns a tab's context and the
// console: every console error and uncaught exception the page reports.
func browser(t *testing.T, exe string) (context.Context, *console) {
	t.Helper()
	profile, err := os.MkdirTemp("", "adpnode-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.UserDataDir(profile),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true), chromedp.WindowSize(1440, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf), chromedp.WithErrorf(func(format string, args ...any) {
		if msg := fmt.Sprintf(format, args...); !strings.Contains(msg, "unhandled") { // events newer than the protocol package
			t.Logf("chromedp: %s", msg)
		}
	}))
	t.Cleanup(func() {
		if err := chromedp.Cancel(ctx); err != nil {
			t.Logf("close Chromium: %v", err)
		}
		cancelTab()
		cancelAlloc()
		// Chromium's helpers may still be writing the profile: best effort.
		if err := os.RemoveAll(profile); err != nil {
			t.Logf("remove Chromium profile: %v", err)
		}
	})
	con := &console{}
	chromedp.ListenTarget(ctx, con.listen)
	if err := chromedp.Run(ctx, log.Enable(), runtime.Enable()); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx, con
}

// console collects what the page reports as errors.
type console struct {
	mu   sync.Mutex
	errs []string
}

func (c *console) listen(ev any) {
	var msg string
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type != runtime.APITypeError && e.Type != runtime.APITypeAssert {
			return
		}
		var parts []string
		for _, a := range e.Args {
			parts = append(parts, string(a.Value)+a.Description)
		}
		msg = "console." + string(e.Type) + ": " + strings.Join(parts, " ")
	case *runtime.EventExceptionThrown:
		msg = "exception: " + e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			msg += " " + e.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if e.Entry.Level != log.LevelError {
			return
		}
		msg = "log: " + e.Entry.Text + " " + e.Entry.URL
	default:
		return
	}
	c.mu.Lock()
	c.errs = append(c.errs, msg)
	c.mu.Unlock()
}

func (c *console) errors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errs...)
}

// eval polls a JavaScript expression until check accepts its value.
func eval[T any](t *testing.T, ctx context.Context, what, expr string, check func(T) error) T {
	t.Helper()
	var v T
	polltest.Until(t, browserTimeout, func() error {
		var got T
		if err := run(ctx, chromedp.Evaluate(expr, &got)); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		v = got
		if err := check(got); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	})
	return v
}

// run runs actions on the tab, bounded by browserTimeout.
func run(tab context.Context, actions ...chromedp.Action) error {
	ctx, cancel := context.WithTimeout(tab, browserTimeout)
	defer cancel()
	return chromedp.Run(ctx, actions...)
}

// view switches the page to a view as a link would (no reload).
func view(hash string) chromedp.Action {
	return chromedp.Evaluate(`location.hash = `+strconv.Quote(hash), nil)
}

// shoot writes screenshots of the page at 375 and 1440 px wide under dir,
// and one of the whole page at 1440 px under docs/ when -update-docs is
// set.
func shoot(t *testing.T, ctx context.Context, dir, page string) {
	t.Helper()
	for _, w := range []int64{375, 1440} {
		var png []byte
		if err := run(ctx, chromedp.EmulateViewport(w, 900), chromedp.CaptureScreenshot(&png)); err != nil {
			t.Fatalf("screenshot %s at %d px: %v", page, w, err)
		}
		var overflow bool
		if err := run(ctx, chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth + 1`, &overflow)); err != nil || overflow {
			t.Errorf("%s at %d px scrolls sideways (%v)", page, w, err)
		}
		name := filepath.Join(dir, fmt.Sprintf("webui-%s-%d.png", page, w))
		if err := os.WriteFile(name, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s (%d bytes)", name, len(png))
		if *updateDocs && w == 1440 {
			// The whole page, below the fold too: a viewport as tall as it.
			var height int64
			if err := run(ctx, chromedp.Evaluate(`document.documentElement.scrollHeight`, &height)); err != nil {
				t.Fatal(err)
			}
			if err := run(ctx, chromedp.EmulateViewport(w, max(height, 900)), chromedp.CaptureScreenshot(&png),
				chromedp.EmulateViewport(w, 900)); err != nil {
				t.Fatalf("whole-page screenshot %s: %v", page, err)
			}
			if err := os.WriteFile(filepath.Join("..", "..", "docs", "webui-"+page+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
