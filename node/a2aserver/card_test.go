package a2aserver_test

import (
	"encoding/json"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/node/a2aserver"
)

// TestWithJSONRPC: the exported card names the server's URL for 1.0 and
// 0.3 first, keeps the agent's own interface, says streaming, and leaves
// the card it was given alone.
func TestWithJSONRPC(t *testing.T) {
	c := &adp.Card{ID: "agent://k51qzi5uqu5dlxk3j3gm9vxk0tnrsb30bl0px0t61uoi42c1rh7uehxmymghdc", Name: "n", Tools: []adp.Tool{{Name: "echo"}}}
	doc, err := bridge.ToA2A(a2aserver.WithJSONRPC(c, "http://127.0.0.1:5001/a2a"))
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		SupportedInterfaces []struct{ URL, ProtocolBinding, ProtocolVersion string }
		Capabilities        struct{ Streaming bool }
		Skills              []struct{ ID string }
	}
	if err := json.Unmarshal(doc, &card); err != nil {
		t.Fatal(err)
	}
	in := card.SupportedInterfaces
	if len(in) != 3 || in[0].URL != "http://127.0.0.1:5001/a2a" || in[0].ProtocolBinding != "JSONRPC" || in[0].ProtocolVersion != "1.0" ||
		in[1].URL != in[0].URL || in[1].ProtocolBinding != "JSONRPC" || in[1].ProtocolVersion != "0.3" ||
		in[2].URL != c.ID || in[2].ProtocolBinding != "AITP" {
		t.Fatalf("interfaces %+v", in)
	}
	if !card.Capabilities.Streaming || len(card.Skills) != 1 || card.Skills[0].ID != "echo" {
		t.Fatalf("card %s", doc)
	}
	if len(c.Endpoints) != 0 || c.Extensions != nil {
		t.Fatal("WithJSONRPC changed the card it was given")
	}
}
