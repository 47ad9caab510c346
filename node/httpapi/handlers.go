package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/node/wellknown"
	"github.com/adpnode/adpnode/store"
)

// api holds the HTTP handlers. Each decodes, calls one Service method
// and encodes; the logic lives in the service.
type api struct {
	n       Service
	streams *streams
	docs    *wellknown.Docs
	a2a     bool // an A2A server answers at A2APath
}

func (a *api) getCard(w http.ResponseWriter, r *http.Request) {
	writeAPIRaw(w, http.StatusOK, "application/json", a.n.Card().Raw())
}

func (a *api) putCard(w http.ResponseWriter, r *http.Request) {
	raw, err := readBody(r)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	c, err := adp.ParseCard(raw)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	c, err = a.n.SetCard(r.Context(), c)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIRaw(w, http.StatusOK, "application/json", c.Raw())
}

func viewRecord(rec *store.Record, now time.Time) CardView {
	v := CardView{
		ID: rec.Card.ID, Name: rec.Card.Name, AgentCard: rec.Card.Raw(),
		Source: rec.Source, Origin: rec.Origin,
		ReceivedAt: rec.ReceivedAt.UTC().Format(time.RFC3339Nano), Stale: rec.Stale(now),
	}
	if !rec.ExpiresAt.IsZero() {
		v.ExpiresAt = rec.ExpiresAt.UTC().Format(time.RFC3339Nano)
	}
	return v
}

// ViewCard is the answer of GET /v1/cards/{id}: the held card rec with
// its provenance, freshness and whether its signature verifies.
func ViewCard(rec *store.Record, now time.Time) CardView {
	v := viewRecord(rec, now)
	v.Signature = SignatureValid
	if err := rec.Card.Verify(); err != nil {
		v.Signature = err.Error()
	}
	return v
}

// maxListCards bounds one page of GET /v1/cards.
const maxListCards = 10000

func (a *api) listCards(w http.ResponseWriter, r *http.Request) {
	limit, err := QueryInt(r.URL.Query(), "limit", maxListCards, 1, maxListCards)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	offset, err := QueryInt(r.URL.Query(), "offset", 0, 0, 1<<31-1)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	out, err := cardPage(r.Context(), a.n, offset, limit)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIJSON(w, http.StatusOK, out)
}

// QueryInt reads the integer query parameter name of q in [lo, hi], def
// when absent; anything else is a 400 that names the parameter and its
// range.
func QueryInt(q url.Values, name string, def, lo, hi int) (int, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, badRequestf("", "query parameter %s must be an integer from %d to %d", name, lo, hi)
	}
	return v, nil
}

// getCardByID answers GET /v1/cards/{id}; escaped is the id as it
// appears in the escaped request path (see cardsByID).
func (a *api) getCardByID(w http.ResponseWriter, r *http.Request, escaped string) {
	id, err := url.PathUnescape(escaped)
	if err != nil {
		writeAPIError(w, badRequestf("/id", "not a valid URL path segment: %v", err))
		return
	}
	if rest, ok := strings.CutPrefix(id, "agent:/"); ok && !strings.HasPrefix(rest, "/") {
		id = "agent://" + rest // a proxy or client that cleaned the path folded the "//"
	}
	ctx, cancel := callContext(r)
	defer cancel()
	rec, err := a.n.LookupCard(ctx, id)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	if f := r.URL.Query().Get("format"); f != "" {
		a.cardInFormat(w, rec.Card, f)
		return
	}
	v := ViewCard(rec, time.Now())
	if dv, ok := a.n.(DomainVerifier); ok {
		v.DomainVerified = dv.DomainVerified(ctx, rec.Card)
	}
	writeAPIJSON(w, http.StatusOK, v)
}

// cardInFormat answers a card converted by package bridge to the format
// named by the format query parameter (adp, a2a, agentcard, oasf...).
func (a *api) cardInFormat(w http.ResponseWriter, c *adp.Card, format string) {
	b, err := CardInFormat(c, format)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIRaw(w, http.StatusOK, "application/json", b)
}

// CardInFormat converts c with package bridge to the format named
// (adp, a2a, agentcard, oasf...); an unknown format or a card the format
// cannot express is an *Error.
func CardInFormat(c *adp.Card, format string) ([]byte, error) {
	f, err := bridge.ParseFormat(format)
	if err != nil {
		return nil, badRequestf("", "query parameter format: %v", err)
	}
	b, err := bridge.Encode(f, c)
	if err != nil {
		return nil, &Error{Status: http.StatusUnprocessableEntity, Code: codeInvalidRequest, Message: "cannot express the card as " + string(f) + ": " + err.Error()}
	}
	return b, nil
}

