package route_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/route"
)

func prio(n int) *int { return &n }

func TestOrder(t *testing.T) {
	aitp := func(p int) route.Target { return route.Target{Transport: route.AITP, Priority: p} }
	a2a := func(url string, p int) route.Target { return route.Target{Transport: route.A2A, URL: url, Priority: p} }
	v03 := map[string]json.RawMessage{"protocolVersion": json.RawMessage(`"0.3"`)}
	for _, tc := range []struct {
		name   string
		card   *adp.Card
		method string
		want   []route.Target
	}{
		{"no card", nil, "x", []route.Target{aitp(0)}},
		{"no endpoints", &adp.Card{}, "x", []route.Target{aitp(0)}},
		{"only unknown protocols", &adp.Card{Endpoints: []adp.Endpoint{{Protocol: "grpc", URI: "grpc://h:1"}, {Protocol: "ws", URI: "wss://h"}}}, "x", []route.Target{aitp(0)}},
		{"a2a only", &adp.Card{Endpoints: []adp.Endpoint{{Protocol: "a2a", URI: "https://a.example/rpc"}}}, "x", []route.Target{a2a("https://a.example/rpc", 0)}},
		{"AITP first on a tie", &adp.Card{Endpoints: []adp.Endpoint{{Protocol: "jsonrpc", URI: "https://a/"}, {Protocol: "aitp", URI: "agent://k"}}}, "x", []route.Target{aitp(0), a2a("https://a/", 0)}},
		{"priority wins over AITP", &adp.Card{Endpoints: []adp.Endpoint{{Protocol: "aitp", URI: "agent://k", Priority: prio(5)}, {Protocol: "http+json", URI: "http://b/", Priority: prio(1)}}}, "x", []route.Target{{Transport: route.A2A, URL: "http://b/", REST: true, Priority: 1}, aitp(5)}},
		{"aitp and libp2p are one target at the best priority", &adp.Card{Endpoints: []adp.Endpoint{
			{Protocol: "aitp", URI: "agent://k", Priority: prio(3)},
			{Protocol: "a2a", URI: "https://a/", Priority: prio(2)},
			{Protocol: "libp2p", URI: "/ip4/1.2.3.4/tcp/1/p2p/x", Priority: prio(1)},
			{Protocol: "libp2p", URI: "/ip4/1.2.3.5/tcp/1/p2p/x"},
		}}, "x", []route.Target{aitp(0), a2a("https://a/", 2)}},
		{"negative priority and card order among equals", &adp.Card{Endpoints: []adp.Endpoint{
			{Protocol: "a2a", URI: "https://1/"}, {Protocol: "a2a", URI: "https://2/", Priority: prio(-1)}, {Protocol: "A2A", URI: "https://3/"},
		}}, "x", []route.Target{a2a("https://2/", -1), a2a("https://1/", 0), a2a("https://3/", 0)}},
		{"non-http a2a and duplicates skipped", &adp.Card{Endpoints: []adp.Endpoint{
			{Protocol: "a2a", URI: "agent://x"}, {Protocol: "a2a", URI: "ftp://h/"}, {Protocol: "a2a", URI: "https://h/"}, {Protocol: "jsonrpc", URI: "https://h/"},
		}}, "x", []route.Target{a2a("https://h/", 0)}},
		{"methods filter", &adp.Card{Endpoints: []adp.Endpoint{
			{Protocol: "aitp", URI: "agent://k", Methods: []string{"other"}}, {Protocol: "a2a", URI: "https://h/", Methods: []string{"x"}, Priority: prio(9)},
		}}, "x", []route.Target{a2a("https://h/", 9)}},
		{"methods filter that leaves nothing is ignored", &adp.Card{Endpoints: []adp.Endpoint{
			{Protocol: "aitp", URI: "agent://k", Methods: []string{"a"}}, {Protocol: "a2a", URI: "https://h/", Methods: []string{"b"}},
		}}, "x", []route.Target{aitp(0), a2a("https://h/", 0)}},
		{"version kept", &adp.Card{Endpoints: []adp.Endpoint{{Protocol: "jsonrpc", URI: "https://old/", Extra: v03}}}, "x", []route.Target{{Transport: route.A2A, URL: "https://old/", Version: "0.3"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := route.Order(tc.card, tc.method); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
