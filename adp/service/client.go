package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
)

// Describe calls adp.describe on p. Without fields it returns p's card,
// verified and checked to be p's own (adp.ErrBadID otherwise). With fields it
// returns the subset the remote sent, parsed but not verifiable: a
// subset carries no valid signature.
func Describe(ctx context.Context, cl *aitp.Client, p peer.ID, fields ...string) (*adp.Card, error) {
	var body []byte
	if len(fields) > 0 {
		var err error
		if body, err = json.Marshal(map[string][]string{"fields": fields}); err != nil {
			return nil, err
		}
	}
	reply, err := cl.Call(ctx, p, MethodDescribe, body, aitp.Idempotent())
	if err != nil {
		return nil, err
	}
	if len(fields) > 0 {
		return adp.ParseCard(reply)
	}
	c, err := adp.DecodeVerified(reply)
	if err != nil {
		return nil, err
	}
	if named, err := c.PeerID(); err != nil || named != p {
		return nil, fmt.Errorf("%w: %s answered with the card of %s", adp.ErrBadID, adp.AgentID(p), truncateID(c.ID))
	}
	return c, nil
}

// Advertise pushes card to p with adp.advertise and reports whether p
// stored it. The card is sent as it was signed (Raw).
func Advertise(ctx context.Context, cl *aitp.Client, p peer.ID, card *adp.Card) (stored bool, err error) {
	body := card.Raw()
	if body == nil {
		return false, fmt.Errorf("%w: sign the card before advertising it", adp.ErrUnsigned)
	}
	reply, err := cl.Call(ctx, p, MethodAdvertise, body, aitp.Idempotent())
	if err != nil {
		return false, err
	}
	var r advertiseReply
	if err := json.Unmarshal(reply, &r); err != nil {
		return false, fmt.Errorf("%w: advertise reply: %w", adp.ErrMalformed, err)
	}
	return r.Stored, nil
}

// Discover sends req to p with adp.discover and returns its response. A
// peer that refuses req's known list (INVALID_REQUEST at /known: an
// earlier release, or a peer that takes only ADP's own fields) is asked
// again without it; the caller then gets the cards it holds too.
func Discover(ctx context.Context, cl *aitp.Client, p peer.ID, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	resp, err := discover(ctx, cl, p, req)
	if err != nil && len(req.Known) > 0 && refusesKnown(err) {
		plain := *req
		plain.Known = nil
		return discover(ctx, cl, p, &plain)
	}
	return resp, err
}

// refusesKnown reports whether err is a peer's INVALID_REQUEST about a
// request's known list.
func refusesKnown(err error) bool {
	var ae *aitp.Error
	return errors.As(err, &ae) && ae.Status == aitp.StatusInvalidRequest &&
		(ae.Path == "/known" || strings.HasPrefix(ae.Path, "/known/"))
}

func discover(ctx context.Context, cl *aitp.Client, p peer.ID, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	reply, err := cl.Call(ctx, p, MethodDiscover, body, aitp.Idempotent())
	if err != nil {
		return nil, err
	}
	var resp adp.DiscoverResponse
	if err := json.Unmarshal(reply, &resp); err != nil {
		return nil, fmt.Errorf("%w: discover reply: %w", adp.ErrMalformed, err)
	}
	return &resp, nil
}
