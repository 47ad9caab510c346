package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/node/httpapi"
)

func newAdvertiseCmd() *cobra.Command {
	var af apiFlags
	cmd := &cobra.Command{
		Use:   "advertise AGENT",
		Short: "Send the node's card to another agent (adp.advertise)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := af.client(cmd)
			if err != nil {
				return err
			}
			raw, err := c.Do(cmd.Context(), "POST", "/v1/advertise", map[string]string{"agent": args[0]})
			if err != nil {
				return err
			}
			if af.json {
				return printJSON(cmd.OutOrStdout(), raw)
			}
			var out httpapi.AdvertiseResponse
			if err := decodeInto(raw, &out); err != nil {
				return err
			}
			if out.Stored {
				fmt.Fprintf(cmd.OutOrStdout(), "%s stored the card\n", args[0])
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "%s already held this card or a newer one\n", args[0])
			}
			return nil
		},
	}
	af.register(cmd)
	return cmd
}
