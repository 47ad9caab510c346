package webui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/testnet"
)

// TestBrowserReadOnly drives the read-only page a node serves on its
// public server (package node/publichttp) in headless Chromium: it lists
// the network's cards, offers no invoke, and ranks a discovery through
// the public server's GET endpoint, with no console error.
func TestBrowserReadOnly(t *testing.T) {
	exe := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nw, err := testnet.NewInProcess(ctx, 3, testnet.WithDirectories(1),
		testnet.WithNodeConfig(func(i int, c *node.Config) {
			if i == 0 {
				c.PublicHTTP = "127.0.0.1:0"
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := nw.Close(); err != nil {
			t.Errorf("close testnet: %v", err)
		}
	})
	if err := nw.WaitPropagation(time.Minute); err != nil {
		t.Fatal(err)
	}
	base := nw.Node(0).PublicURL()
	tab, con := browser(t, exe)
	if err := run(tab, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(base+"/#network"),
		chromedp.WaitVisible(`body[data-ready="true"]`)); err != nil {
		t.Fatal(err)
	}
	type page struct {
		Cards   int
		Invoke  int
		Live    string
		Scope   int
		Network bool
	}
	got := eval(t, tab, "read-only network page", `({
		cards: document.querySelectorAll('#cards tbody tr[data-agent]').length,
		invoke: document.querySelectorAll('nav a[data-view="invoke"]').length,
		live: document.getElementById('live').textContent,
		network: document.querySelector('#main').dataset.view === 'network'})`, func(v page) error {
		if v.Cards != 3 || v.Invoke != 0 || v.Live != "read-only" || !v.Network {
			return fmt.Errorf("got %+v, want 3 cards, no invoke link, read-only", v)
		}
		return nil
	})
	t.Logf("read-only page: %+v", got)

	if err := run(tab, view("discover"),
		chromedp.WaitVisible(`input[name="query"]`),
		chromedp.SendKeys(`input[name="query"]`, "translate text into another language"),
		chromedp.SetValue(`input[name="min"]`, "0"),
		chromedp.Click(`form.search button[type="submit"]`)); err != nil {
		t.Fatal(err)
	}
	type results struct{ Results, Invoke, Scope int }
	eval(t, tab, "read-only discover", `({
		results: document.querySelectorAll('li.result').length,
		invoke: document.querySelectorAll('li.result a[href^="#invoke"]').length,
		scope: document.querySelectorAll('select[name="scope"]').length})`, func(v results) error {
		if v.Results < 2 || v.Invoke != 0 || v.Scope != 0 {
			return fmt.Errorf("got %+v, want ranked results with no invoke link and no scope choice", v)
		}
		return nil
	})
	if err := run(tab, chromedp.Evaluate(`location.hash = "invoke"`, nil)); err != nil {
		t.Fatal(err)
	}
	eval(t, tab, "#invoke on the read-only page", `document.querySelector('#main').dataset.view`, func(v string) error {
		if v != "network" {
			return fmt.Errorf("view %q, want network (no invoke view)", v)
		}
		return nil
	})
	if errs := con.errors(); len(errs) > 0 {
		t.Fatalf("the page reported errors:\n%s", strings.Join(errs, "\n"))
	}
}
