package node

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/store"
)

// registerMethods registers the ADP methods and the card's tools on the
// AITP server.
func (n *Node) registerMethods() {
	n.server.HandleFunc(methodDescribe, n.serveDescribe)
	n.server.HandleFunc(methodAdvertise, n.serveAdvertise)
	n.server.HandleFunc(methodDiscover, n.serveDiscover)
	n.registerTools(n.Card())
}

// serveDescribe answers adp.describe: the own card, or the requested
// fields plus id and name.
func (n *Node) serveDescribe(_ context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
	var in struct {
		Fields []string `json:"fields"`
	}
	if len(r.Body) > 0 {
		if err := json.Unmarshal(r.Body, &in); err != nil {
			return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "body must be {\"fields\": [...]}: %v", err)
		}
	}
	if len(in.Fields) > maxDescribeFields {
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/fields", "at most %d fields", maxDescribeFields)
	}
	out, err := selectFields(n.Card(), in.Fields)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// serveAdvertise answers adp.advertise: the body is the caller's own
// signed card; it is verified and stored with source advertise.
func (n *Node) serveAdvertise(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
	c, err := adp.DecodeVerified(r.Body)
	if err != nil {
		return aitpInvalid(err)
	}
	if owner, err := c.PeerID(); err != nil || owner != r.Remote {
		return aitp.Errorf(aitp.StatusUnauthorized, aitp.CodeUnauthorized, "/id", "the card's id is not the caller's agent id")
	}
	stored, err := n.store.PutCard(ctx, c, store.SourceAdvertise, c.ID)
	if err != nil {
		if errors.Is(err, store.ErrInvalid) || errors.Is(err, store.ErrTooLarge) {
			return aitpInvalid(err)
		}
		return err
	}
	n.noteDirectory(c)
	return writeJSON(w, map[string]bool{"stored": stored})
}

// serveDiscover answers adp.discover from the local index.
func (n *Node) serveDiscover(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
	req, err := adp.ParseDiscoverRequest(r.Body)
	if err != nil {
		return aitpInvalid(err)
	}
	resp, err := n.Discover(ctx, req, scopeLocal)
	if err != nil {
		return err
	}
	return writeJSON(w, resp)
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
