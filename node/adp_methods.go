package node

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/node/limits"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
)

// registerMethods registers the ADP methods and the card's tools on the
// AITP server. Package adp's Service decodes, bounds and verifies the
// requests; the node supplies its card, the store (adp.advertise) and the
// local discovery (adp.discover).
func (n *Node) registerMethods() {
	service.New(service.CardSourceFunc(n.Card),
		service.WithChecker(n.intake.Checker()),
		service.WithCardSink(advertisedCards{n}),
		service.WithDiscoverer(localDiscoverer{n}),
		service.WithLogger(n.log),
		service.WithAdvertiseLimit(n.limits.Advertise),
		service.WithDiscoverLimit(n.limits.Discover),
		// A discovery ranks every held card: one a core at once.
		service.WithMaxDiscovering(max(2, runtime.GOMAXPROCS(0))),
	).Register(n.server)
	n.tools.Register(n.Card())
}

// advertisedCards stores the cards peers push with adp.advertise.
type advertisedCards struct{ n *Node }

// AdvertisedCard keeps c (checked by service.Service through the intake's
// check, the caller's own) with source advertise and the caller as
// origin.
func (s advertisedCards) AdvertisedCard(ctx context.Context, c *adp.Card, from peer.ID) (bool, error) {
	stored, err := s.n.intake.Keep(ctx, c, intake.From{Source: store.SourceAdvertise, Origin: adp.AgentID(from), Owner: from, Network: s.n.networkOf(from)})
	if err == nil {
		s.n.feed.Heard(c.ID) // a greeting from the owner
		if !stored {
			if serr := s.n.stale(c); serr != nil {
				return false, aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeStaleMetadata, "/seq", "%v", serr)
			}
		}
	}
	switch {
	case errors.Is(err, intake.ErrOwnCard):
		return false, nil
	case errors.Is(err, store.ErrInvalid) || errors.Is(err, store.ErrTooLarge):
		return false, aitpInvalid(err)
	case errors.Is(err, store.ErrFull):
		return false, aitp.Busy(aitp.CodeBusy, limits.FullRetryAfter, "this node holds as many new agents as it takes (from your network); retry later")
	}
	return stored, err
}

// localDiscoverer answers adp.discover from the local index: a peer's
// discovery never fans out again.
type localDiscoverer struct{ n *Node }

func (d localDiscoverer) Discover(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	return d.n.Discover(ctx, req, scopeLocal)
}

// aitpInvalid turns a card or request problem into INVALID_REQUEST with
// the JSON path of the first problem.
func aitpInvalid(err error) error {
	e := aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "%v", err)
	var ve *adp.ValidationError
	if errors.As(err, &ve) && len(ve.Problems) > 0 {
		e.Path = ve.Problems[0].Path
	}
	return e
}

// stale returns an error wrapping nodeapi.ErrStale when the node holds a
// card of c's agent that supersedes c.
func (n *Node) stale(c *adp.Card) error {
	h := n.store.Held(c.ID)
	if h == nil || adp.Compare(c, h) >= 0 {
		return nil
	}
	return fmt.Errorf("%w: seq %s, held %s", nodeapi.ErrStale, seqString(c), seqString(h))
}

func seqString(c *adp.Card) string {
	if c.Seq == nil {
		return "none"
	}
	return strconv.FormatUint(*c.Seq, 10)
}
