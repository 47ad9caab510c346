package main

import "github.com/spf13/cobra"

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "adpnode",
		Short:         "Agent Description Protocol node: describe, find and call agents over libp2p",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newKeyCmd(), newCardCmd())
	root.AddCommand(newTestnetCmd())
	return root
}
