package owncard_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/owncard"
)

var now = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

func TestFirst(t *testing.T) {
	sk := cardtest.Key(t, 1)
	self, _ := peer.IDFromPrivateKey(sk)
	other := cardtest.Card(t, 2, `{"id": "ID", "name": "other", "tools": [], "endpoints": []}`)
	tmpl := &adp.Card{ID: other.ID, Name: "first", Description: "a first card"}
	c, err := owncard.First(tmpl, sk, now)
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.ID != other.ID || tmpl.Seq != nil {
		t.Fatalf("the template was changed: %+v", tmpl)
	}
	did, _ := adp.DIDKey(sk.GetPublic())
	stamp := now.Format(time.RFC3339)
	switch {
	case c.ID != adp.AgentID(self):
		t.Errorf("id %s, want the key's %s", c.ID, adp.AgentID(self))
	case c.DID != did:
		t.Errorf("did %s, want %s", c.DID, did)
	case len(c.Endpoints) != 1 || c.Endpoints[0].Protocol != owncard.EndpointProtocol || c.Endpoints[0].URI != c.ID:
		t.Errorf("endpoints %+v, want one AITP endpoint at the agent id", c.Endpoints)
	case c.Version != "1.0.0" || c.Status != "active" || c.Seq == nil || *c.Seq != 1:
		t.Errorf("version %q, status %q, seq %v", c.Version, c.Status, c.Seq)
	case c.Metadata.CreatedAt != stamp || c.Metadata.UpdatedAt != stamp:
		t.Errorf("metadata %+v, want both times %s", c.Metadata, stamp)
	}
	if _, err := adp.DecodeVerified(c.Raw()); err != nil {
		t.Fatalf("the first card does not verify: %v", err)
	}

	kept, err := owncard.First(&adp.Card{Name: "no endpoints", Endpoints: []adp.Endpoint{}, Version: "2.0.0"}, sk, now)
	if err != nil || len(kept.Endpoints) != 0 || kept.Version != "2.0.0" {
		t.Fatalf("a template's empty endpoint list and version: %+v, %v", kept, err)
	}
	if _, err := owncard.First(&adp.Card{}, sk, now); !errors.Is(err, adp.ErrInvalid) {
		t.Fatalf("a template without a name: %v, want adp.ErrInvalid", err)
	}
}

