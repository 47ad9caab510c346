package node

import (
	"errors"

	"github.com/adpnode/adpnode/node/config"
	"github.com/adpnode/adpnode/node/datadir"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/nodeapi"
)

var (
	// ErrInvalidConfig reports a bad configuration value; the message names
	// it (config.ErrInvalid).
	ErrInvalidConfig = config.ErrInvalid
	// ErrNotInitialized means the data directory has no identity or card:
	// run Init (`adpnode init`) first (datadir.ErrNotInitialized).
	ErrNotInitialized = datadir.ErrNotInitialized
	// ErrAlreadyInitialized means Init found an existing identity
	// (datadir.ErrAlreadyInitialized).
	ErrAlreadyInitialized = datadir.ErrAlreadyInitialized
	// ErrCorruptDataDir means a file of the data directory no longer holds
	// what the node wrote (datadir.ErrCorrupt); the message names it.
	ErrCorruptDataDir = datadir.ErrCorrupt
	// ErrDataDirInUse means another process (another adpnode) runs with
	// the data directory.
	ErrDataDirInUse = errors.New("node: data directory in use")
	// ErrBadIdentity means identity.key is unreadable, not Ed25519 or too
	// open (datadir.ErrBadIdentity).
	ErrBadIdentity = datadir.ErrBadIdentity
	// ErrClosed is returned by calls on a closed node (nodeapi.ErrClosed).
	ErrClosed = nodeapi.ErrClosed
	// ErrStarted is returned by a second Start.
	ErrStarted = errors.New("node: already started")
	// ErrNoTool means a tool call named a tool no agent serves.
	ErrNoTool = errors.New("node: no agent serves this tool")
	// ErrUnreachable wraps a failure to reach a remote agent
	// (nodeapi.ErrUnreachable).
	ErrUnreachable = nodeapi.ErrUnreachable
	// ErrBadScope is an unknown discovery scope (discovery.ErrBadScope).
	ErrBadScope = discovery.ErrBadScope
)
