package adp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/adpnode/adpnode/adp/agenturi"
	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/internal/termtext"
)

// Validate checks the card against ADP section 3 and 7.6 and the discovery
// profile's examples and status, and returns nil or a *ValidationError
// listing every problem, each with the JSON Pointer of the offending value.
//
// It checks:
//   - the encoded card is at most MaxCardSize octets and MaxDepth deep;
//   - id is present, follows the agent URI grammar (adp/agenturi) and is a
//     bare agent:// URI naming an Ed25519 key (either peer ID form); name is
//     present;
//   - did, when set, is a DID; a did:key must name the key of id;
//   - skills and example tags follow the tag syntax (adp/tag: tag.Check);
//   - tool names are 1..MaxToolNameLen octets and unique; schemas are
//     JSON objects;
//   - endpoints have protocol and uri (unknown protocols are fine);
//   - text is safe to show (internal/termtext): ids, tool names, endpoint
//     fields, version, rate_limit, example ids and member names hold no
//     control or format character (rule Token); name holds none but the
//     zero-width joiners (rule Line); descriptions and example text may
//     also hold newline and tab (rule Text); tags and language codes have
//     stricter syntaxes of their own;
//   - counts and ttl are not negative, timestamps are RFC 3339, status is
//     one of the five profile values, seq is at most MaxSeq, signature is
//     base64url without padding of 64 octets, extension values are objects,
//     raw values are valid JSON.
//
// Revocation cards (empty tools and endpoints, ADP 6.4) are valid. Validate
// does not check the signature: see Verify.
func (c *Card) Validate() error {
	var v validator
	c.validateSize(&v)

	idKey := validateID(&v, c.ID)
	if strings.TrimSpace(c.Name) == "" {
		v.add("/name", "is required")
	}
	v.text("", "/name", c.Name, termtext.Line)
	v.text("", "/description", c.Description, termtext.Text)
	v.text("", "/version", c.Version, termtext.Token)
	if c.DID != "" && v.text("", "/did", c.DID, termtext.Token) {
		validateDID(&v, c.DID, idKey)
	}
	for i, tag := range c.Skills {
		if err := checkTag(tag); err != nil {
			v.add("/skills/"+strconv.Itoa(i), err.Error())
		}
	}
	c.validateTools(&v)
	c.validateEndpoints(&v)
	if k := c.Constraints; k != nil {
		if k.MaxConcurrentTasks != nil && *k.MaxConcurrentTasks < 0 {
			v.add("/constraints/max_concurrent_tasks", "must not be negative")
		}
		if k.MaxInputTokens != nil && *k.MaxInputTokens < 0 {
			v.add("/constraints/max_input_tokens", "must not be negative")
		}
		for i, l := range k.SupportedLanguages {
			if !isLanguageTag(l) {
				v.add("/constraints/supported_languages/"+strconv.Itoa(i), "must be a language code such as \"en\" or \"zh-Hans\"")
			}
		}
		v.text("", "/constraints/rate_limit", k.RateLimit, termtext.Token)
		v.rawMap("/constraints", k.Extra, false)
	}
	if m := c.Metadata; m != nil {
		v.timestamp("/metadata/created_at", m.CreatedAt)
		v.timestamp("/metadata/updated_at", m.UpdatedAt)
		if m.TTL != nil && (*m.TTL < 0 || *m.TTL > MaxSeq) {
			v.add("/metadata/ttl", fmt.Sprintf("must be between 0 and %d seconds", int64(MaxSeq)))
		}
		v.rawMap("/metadata", m.Extra, false)
	}
	for ns := range c.Extensions {
		if ns == "" {
			v.add("/extensions/", "namespace must not be empty")
		}
	}
	v.rawMap("/extensions", c.Extensions, true)
	for i, e := range c.Examples {
		p := "/examples/" + strconv.Itoa(i)
		v.text(p, "/id", e.ID, termtext.Token)
		if strings.TrimSpace(e.Text) == "" {
			v.add(p+"/text", "is required")
		}
		v.text(p, "/text", e.Text, termtext.Text)
		for j, tag := range e.Tags {
			if err := checkTag(tag); err != nil {
				v.add(p+"/tags/"+strconv.Itoa(j), err.Error())
			}
		}
		v.rawMap(p, e.Extra, false)
	}
	switch c.Status {
	case "", StatusActive, StatusInactive, StatusSuspended, StatusDeprecated, StatusTesting:
	default:
		v.add("/status", "must be one of active, inactive, suspended, deprecated, testing")
	}
	if c.Seq != nil && *c.Seq > MaxSeq {
		v.add("/seq", fmt.Sprintf("must be at most %d (2^53-1)", uint64(MaxSeq)))
	}
	if c.Signature != "" {
		var sig [64]byte
		if !decodeSig(sig[:], c.Signature) {
			v.add("/signature", "must be 64 octets in base64url without padding")
		}
	}
	v.rawMap("", c.Extra, false)
	return v.err()
}

