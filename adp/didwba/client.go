package didwba

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Signer is the client side of DIDWba authentication: it makes the
// Authorization header that authenticates DID, whose DID document lists
// Key's public key as verification method Fragment. Safe for concurrent
// use once set up.
type Signer struct {
	DID      string
	Fragment string             // default DefaultFragment
	Key      ed25519.PrivateKey // the key the fragment names
	Now      func() time.Time   // default time.Now
	Rand     io.Reader          // nonce source, default crypto/rand
}

// Header returns a fresh DIDWba header value for service (the domain
// name of the service, without port): a 16-byte random nonce in hex, the
// current time to the second, and the signature.
func (s *Signer) Header(service string) (string, error) {
	var nonce [16]byte
	r := s.Rand
	if r == nil {
		r = rand.Reader
	}
	if _, err := io.ReadFull(r, nonce[:]); err != nil {
		return "", err
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	frag := s.Fragment
	if frag == "" {
		frag = DefaultFragment
	}
	h := Header{DID: s.DID, Nonce: hex.EncodeToString(nonce[:]), Timestamp: now().UTC().Format(TimestampLayout), VerificationMethod: frag}
	if err := h.Sign(s.Key, strings.ToLower(service)); err != nil {
		return "", err
	}
	return h.String(), nil
}

// maxTokens bounds the access tokens a Transport keeps, one per host.
const maxTokens = 256

// Transport is an http.RoundTripper that authenticates every request as
// its Signer's DID: with the access token the host returned before
// ("Authorization: Bearer" on a response), else with a fresh DIDWba
// header. When a token is refused (401) the request is sent once more
// with a DIDWba header, if its body can be sent again. A request that
// already has an Authorization header is sent as it is. Safe for
// concurrent use.
type Transport struct {
	Signer *Signer
	Base   http.RoundTripper // default http.DefaultTransport

	mu     sync.Mutex
	tokens map[string]string
}

// NewClient returns a copy of base (nil: a zero http.Client) whose
// transport authenticates as s, wrapping base's transport.
func NewClient(s *Signer, base *http.Client) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	c.Transport = &Transport{Signer: s, Base: c.Transport}
	return c
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.base().RoundTrip(req)
	}
	host := strings.ToLower(req.URL.Host)
	tok := t.token(host)
	resp, err := t.send(req, tok)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || tok == "" {
		return resp, err
	}
	t.setToken(host, "")
	if req.Body != nil && req.GetBody == nil {
		return resp, nil
	}
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return resp, nil
		}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	return t.send(retry, "")
}

// send sends one attempt, with tok or, when tok is "", a DIDWba header,
// and keeps the token the response carries.
func (t *Transport) send(req *http.Request, tok string) (*http.Response, error) {
	r := req.Clone(req.Context())
	if tok != "" {
		r.Header.Set("Authorization", BearerScheme+" "+tok)
	} else {
		h, err := t.Signer.Header(req.URL.Hostname())
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", h)
	}
	resp, err := t.base().RoundTrip(r)
	if err != nil {
		return nil, err
	}
	scheme, newTok, _ := strings.Cut(resp.Header.Get("Authorization"), " ")
	if strings.EqualFold(scheme, BearerScheme) && newTok != "" && len(newTok) <= MaxTokenSize {
		t.setToken(strings.ToLower(req.URL.Host), strings.TrimSpace(newTok))
	}
	return resp, nil
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

func (t *Transport) token(host string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tokens[host]
}

func (t *Transport) setToken(host, tok string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tok == "" {
		delete(t.tokens, host)
		return
	}
	if t.tokens == nil || len(t.tokens) >= maxTokens {
		t.tokens = make(map[string]string)
	}
	t.tokens[host] = tok
}