func (a *api) discover(w http.ResponseWriter, r *http.Request) {
	raw, err := readBody(r)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	req, err := adp.ParseDiscoverRequest(raw)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	ctx, cancel := callContext(r)
	defer cancel()
	resp, err := a.n.Discover(ctx, req, r.URL.Query().Get("scope"))
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIJSON(w, http.StatusOK, resp)
}

func (a *api) describe(w http.ResponseWriter, r *http.Request) {
	var in DescribeRequest
	if err := decodeJSON(r, &in); err != nil {
		writeAPIError(w, err)
		return
	}
	if err := requireAgent(in.Agent); err != nil {
		writeAPIError(w, err)
		return
	}
	ctx, cancel := callContext(r)
	defer cancel()
	out, err := a.n.Describe(ctx, in.Agent, in.Fields)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIRaw(w, http.StatusOK, "application/json", out)
}

func (a *api) invoke(w http.ResponseWriter, r *http.Request) {
	var in InvokeRequest
	if err := decodeJSON(r, &in); err != nil {
		writeAPIError(w, err)
		return
	}
	timeout, body, err := checkInvoke(&in)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	if in.Stream {
		a.invokeStream(ctx, w, in, body)
		return
	}
	res, err := a.n.Invoke(ctx, in.Agent, in.Method, body)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIJSON(w, http.StatusOK, invokeResponse(&in, res))
}

// invokeStream answers application/x-ndjson, one chunk per line. An error
// before the first chunk is an ordinary error response; after it, a final
// line {"error": {...}}.
func (a *api) invokeStream(ctx context.Context, w http.ResponseWriter, in InvokeRequest, body []byte) {
	started := false
	flusher, _ := w.(http.Flusher)
	err := a.n.InvokeStream(ctx, in.Agent, in.Method, body, func(chunk json.RawMessage) error {
		if !started {
			w.Header().Set("Content-Type", NDJSON)
			w.WriteHeader(http.StatusOK)
			started = true
		}
		if _, err := w.Write(append(append([]byte(nil), chunk...), '\n')); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	})
	switch {
	case err != nil && !started:
		writeAPIError(w, err)
	case err != nil:
		b, _ := json.Marshal(map[string]*Error{"error": withCorrelation(ErrorOf(err))})
		w.Write(append(b, '\n'))
	case !started:
		w.Header().Set("Content-Type", NDJSON)
		w.WriteHeader(http.StatusOK)
	}
}

func (a *api) rate(w http.ResponseWriter, r *http.Request) {
	var in RateRequest
	if err := decodeJSON(r, &in); err != nil {
		writeAPIError(w, err)
		return
	}
	out, err := rateAgent(r.Context(), a.n, in.Agent, in.Stars)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIJSON(w, http.StatusOK, out)
}

func (a *api) advertise(w http.ResponseWriter, r *http.Request) {
	var in AdvertiseRequest
	if err := decodeJSON(r, &in); err != nil {
		writeAPIError(w, err)
		return
	}
	if in.Agent == "" {
		writeAPIError(w, badRequest("/agent", "required"))
		return
	}
	ctx, cancel := callContext(r)
	defer cancel()
	stored, err := a.n.Advertise(ctx, in.Agent)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIJSON(w, http.StatusOK, AdvertiseResponse{Agent: in.Agent, Stored: stored})
}

func (a *api) peers(w http.ResponseWriter, r *http.Request) {
	writeAPIJSON(w, http.StatusOK, PeersResponse{Peers: a.n.PeerInfos()})
}

func (a *api) arrivals(w http.ResponseWriter, r *http.Request) {
	agents := r.URL.Query()["agent"]
	if len(agents) > MaxArrivalAgents {
		writeAPIError(w, badRequestf("", "at most %d agent query parameters", MaxArrivalAgents))
		return
	}
	for i, id := range agents {
		norm, err := adp.NormalizeAgentID(id)
		if err != nil {
			writeAPIError(w, badRequestf("", "query parameter agent: %q is not an agent id: %v", id, err))
			return
		}
		agents[i] = norm
	}
	writeAPIJSON(w, http.StatusOK, nodeapi.Arrivals{Arrivals: a.n.Arrivals(agents...)})
}

func (a *api) network(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := callContext(r)
	defer cancel()
	nw, err := a.n.Network(ctx)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIJSON(w, http.StatusOK, nw)
}

func (a *api) status(w http.ResponseWriter, r *http.Request) {
	writeAPIJSON(w, http.StatusOK, a.n.Status())
}

// readBody reads the whole (already bounded) request body.
// An empty body is nil; anything else must be one JSON value.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, bodyError(err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	var raw json.RawMessage
	if err := decodeJSONBytes(body, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}
