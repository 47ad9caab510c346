package main

import (
	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/termtext"
)

func newDescribeCmd() *cobra.Command {
	var (
		af     apiFlags
		fields []string
	)
	cmd := &cobra.Command{
		Use:   "describe AGENT",
		Short: "Ask an agent for its card (adp.describe) and print it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := af.client(cmd)
			if err != nil {
				return err
			}
			in := map[string]any{"agent": args[0]}
			if len(fields) > 0 {
				in["fields"] = fields
			}
			raw, err := c.Do(cmd.Context(), "POST", "/v1/describe", in)
			if err != nil {
				return err
			}
			if af.json {
				_, err := cmd.OutOrStdout().Write(termtext.EscapeJSON(raw))
				return err
			}
			return printCard(cmd.OutOrStdout(), raw)
		},
	}
	af.register(cmd)
	cmd.Flags().StringSliceVar(&fields, "fields", nil, "only these top-level fields (plus id and name)")
	return cmd
}
