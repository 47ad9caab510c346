// Command adpnode runs an Agent Description Protocol node.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "adpnode:", err)
		os.Exit(1)
	}
}