func TestNext(t *testing.T) {
	sk := cardtest.Key(t, 1)
	old, err := owncard.First(&adp.Card{Name: "v1"}, sk, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	edited := old.Clone()
	edited.Name, edited.ID, edited.Metadata = "v2", "", nil
	c, err := owncard.Next(old, edited, sk, now)
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != old.ID || *c.Seq != 2 || c.Name != "v2" || c.Metadata.UpdatedAt != now.Format(time.RFC3339) || c.Metadata.CreatedAt != old.Metadata.CreatedAt {
		t.Fatalf("next version: id %s, seq %d, name %q, metadata %+v", c.ID, *c.Seq, c.Name, c.Metadata)
	}
	if _, err := adp.DecodeVerified(c.Raw()); err != nil {
		t.Fatalf("the next card does not verify: %v", err)
	}
	// A held card whose id is another form of the agent's id (base58, as
	// a card signed elsewhere may spell it) gets the canonical form.
	self, _ := peer.IDFromPrivateKey(sk)
	b58 := old.Clone()
	b58.ID = "agent://" + self.String()
	if c, err := owncard.Next(b58, b58.Clone(), sk, now); err != nil || c.ID != old.ID {
		t.Fatalf("next version of a card with id %s: %v, id %v; want %s", b58.ID, err, c, old.ID)
	}
	stolen := old.Clone()
	stolen.ID = cardtest.Card(t, 2, `{"id": "ID", "name": "x", "tools": [], "endpoints": []}`).ID
	if _, err := owncard.Next(old, stolen, sk, now); !errors.Is(err, owncard.ErrOtherID) {
		t.Fatalf("an edit naming another id: %v, want ErrOtherID", err)
	}
	broken := old.Clone()
	broken.Name = ""
	if _, err := owncard.Next(old, broken, sk, now); !errors.Is(err, adp.ErrInvalid) {
		t.Fatalf("an edit without a name: %v, want adp.ErrInvalid", err)
	}
}

func TestShape(t *testing.T) {
	sk := cardtest.Key(t, 1)
	self, _ := peer.IDFromPrivateKey(sk)
	addr := ma.StringCast("/ip4/10.0.0.1/tcp/4001/p2p/" + self.String())
	didKey, _ := adp.DIDKey(sk.GetPublic())
	base := func() *adp.Card {
		return &adp.Card{Name: "shape", DID: "did:wba:old.example", Skills: []string{"nlp/translation", owncard.DirectorySkill},
			Tools:     []adp.Tool{{Name: demoagent.Echo}},
			Endpoints: []adp.Endpoint{{Protocol: owncard.EndpointLibp2p, URI: "/ip4/10.9.9.9/tcp/1/p2p/" + self.String()}, {Protocol: "https", URI: "https://agent.example"}}}
	}
	for _, tc := range []struct {
		name   string
		setup  owncard.Setup
		did    string
		skills []string
		tools  int
		eps    []string
	}{
		{"plain node", owncard.Setup{Key: sk.GetPublic(), Addrs: []ma.Multiaddr{addr}}, didKey,
			[]string{"nlp/translation"}, 1, []string{"https://agent.example", addr.String()}},
		{"directory with a did:wba DID and the demo tools", owncard.Setup{DID: "did:wba:new.example", Key: sk.GetPublic(), Directory: true, Demo: true},
			"did:wba:new.example", []string{"nlp/translation", owncard.DirectorySkill}, len(demoagent.Tools()), []string{"https://agent.example"}},
	} {
		c := base()
		owncard.Shape(c, tc.setup)
		var eps []string
		for _, e := range c.Endpoints {
			eps = append(eps, e.URI)
		}
		if c.DID != tc.did || !slices.Equal(c.Skills, tc.skills) || len(c.Tools) != tc.tools || !slices.Equal(eps, tc.eps) {
			t.Errorf("%s: did %s, skills %v, %d tools, endpoints %v; want %s, %v, %d, %v", tc.name, c.DID, c.Skills, len(c.Tools), eps, tc.did, tc.skills, tc.tools, tc.eps)
		}
		if owncard.NeedsUpdate(c, tc.setup) {
			t.Errorf("%s: a shaped card needs an update", tc.name)
		}
		if !owncard.NeedsUpdate(base(), tc.setup) {
			t.Errorf("%s: the unshaped card needs no update", tc.name)
		}
	}
	bare := &adp.Card{Name: "bare"}
	owncard.Shape(bare, owncard.Setup{})
	if bare.Endpoints != nil {
		t.Errorf("a card with no endpoints and a node with no address got endpoints %v", bare.Endpoints)
	}
}

func TestAddrs(t *testing.T) {
	sk := cardtest.Key(t, 1)
	self, _ := peer.IDFromPrivateKey(sk)
	other, _ := peer.IDFromPrivateKey(cardtest.Key(t, 2))
	c := &adp.Card{Endpoints: []adp.Endpoint{
		{Protocol: owncard.EndpointLibp2p, URI: "/ip4/10.0.0.1/tcp/4001/p2p/" + self.String()},
		{Protocol: owncard.EndpointLibp2p, URI: "/ip4/10.0.0.2/tcp/4001/p2p/" + other.String()},
		{Protocol: owncard.EndpointLibp2p, URI: "not a multiaddr"},
		{Protocol: owncard.EndpointLibp2p, URI: "/ip4/10.0.0.3/tcp/4001"},
		{Protocol: "https", URI: "/ip4/10.0.0.4/tcp/4001/p2p/" + self.String()},
		{Protocol: owncard.EndpointLibp2p, URI: "/ip6/::1/udp/4001/quic-v1/p2p/" + self.String()},
	}}
	var got []string
	for _, a := range owncard.Addrs(c, self) {
		got = append(got, a.String())
	}
	if want := "/ip4/10.0.0.1/tcp/4001 /ip6/::1/udp/4001/quic-v1"; strings.Join(got, " ") != want {
		t.Fatalf("addresses %q, want %q", got, want)
	}
}
