// Command adpnode runs an Agent Description Protocol node.
package main

import (
	"fmt"
	"os"

	"github.com/adpnode/adpnode/internal/termtext"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		// An error may quote a peer's or an agent's text.
		fmt.Fprintln(os.Stderr, "adpnode:", termtext.EscapeLines(err.Error()))
		os.Exit(1)
	}
}
