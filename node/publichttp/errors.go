package publichttp

import "errors"

// ErrBadURL is a WithURL value that is not an absolute http or https URL
// without query or fragment.
var ErrBadURL = errors.New("publichttp: public URL must be an absolute http or https URL")
