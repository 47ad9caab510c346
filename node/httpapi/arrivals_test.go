package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// arrivalService answers GET /v1/arrivals with one record per agent it
// is asked for, and GET /v1/network with a fixed answer.
type arrivalService struct {
	fakeService
	asked *[]string
}

func (s arrivalService) Arrivals(agents ...string) []nodeapi.Arrival {
	*s.asked = append([]string(nil), agents...)
	out := []nodeapi.Arrival{}
	for _, a := range agents {
		out = append(out, nodeapi.Arrival{Agent: a, Seq: 3, At: time.Unix(1, 0).UTC(), Source: "gossip"})
	}
	return out
}

func (arrivalService) Network(context.Context) (*nodeapi.Network, error) {
	return &nodeapi.Network{Scope: nodeapi.ScopeLocal, Nodes: []nodeapi.NetworkNode{{AgentID: "agent://k51a"}}}, nil
}

func TestArrivalsAndNetwork(t *testing.T) {
	ctx := context.Background()
	var asked []string
	c := serve(t, arrivalService{asked: &asked})
	p, err := peer.IDFromPrivateKey(cardtest.Key(t, 9))
	if err != nil {
		t.Fatal(err)
	}
	id := adp.AgentID(p)
	// The agent id in either of its forms reaches the service normalized.
	got, err := c.Arrivals(ctx, id, adp.AgentIDScheme+p.String(), id)
	if err != nil || len(got) != 3 || got[0].Seq != 3 {
		t.Fatalf("Arrivals = %+v, %v", got, err)
	}
	for _, a := range asked {
		if a != id {
			t.Fatalf("service asked for %q, want %q", a, id)
		}
	}
	if _, err := c.Arrivals(ctx); err != nil || len(asked) != 0 {
		t.Fatalf("Arrivals() asked for %v (%v), want every agent", asked, err)
	}

	var e *httpapi.Error
	if _, err := c.Arrivals(ctx, "not an id"); !errors.As(err, &e) || e.Status != http.StatusBadRequest {
		t.Fatalf("bad agent id: %v, want 400", err)
	}
	many := make([]string, httpapi.MaxArrivalAgents+1)
	for i := range many {
		many[i] = id
	}
	if _, err := c.Arrivals(ctx, many...); !errors.As(err, &e) || e.Status != http.StatusBadRequest {
		t.Fatalf("%d agents: %v, want 400", len(many), err)
	}

	nw, err := c.Network(ctx)
	if err != nil || nw.Scope != nodeapi.ScopeLocal || len(nw.Nodes) != 1 {
		t.Fatalf("Network = %+v, %v", nw, err)
	}
}
