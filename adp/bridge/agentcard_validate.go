package bridge

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

var (
	// semverRE is the regular expression of the AgentCard draft's
	// validation rule 2 (Semantic Versioning 2.0.0).
	semverRE = regexp.MustCompile(`^(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:-[0-9A-Za-z\-.]+)?(?:\+[0-9A-Za-z\-.]+)?$`)
	// capabilityIDRE is the pattern of rule 4.
	capabilityIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
)

// trustTiers are the values of metadata["pacr:trust_tier"] (rule 9).
var trustTiers = []string{"untrusted", "basic", "established", "verified", "banned"}

// ValidateAgentCard checks an AgentCard document (an object, not the
// embedded-string form) against the validation rules of the AgentCard
// draft, Section "Validation Rules", numbered as there, plus the field
// constraints the draft states beside them:
//
//  1. agent_id is 26 characters of Crockford Base32 ([0-9A-HJKMNP-TV-Z]);
//  2. version is SemVer 2.0.0;
//  3. capabilities has at least one entry;
//  4. each capabilities[i].id matches ^[a-z0-9][a-z0-9._-]*$;
//  5. endpoint.protocol is http, https, grpc, stdio or mcp;
//  6. endpoint.url is a valid absolute URI (and, for http and https, of
//     that scheme);
//  7. pricing.base_cost_joules, when present and non-zero, is at least
//     LandauerFloorJoules (so negative values fail too);
//  8. pricing.per_token_joules, when present, is not negative;
//  9. metadata["pacr:trust_tier"], when present, is one of untrusted,
//     basic, established, verified, banned;
//  10. unknown members are ignored at every level.
//
// Also: name is 1 to AgentCardMaxNameLen code points; endpoint.auth.scheme
// is none, bearer, api_key, oauth2 or mtls; capability schemas are
// objects and tags strings; goal_subscriptions[i].goal_id is present and
// priority, when present, is in [0, 1]. It returns nil or an
// *adp.ValidationError listing every problem with its JSON Pointer.
func ValidateAgentCard(data []byte) error {
	r, o, err := readDoc(data)
	if err != nil {
		return err
	}
	// Rule 1.
	if id := o.str("agent_id", true); id != "" && !isULID(id) {
		r.add("/agent_id", "must be a ULID: 26 characters of Crockford Base32 [0-9A-HJKMNP-TV-Z]")
	}
	if name := o.str("name", true); utf8.RuneCountInString(name) > AgentCardMaxNameLen {
		r.add("/name", "must be at most %d code points", AgentCardMaxNameLen)
	}
	// Rule 2.
	if v := o.str("version", true); v != "" && !semverRE.MatchString(v) {
		r.add("/version", "must be a Semantic Versioning 2.0.0 version such as 1.0.0, got %q", v)
	}
	// Rules 3 and 4.
	caps := o.arr("capabilities")
	if caps == nil && !o.has("capabilities") || caps != nil && len(caps) == 0 {
		r.add("/capabilities", "must contain at least one capability")
	}
	for i, raw := range caps {
		co := r.obj(fmt.Sprintf("/capabilities/%d", i), raw)
		if co == nil {
			continue
		}
		if id := co.str("id", true); id != "" && !capabilityIDRE.MatchString(id) {
			r.add(co.at("id"), "must match ^[a-z0-9][a-z0-9._-]*$, got %q", id)
		}
		co.str("description", false)
		co.schema("input_schema")
		co.schema("output_schema")
		co.strs("tags")
	}
	// Rules 5 and 6.
	if !o.has("endpoint") {
		r.add("/endpoint", "is required")
	}
	if eo := o.sub("endpoint"); eo != nil {
		proto := eo.str("protocol", true)
		if proto != "" && !slices.Contains(agentCardProtocols, proto) {
			r.add("/endpoint/protocol", "must be one of %s, got %q", strings.Join(agentCardProtocols, ", "), proto)
		}
		if raw := eo.str("url", true); raw != "" {
			u, err := url.Parse(raw)
			switch {
			case err != nil || u.Scheme == "":
				r.add("/endpoint/url", "must be an absolute URI (RFC 3986)")
			case (proto == "http" || proto == "https") && !strings.EqualFold(u.Scheme, proto):
				r.add("/endpoint/url", "must use the scheme %s:// to match endpoint.protocol", proto)
			}
		}
		if auth := eo.sub("auth"); auth != nil {
			if s := auth.str("scheme", false); s != "" && !slices.Contains(agentCardAuthSchemes, s) {
				r.add("/endpoint/auth/scheme", "must be one of %s, got %q", strings.Join(agentCardAuthSchemes, ", "), s)
			}
		}
	}
	// Rules 7 and 8.
	if po := o.sub("pricing"); po != nil {
		if f, ok := po.number("base_cost_joules"); ok && f != 0 && f < LandauerFloorJoules {
			r.add("/pricing/base_cost_joules", "must be 0 or at least %g J (the Landauer limit at 300 K), got %g", LandauerFloorJoules, f)
		}
		if f, ok := po.number("per_token_joules"); ok && f < 0 {
			r.add("/pricing/per_token_joules", "must not be negative, got %g", f)
		}
	}
	// Rule 9.
	if mo := o.sub("metadata"); mo != nil {
		if t := mo.str("pacr:trust_tier", false); mo.has("pacr:trust_tier") && !slices.Contains(trustTiers, t) {
			r.add(mo.at("pacr:trust_tier"), "must be one of %s, got %q", strings.Join(trustTiers, ", "), t)
		}
	}
	for i, raw := range o.arr("goal_subscriptions") {
		g := r.obj(fmt.Sprintf("/goal_subscriptions/%d", i), raw)
		if g == nil {
			continue
		}
		g.str("goal_id", true)
		g.str("description", false)
		if p, ok := g.number("priority"); ok && (p < 0 || p > 1) {
			r.add(g.at("priority"), "must be between 0 and 1, got %g", p)
		}
	}
	return r.err()
}
