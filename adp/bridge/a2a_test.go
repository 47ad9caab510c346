package bridge_test

import (
	"testing"

	"github.com/adpnode/adpnode/adp/bridge"
)

// TestA2AVersions: an A2A 0.3 card and an A2A 1.0 card import; the export
// is always 1.0. Each case gives the document read and the document written
// back.
func TestA2AVersions(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		want     string
		endpoint map[string]any // members of the first endpoint of the ADP card
	}{
		{
			name: "0.3 interfaces, security and extended card",
			src: `{"protocolVersion": "0.3.0", "name": "n", "description": "d", "version": "1", "url": "https://h/rpc",
				"additionalInterfaces": [{"url": "https://h/rpc", "transport": "JSONRPC"}, {"url": "https://h/rest", "transport": "HTTP+JSON"}],
				"capabilities": {"stateTransitionHistory": true}, "supportsAuthenticatedExtendedCard": false,
				"securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "X-Key"}, "odd": {"type": "other"}},
				"security": [{"k": []}],
				"defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
				"skills": [{"id": "s", "name": "S", "description": "sd", "tags": ["t"], "security": [{"k": ["read"]}]}],
				"signatures": [{"protected": "e30", "signature": "AA"}]}`,
			want: `{"name": "n", "description": "d", "version": "1",
				"supportedInterfaces": [{"url": "https://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "0.3.0"}, {"url": "https://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3.0"}],
				"capabilities": {"streaming": false, "extendedAgentCard": false},
				"securitySchemes": {"k": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}, "odd": {"type": "other"}},
				"securityRequirements": [{"schemes": {"k": {"list": []}}}],
				"defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
				"skills": [{"id": "s", "name": "S", "description": "sd", "tags": ["t"], "securityRequirements": [{"schemes": {"k": {"list": ["read"]}}}]}]}`,
			endpoint: map[string]any{"protocol": "jsonrpc", "uri": "https://h/rpc", "protocolVersion": "0.3.0"},
		},
		{
			name: "0.3 without protocolVersion or preferredTransport",
			src:  `{"name": "n", "description": "d", "version": "1", "url": "https://h/rpc", "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []}`,
			want: `{"name": "n", "description": "d", "version": "1", "supportedInterfaces": [{"url": "https://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}],
				"capabilities": {"streaming": false}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []}`,
			endpoint: map[string]any{"protocol": "jsonrpc", "uri": "https://h/rpc", "protocolVersion": "0.3"},
		},
		{
			name: "1.0 tenant and an older interface",
			src: `{"name": "n", "description": "d", "version": "1",
				"supportedInterfaces": [{"url": "https://h/a2a", "protocolBinding": "GRPC", "protocolVersion": "1.0", "tenant": "t1"}, {"url": "https://h/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}],
				"capabilities": {"streaming": true}, "defaultInputModes": ["a/b"], "defaultOutputModes": ["a/b"], "skills": []}`,
			want: `{"name": "n", "description": "d", "version": "1",
				"supportedInterfaces": [{"url": "https://h/a2a", "protocolBinding": "GRPC", "protocolVersion": "1.0", "tenant": "t1"}, {"url": "https://h/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}],
				"capabilities": {"streaming": true}, "defaultInputModes": ["a/b"], "defaultOutputModes": ["a/b"], "skills": []}`,
			endpoint: map[string]any{"protocol": "grpc", "uri": "https://h/a2a", "tenant": "t1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := bridge.FromA2A([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			got := cardObject(t, c)["endpoints"].([]any)[0].(map[string]any)
			if len(got) != len(tt.endpoint) {
				t.Fatalf("endpoint %v, want %v", got, tt.endpoint)
			}
			for k, v := range tt.endpoint {
				if got[k] != v {
					t.Fatalf("endpoint %v, want %v", got, tt.endpoint)
				}
			}
			out, err := bridge.ToA2A(c)
			if err != nil {
				t.Fatal(err)
			}
			requireSameJSON(t, "export", out, []byte(tt.want))
		})
	}
}
