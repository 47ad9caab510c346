package main

import (
	"strings"
	"testing"
)

// TestUIPrintsViewURL: `adpnode ui` prints the URL of the node's web view
// and opens nothing without a display; it fails when no node answers.
func TestUIPrintsViewURL(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	api := hostileAPI(t)
	out, _, err := runCLI(t, "", "ui", "--api-url", api)
	if err != nil || strings.TrimSpace(out) != api+"/" {
		t.Fatalf("adpnode ui = %q, %v; want %q", out, err, api+"/")
	}
	if _, _, err := runCLI(t, "", "ui", "--data-dir", t.TempDir()); err == nil || !strings.Contains(err.Error(), "no running node") {
		t.Fatalf("adpnode ui without a node: %v", err)
	}
}
