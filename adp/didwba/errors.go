package didwba

import (
	"errors"
	"fmt"
)

var (
	// ErrBadDID reports a string that is not a did:wba DID, or a domain
	// that cannot make one.
	ErrBadDID = errors.New("didwba: not a valid did:wba DID")
	// ErrResolve reports a DID document that could not be fetched,
	// including one whose domain resolves to an address the resolver does
	// not connect to (see WithPrivateAddresses).
	ErrResolve = errors.New("didwba: DID document not resolved")
	// ErrBadDocument reports a fetched DID document that is not one, or
	// whose id is not the DID resolved.
	ErrBadDocument = errors.New("didwba: invalid DID document")
	// ErrTooLarge reports a DID document larger than MaxDocumentSize.
	ErrTooLarge = fmt.Errorf("didwba: DID document larger than %d octets", MaxDocumentSize)
	// ErrBusy reports that the bound on concurrent resolutions is reached.
	ErrBusy = errors.New("didwba: too many resolutions in progress")
	// ErrNoKey reports a verification method that the DID document does
	// not list under authentication, or whose key is not Ed25519.
	ErrNoKey = errors.New("didwba: no such Ed25519 authentication key")
	// ErrBadHeader reports an Authorization header that is not a well
	// formed DIDWba credential.
	ErrBadHeader = errors.New("didwba: malformed DIDWba authorization")
	// ErrTimestamp reports a timestamp outside the service's window.
	ErrTimestamp = errors.New("didwba: timestamp out of range")
	// ErrNonce reports a nonce already used.
	ErrNonce = errors.New("didwba: nonce already used")
	// ErrSignature reports a signature that does not verify.
	ErrSignature = errors.New("didwba: signature does not verify")
	// ErrToken reports an access token that does not verify or expired.
	ErrToken = errors.New("didwba: invalid access token")
	// ErrForbidden reports an authenticated DID the service refuses.
	ErrForbidden = errors.New("didwba: DID not allowed")
	// ErrNoCredentials reports a request with neither a DIDWba nor a
	// Bearer authorization.
	ErrNoCredentials = errors.New("didwba: no credentials")
)

// codes maps each sentinel error to its WWW-Authenticate error code.
var codes = []struct {
	err  error
	code string
}{
	{ErrNoCredentials, ""},
	{ErrBadHeader, CodeInvalidRequest},
	{ErrTimestamp, CodeInvalidTimestamp},
	{ErrNonce, CodeInvalidNonce},
	{ErrBadDID, CodeInvalidDID},
	{ErrResolve, CodeInvalidDID},
	{ErrBadDocument, CodeInvalidDID},
	{ErrTooLarge, CodeInvalidDID},
	{ErrBusy, CodeInvalidDID},
	{ErrNoKey, CodeInvalidVerificationMethod},
	{ErrSignature, CodeInvalidSignature},
	{ErrToken, CodeInvalidAccessToken},
	{ErrForbidden, CodeForbiddenDID},
}

// Code returns the WWW-Authenticate error code of an authentication
// error ("" when err is ErrNoCredentials or none of this package's).
func Code(err error) string {
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return ""
}
