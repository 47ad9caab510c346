package testnet

import (
	"errors"

	"github.com/adpnode/adpnode/internal/poll"
)

// Sentinel errors. Functions wrap them with %w; test with errors.Is.
var (
	// ErrRunning means a testnet is already running in the directory.
	ErrRunning = errors.New("testnet: a testnet is already running in this directory")
	// ErrNotRunning means the directory holds no testnet manifest.
	ErrNotRunning = errors.New("testnet: no testnet in this directory")
	// ErrNotOurs means the directory holds files that a testnet did not
	// create, so it is neither reused nor removed.
	ErrNotOurs = errors.New("testnet: directory holds files a testnet did not create")
	// ErrBadConfig reports an invalid option (node count, directory count...).
	ErrBadConfig = errors.New("testnet: invalid configuration")
	// ErrNoNode reports a node index outside the testnet.
	ErrNoNode = errors.New("testnet: no such node")
	// ErrNodeDown reports a node whose process is not running or whose API
	// does not answer.
	ErrNodeDown = errors.New("testnet: node is down")
	// ErrTimeout reports a wait that ran out of time; the message names
	// what was missing. It is poll.ErrTimeout, so that every wait of the
	// project is tested with one sentinel.
	ErrTimeout = poll.ErrTimeout
	// ErrAPI reports an error answer from a node's HTTP API.
	ErrAPI = errors.New("testnet: node API error")
)