func (c *Card) validateSize(v *validator) {
	data := c.raw
	if data == nil {
		var err error
		if data, err = c.MarshalJSON(); err != nil {
			// The raw-value checks below report where.
			return
		}
	}
	if len(data) > MaxCardSize {
		v.add("", fmt.Sprintf("card is %d octets, limit %d", len(data), MaxCardSize))
	}
	// Raw was depth-checked by ParseCard (or written by Sign after this
	// check); an encoding of the fields is checked here.
	if c.raw == nil {
		if d := jsonDepth(data); d > MaxDepth {
			v.add("", fmt.Sprintf("card is nested %d deep, limit %d", d, MaxDepth))
		}
	}
}

func (c *Card) validateTools(v *validator) {
	seen := make(map[string]int, len(c.Tools))
	for i, t := range c.Tools {
		p := "/tools/" + strconv.Itoa(i)
		switch {
		case t.Name == "":
			v.add(p+"/name", "is required")
		case len(t.Name) > MaxToolNameLen:
			v.add(p+"/name", fmt.Sprintf("is %d octets, limit %d", len(t.Name), MaxToolNameLen))
		case !v.text(p, "/name", t.Name, termtext.Token):
		default:
			if j, dup := seen[t.Name]; dup {
				v.add(p+"/name", fmt.Sprintf("duplicates /tools/%d/name", j))
			} else {
				seen[t.Name] = i
			}
		}
		v.text(p, "/description", t.Description, termtext.Text)
		v.schema(p+"/input_schema", t.InputSchema)
		v.schema(p+"/output_schema", t.OutputSchema)
		v.rawMap(p, t.Extra, false)
	}
}

func (c *Card) validateEndpoints(v *validator) {
	for i, e := range c.Endpoints {
		p := "/endpoints/" + strconv.Itoa(i)
		if strings.TrimSpace(e.Protocol) == "" {
			v.add(p+"/protocol", "is required")
		}
		v.text(p, "/protocol", e.Protocol, termtext.Token)
		if strings.TrimSpace(e.URI) == "" {
			v.add(p+"/uri", "is required")
		} else if v.text(p, "/uri", e.URI, termtext.Token) && strings.ContainsAny(e.URI, " ") {
			v.add(p+"/uri", "must not contain whitespace")
		}
		for j, m := range e.Methods {
			if m == "" || len(m) > MaxToolNameLen {
				v.add(p+"/methods/"+strconv.Itoa(j), fmt.Sprintf("must be 1 to %d octets", MaxToolNameLen))
			} else {
				v.text(p+"/methods/", strconv.Itoa(j), m, termtext.Token)
			}
		}
		v.text(p, "/auth", e.Auth, termtext.Token)
		v.rawMap(p, e.Extra, false)
	}
}

