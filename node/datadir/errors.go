package datadir

import "errors"

var (
	// ErrNotInitialized means the directory has no identity or card: run
	// `adpnode init` first.
	ErrNotInitialized = errors.New("node: data directory not initialized")
	// ErrAlreadyInitialized means an identity exists already.
	ErrAlreadyInitialized = errors.New("node: data directory already initialized")
	// ErrBadIdentity means identity.key is unreadable, not Ed25519 or too
	// open.
	ErrBadIdentity = errors.New("node: bad identity key")
	// ErrCorrupt means a file the node wrote no longer holds what it
	// wrote; the message names the file.
	ErrCorrupt = errors.New("node: data directory file corrupt")
)
