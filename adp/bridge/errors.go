package bridge

import (
	"errors"
	"fmt"

	"github.com/adpnode/adpnode/adp"
)

var (
	// ErrTooLarge reports a document larger than MaxDocSize. It also
	// matches adp.ErrTooLarge.
	ErrTooLarge = fmt.Errorf("bridge: document larger than %d octets: %w", MaxDocSize, adp.ErrTooLarge)
	// ErrTooDeep reports a document nested deeper than MaxDepth. It also
	// matches adp.ErrTooDeep.
	ErrTooDeep = fmt.Errorf("bridge: document nested deeper than %d: %w", MaxDepth, adp.ErrTooDeep)
	// ErrMalformed reports input that is not one well-formed JSON value in
	// valid UTF-8. It also matches adp.ErrMalformed.
	ErrMalformed = fmt.Errorf("bridge: malformed document: %w", adp.ErrMalformed)
	// ErrA2AUnsigned reports an A2A AgentCard without signatures. It also
	// matches adp.ErrUnsigned.
	ErrA2AUnsigned = fmt.Errorf("bridge: A2A card has no signatures: %w", adp.ErrUnsigned)
	// ErrA2ASignature reports an A2A AgentCard none of whose signatures
	// verifies. It also matches adp.ErrBadSignature.
	ErrA2ASignature = fmt.Errorf("bridge: no A2A card signature verifies: %w", adp.ErrBadSignature)
	// ErrUnknownFormat reports a Format that Convert does not know.
	ErrUnknownFormat = errors.New("bridge: unknown format")
)

// Problems with the content of a document are reported as an
// *adp.ValidationError (matching adp.ErrInvalid) whose paths are JSON
// Pointers into the document being read or, for an export, into the
// document that would have been written.
