package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/node/httpapi"
)

func newRateCmd() *cobra.Command {
	var af apiFlags
	cmd := &cobra.Command{
		Use:   "rate AGENT STARS",
		Short: "Rate an agent from 1 to 5 stars (kept by this node, used in ranking)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			stars, err := strconv.Atoi(args[1])
			if err != nil || stars < 1 || stars > 5 {
				return fmt.Errorf("STARS must be a whole number from 1 to 5, got %q", args[1])
			}
			c, err := af.client(cmd)
			if err != nil {
				return err
			}
			raw, err := c.Do(cmd.Context(), "POST", "/v1/ratings", map[string]any{"agent": args[0], "stars": stars})
			if err != nil {
				return err
			}
			if af.json {
				return printJSON(cmd.OutOrStdout(), raw)
			}
			var out httpapi.RateResponse
			if err := decodeInto(raw, &out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rated %s %d/5 (mean %.2f over %d ratings)\n", args[0], stars, out.RatingMean, out.RatingCount)
			return nil
		},
	}
	af.register(cmd)
	return cmd
}
