package config

import "errors"

// ErrInvalid reports a bad configuration value; the message names it.
var ErrInvalid = errors.New("node: invalid configuration")
