package main

import (
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/mcpserver"
)

func newMCPCmd() *cobra.Command {
	var af apiFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve a running node to an MCP host (Model Context Protocol on stdio)",
		Long: `mcp speaks the Model Context Protocol on stdin/stdout, so that an LLM host
(a desktop assistant, a coding agent) can discover and call the network's
agents through the running node named by --data-dir or --api-url. In the
host's configuration:

  {"command": "adpnode", "args": ["mcp", "--data-dir", "/home/me/.adpnode"]}

The running node also serves the same tools over Streamable HTTP at /mcp of
its local API.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A tool call may wait on an invoke for its longest timeout_ms;
			// the root --timeout is for one-shot commands.
			c, err := af.clientWithin(cmd, time.Duration(httpapi.MaxInvokeTimeoutMS)*time.Millisecond+replyMargin)
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			srv := mcpserver.New(c, mcpserver.WithLogger(log))
			defer srv.Close()
			return srv.Run(ctx, &mcp.StdioTransport{})
		},
	}
	cmd.Flags().StringVar(&af.dataDir, "data-dir", "", "data directory of the running node (default $ADPNODE_DATA_DIR or ~/.adpnode)")
	cmd.Flags().StringVar(&af.apiURL, "api-url", "", "base URL of the node's HTTP API (overrides --data-dir)")
	return cmd
}
