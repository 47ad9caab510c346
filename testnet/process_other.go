//go:build !unix

package testnet

import (
	"context"
	"errors"
	"time"
)

var errUnsupported = errors.New("testnet: node processes need a Unix system")

func launch(bin string, args, env []string, logPath string) (int, error) { return 0, errUnsupported }
func alive(pid int, dataDir string) bool                                 { return false }
func rssBytes(pid int) int64                                             { return 0 }
func stop(ctx context.Context, pid int, dataDir string, grace time.Duration) error {
	return nil
}
