package bridge

import "encoding/json"

// Reading A2A 0.3 cards (protocol 0.3.0): FromA2A accepts them and the
// export writes A2A 1.0, so the members whose shape 1.0 changed are
// rewritten on import. The interfaces and capabilities are handled where
// they are read (readA2AInterfaces, readA2ACapabilities); the security
// declarations, kept opaque in extensions["a2a"], are rewritten here:
//
//	security: [{name: [scopes]}]        -> securityRequirements: [{schemes: {name: {list: [scopes]}}}]
//	  (per card and per skill)
//	securitySchemes: {name: {type, ...}} -> securitySchemes: {name: {<type>SecurityScheme: {...}}}
//	  (apiKey "in" becomes "location")

// a2aSchemeTypes maps an A2A 0.3 (OpenAPI) security scheme type to the
// member of the A2A 1.0 SecurityScheme that holds it.
var a2aSchemeTypes = map[string]string{
	"apiKey":        "apiKeySecurityScheme",
	"http":          "httpAuthSecurityScheme",
	"oauth2":        "oauth2SecurityScheme",
	"openIdConnect": "openIdConnectSecurityScheme",
	"mutualTLS":     "mtlsSecurityScheme",
}

// upgradeCard03 rewrites the members an import of an A2A 0.3 card kept
// (ext) to their A2A 1.0 form.
func upgradeCard03(ext map[string]json.RawMessage) {
	upgradeSecurity03(ext, "security", "securityRequirements")
	schemes := rawMap(ext["securitySchemes"])
	if schemes == nil {
		return
	}
	for name, raw := range schemes {
		s := rawMap(raw)
		var typ string
		if s == nil || json.Unmarshal(s["type"], &typ) != nil || a2aSchemeTypes[typ] == "" {
			continue // not a 0.3 scheme: kept as written
		}
		delete(s, "type")
		if typ == "apiKey" {
			if in, ok := s["in"]; ok {
				s["location"] = in
				delete(s, "in")
			}
		}
		schemes[name], _ = marshal(map[string]any{a2aSchemeTypes[typ]: s})
	}
	ext["securitySchemes"], _ = marshal(schemes)
}

// upgradeSecurity03 replaces m[from], an A2A 0.3 list of security
// requirements ({scheme: [scopes]}), by m[to] in the A2A 1.0 form
// ({"schemes": {scheme: {"list": [scopes]}}}). A value of another shape is
// left as it is, under from.
func upgradeSecurity03(m map[string]json.RawMessage, from, to string) {
	raw, ok := m[from]
	if !ok {
		return
	}
	var reqs []map[string][]string
	if json.Unmarshal(raw, &reqs) != nil {
		return
	}
	out := make([]any, 0, len(reqs))
	for _, req := range reqs {
		schemes := map[string]any{}
		for name, scopes := range req {
			if scopes == nil {
				scopes = []string{}
			}
			schemes[name] = map[string]any{"list": scopes}
		}
		out = append(out, map[string]any{"schemes": schemes})
	}
	delete(m, from)
	m[to], _ = marshal(out)
}
