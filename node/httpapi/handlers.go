package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/store"
)

// api holds the HTTP handlers. Each decodes, calls one Service method
// and encodes; the logic lives in the service.
type api struct{ n Service }

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

// maxListCards bounds one page of GET /v1/cards.
const maxListCards = 10000

func (a *api) listCards(w http.ResponseWriter, r *http.Request) {
	limit, err := queryInt(r, "limit", maxListCards, 1, maxListCards)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	offset, err := queryInt(r, "offset", 0, 0, 1<<31-1)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	recs, err := a.n.Cards(r.Context())
	if err != nil {
		writeAPIError(w, err)
		return
	}
	now := time.Now()
	out := CardList{Count: len(recs), Cards: []CardView{}}
	for i := offset; i < len(recs) && len(out.Cards) < limit; i++ {
		out.Cards = append(out.Cards, viewRecord(recs[i], now))
	}
	writeAPIJSON(w, http.StatusOK, out)
}

// queryInt reads an integer query parameter in [lo, hi], def when absent.
func queryInt(r *http.Request, name string, def, lo, hi int) (int, error) {
	s := r.URL.Query().Get(name)
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
	writeAPIJSON(w, http.StatusOK, viewRecord(rec, time.Now()))
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
	if in.Agent == "" {
		writeAPIError(w, badRequest("/agent", "required"))
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
	switch {
	case in.Agent == "":
		writeAPIError(w, badRequest("/agent", "required"))
		return
	case in.Method == "":
		writeAPIError(w, badRequest("/method", "required"))
		return
	case !aitp.ValidMethod(in.Method):
		writeAPIError(w, badRequestf("/method", "must be 1 to %d octets of UTF-8 without spaces or control characters", aitp.MaxMethodLen))
		return
	case in.TimeoutMS < 0 || in.TimeoutMS > MaxInvokeTimeoutMS:
		writeAPIError(w, badRequestf("/timeout_ms", "must be 0 to %d", MaxInvokeTimeoutMS))
		return
	}
	timeout := DefaultInvokeTimeout
	if in.TimeoutMS > 0 {
		timeout = time.Duration(in.TimeoutMS) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	body := []byte(in.Body)
	if len(body) == 0 || string(body) == "null" {
		body = []byte("{}")
	}
	if in.Stream {
		a.invokeStream(ctx, w, in, body)
		return
	}
	res, err := a.n.Invoke(ctx, in.Agent, in.Method, body)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIJSON(w, http.StatusOK, InvokeResponse{
		Agent: in.Agent, Method: in.Method, Body: res.Body, LatencyMS: float64(res.Latency.Microseconds()) / 1000,
	})
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
		b, _ := json.Marshal(map[string]*Error{"error": ErrorOf(err)})
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
	switch {
	case in.Agent == "":
		writeAPIError(w, badRequest("/agent", "required"))
		return
	case in.Stars == nil:
		writeAPIError(w, badRequest("/stars", "required"))
		return
	}
	if err := a.n.Rate(r.Context(), in.Agent, *in.Stars); err != nil {
		writeAPIError(w, err)
		return
	}
	stats, err := a.n.Stats(r.Context(), in.Agent)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIJSON(w, http.StatusOK, RateResponse{Agent: in.Agent, Stars: *in.Stars, RatingCount: stats.RatingCount, RatingMean: stats.RatingMean})
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

func (a *api) status(w http.ResponseWriter, r *http.Request) {
	writeAPIJSON(w, http.StatusOK, a.n.Status())
}

func (a *api) wellKnown(doc wellKnownDoc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := doc.render(a.n, r)
		var ae *Error
		if err != nil && !errors.As(err, &ae) {
			// The card cannot be expressed in this format: the node's fault.
			err = &Error{Status: http.StatusInternalServerError, Code: codeInternal, Message: "cannot render " + r.URL.Path + ": " + err.Error()}
		}
		if err != nil {
			writeAPIError(w, err)
			return
		}
		writeAPIRaw(w, http.StatusOK, doc.contentType, body)
	}
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
