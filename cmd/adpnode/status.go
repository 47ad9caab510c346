package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/adpnode/adpnode/node/nodeapi"
)

func newStatusCmd() *cobra.Command {
	var af apiFlags
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a running node's agent, addresses, peers and cards",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := af.client(cmd)
			if err != nil {
				return err
			}
			raw, err := c.Do(cmd.Context(), "GET", "/v1/status", nil)
			if err != nil {
				return err
			}
			if af.json {
				return printJSON(cmd.OutOrStdout(), raw)
			}
			var st nodeapi.Status
			if err := decodeInto(raw, &st); err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintf(w, "agent\t%s\n", termtext.Escape(st.AgentID))
			fmt.Fprintf(w, "name\t%s\n", termtext.Escape(st.Name))
			fmt.Fprintf(w, "peer id\t%s\n", termtext.Escape(st.PeerID))
			fmt.Fprintf(w, "directory\t%v\n", st.Directory)
			fmt.Fprintf(w, "peers\t%d\n", st.Peers)
			fmt.Fprintf(w, "cards\t%d of at most %d (%d bytes, %d per card)\n", st.Cards, st.MaxCards, st.CardBytes, st.CardBytesAvg)
			fmt.Fprintf(w, "card seq\t%d\n", st.Seq)
			if a := st.Agent; a != nil {
				fmt.Fprintf(w, "mcp server\t%s %s over %s, %s, %d tools, %d restarts\n", termtext.Escape(a.Server), termtext.Escape(a.Protocol), a.Transport, a.State, a.Tools, a.Restarts)
				if a.LastError != "" {
					fmt.Fprintf(w, "mcp last error\t%s\n", termtext.Escape(a.LastError))
				}
			}
			if st.Reachability != "" {
				fmt.Fprintf(w, "reachability\t%s\n", termtext.Escape(st.Reachability))
			}
			if st.HolePunching {
				fmt.Fprintf(w, "hole punching\tstarted\n")
			}
			for _, a := range st.Addrs {
				fmt.Fprintf(w, "listen\t%s\n", termtext.Escape(a))
			}
			for _, a := range st.RelayAddrs {
				fmt.Fprintf(w, "relay\t%s\n", termtext.Escape(a))
			}
			return w.Flush()
		},
	}
	af.register(cmd)
	return cmd
}
