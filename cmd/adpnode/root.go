package main

import "github.com/spf13/cobra"

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "adpnode",
		Short:         "Agent Description Protocol node: describe, find and call agents over libp2p",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Offline tools: keys, card files, benchmarks.
	root.AddCommand(newKeyCmd(), newCardCmd(), newBenchCmd())
	// The node and the commands that talk to a running node's API.
	root.AddCommand(
		newInitCmd(),
		newRunCmd(),
		newStatusCmd(),
		newPeersCmd(),
		newDiscoverCmd(),
		newDescribeCmd(),
		newInvokeCmd(),
		newRateCmd(),
		newAdvertiseCmd(),
		newMCPCmd(),
		newUICmd(),
	)
	card := cardCommand(root)
	card.AddCommand(newCardAPICmds()...)
	card.AddCommand(newCardConvertCmd())
	// Local testnets.
	root.AddCommand(newTestnetCmd())
	return root
}

// cardCommand returns root's `card` command, creating it when no other
// file has added one.
func cardCommand(root *cobra.Command) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == "card" {
			return c
		}
	}
	c := &cobra.Command{Use: "card", Short: "Work with Agent Cards"}
	root.AddCommand(c)
	return c
}
