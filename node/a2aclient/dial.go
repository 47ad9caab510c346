package a2aclient

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/adpnode/adpnode/internal/netguard"
)

// checkURL checks an endpoint URL before any connection
// (netguard.CheckURL): a refusal is an ErrRefusedURL followed by the
// guard's reason.
func checkURL(raw string, private bool) (*url.URL, error) {
	u, err := netguard.CheckURL(raw, private)
	var ae *netguard.AddrError
	if errors.As(err, &ae) {
		return nil, refused(ae)
	}
	return u, err
}

// refused is the error of an address the guard refuses: an
// ErrRefusedURL followed by the guard's reason alone, so that it reads
// without the layers of the HTTP client around it.
func refused(ae *netguard.AddrError) error { return fmt.Errorf("%w: %w", ErrRefusedURL, ae) }