// validateID checks the id in two steps: first the agent URI grammar of
// the agent:// draft (agenturi.Parse), so that a malformed URI is reported
// by component and offset; then the ADP shape, a bare agent:// URI whose
// host is the peer ID of an Ed25519 key. It returns the raw key, or nil.
func validateID(v *validator, id string) []byte {
	const shape = "must be agent:// followed by the peer ID of an Ed25519 key (k51... or 12D3KooW...)"
	if id == "" {
		v.add("/id", "is required")
		return nil
	}
	if !v.text("", "/id", id, termtext.Token) {
		return nil
	}
	u, err := agenturi.Parse(id)
	switch {
	case err != nil:
		v.add("/id", shape+": "+strings.TrimPrefix(err.Error(), "agenturi: "))
		return nil
	case u.Protocol != "":
		v.add("/id", shape+`: an id has no transport binding ("agent+`+u.Protocol+`://")`)
		return nil
	case !u.Bare():
		v.add("/id", shape+": an id has no userinfo, port, path, query or fragment")
		return nil
	}
	pub, err := PublicKeyFromAgentID(id)
	if err != nil {
		v.add("/id", shape+": "+errText(err, ErrBadID))
		return nil
	}
	raw, _ := pub.Raw()
	return raw
}

func validateDID(v *validator, did string, idKey []byte) {
	// did = "did:" method-name ":" method-specific-id (W3C DID Core 3.1).
	parts := strings.SplitN(did, ":", 3)
	if len(parts) != 3 || parts[0] != "did" || parts[1] == "" || parts[2] == "" || !isDIDMethod(parts[1]) {
		v.add("/did", "must be a DID (did:method:identifier)")
		return
	}
	if parts[1] != "key" {
		return
	}
	pub, err := PubKeyFromDIDKey(did)
	if err != nil {
		v.add("/did", "must be a valid Ed25519 did:key: "+errText(err, ErrBadDID))
		return
	}
	raw, _ := pub.Raw()
	if idKey != nil && !bytes.Equal(raw, idKey) {
		v.add("/did", "names a different key than id")
	}
}

func isDIDMethod(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// checkTag is the tag syntax of ADP 3.6, defined by adp/tag (tag.Check).
func checkTag(t string) error { return tag.Check(t) }

// isLanguageTag accepts a BCP 47 style tag: 2 to 8 letters, then subtags
// of 1 to 8 letters or digits separated by "-".
func isLanguageTag(s string) bool {
	for i, sub := range strings.Split(s, "-") {
		if len(sub) < 1 || len(sub) > 8 || i == 0 && len(sub) < 2 {
			return false
		}
		for j := 0; j < len(sub); j++ {
			c := sub[j]
			letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if !letter && (i == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

// errText returns err's message without the sentinel's prefix.
func errText(err, sentinel error) string {
	s := err.Error()
	return strings.TrimPrefix(strings.TrimPrefix(s, sentinel.Error()), ": ")
}

type validator struct {
	probs []Problem
}

func (v *validator) add(path, msg string) {
	v.probs = append(v.probs, Problem{Path: path, Message: msg})
}

func (v *validator) err() error {
	if len(v.probs) == 0 {
		return nil
	}
	sortProblems(v.probs)
	return &ValidationError{Problems: v.probs}
}

// text reports s at prefix+field when it holds a character rule refuses,
// and returns whether it follows the rule. The path is built only for a
// problem: most cards have none.
func (v *validator) text(prefix, field, s string, rule termtext.Rule) bool {
	if err := rule.Problem(s); err != nil {
		v.add(prefix+field, err.Error())
		return false
	}
	return true
}

func (v *validator) timestamp(path, s string) {
	if s == "" {
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		v.add(path, "must be an RFC 3339 timestamp such as 2026-03-24T12:00:00Z")
	}
}

func (v *validator) schema(path string, raw json.RawMessage) {
	if raw == nil {
		return
	}
	t := bytes.TrimLeft(raw, " \t\r\n")
	if !json.Valid(raw) || len(t) == 0 || t[0] != '{' {
		v.add(path, "must be an object (a JSON Schema)")
	}
}

// rawMap checks that each raw value is valid JSON (and an object when
// objects is set).
func (v *validator) rawMap(path string, m map[string]json.RawMessage, objects bool) {
	for k, raw := range m {
		p := path + "/" + escapePointer(k)
		if !v.text(p, "", k, termtext.Token) {
			continue
		}
		if !json.Valid(raw) {
			v.add(p, "must be valid JSON")
			continue
		}
		if objects {
			if t := bytes.TrimLeft(raw, " \t\r\n"); t[0] != '{' {
				v.add(p, "must be an object")
			}
		}
	}
}
