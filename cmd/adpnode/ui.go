package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/termtext"
)

// openTimeout bounds the desktop opener (xdg-open returns once it has
// handed the URL to the browser).
const openTimeout = 10 * time.Second

// viewURL is the URL of the web view of the node whose API is at base.
func viewURL(base string) string { return base + "/" }

func newUICmd() *cobra.Command {
	var af apiFlags
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Open the running node's web view (prints its URL)",
		Long: `Print the URL of the running node's web view (the network, discovery
and invocation pages its API serves at /) and, when a display is
available, open it in the desktop's browser with xdg-open.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := af.client(cmd)
			if err != nil {
				return err
			}
			if _, err := c.Status(cmd.Context()); err != nil {
				return fmt.Errorf("node at %s: %w", c.Base(), err)
			}
			u := viewURL(c.Base())
			fmt.Fprintln(cmd.OutOrStdout(), termtext.Escape(u))
			openInBrowser(cmd.Context(), cmd.ErrOrStderr(), u)
			return nil
		},
	}
	cmd.Flags().StringVar(&af.dataDir, "data-dir", "", "data directory of the running node (default $ADPNODE_DATA_DIR or ~/.adpnode)")
	cmd.Flags().StringVar(&af.apiURL, "api-url", "", "base URL of the node's HTTP API (overrides --data-dir)")
	return cmd
}

// openInBrowser runs xdg-open on u when a display exists; a failure is
// reported on errw, not returned: the URL is already printed.
func openInBrowser(ctx context.Context, errw io.Writer, u string) {
	if runtime.GOOS != "linux" || (os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "") {
		return
	}
	opener, err := exec.LookPath("xdg-open")
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	if err := exec.CommandContext(ctx, opener, u).Run(); err != nil {
		fmt.Fprintf(errw, "could not open a browser (%v): open the URL above\n", err)
	}
}
