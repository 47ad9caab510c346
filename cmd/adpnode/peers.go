package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/adpnode/adpnode/node/httpapi"
)

func newPeersCmd() *cobra.Command {
	var af apiFlags
	cmd := &cobra.Command{
		Use:   "peers",
		Short: "List a running node's connected peers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := af.client(cmd)
			if err != nil {
				return err
			}
			raw, err := c.Do(cmd.Context(), "GET", "/v1/peers", nil)
			if err != nil {
				return err
			}
			if af.json {
				return printJSON(cmd.OutOrStdout(), raw)
			}
			var out httpapi.PeersResponse
			if err := decodeInto(raw, &out); err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "AGENT\tDIRECTORY\tCONNECTION\tADDRESS")
			for _, p := range out.Peers {
				dir := ""
				if p.Directory {
					dir = "yes"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", termtext.Escape(p.AgentID), dir, termtext.Escape(strings.Join(p.Conns, " ")), termtext.Escape(strings.Join(p.Addrs, " ")))
			}
			return w.Flush()
		},
	}
	af.register(cmd)
	return cmd
}
