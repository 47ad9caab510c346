package node

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

// api holds the HTTP handlers. Each decodes, calls one Node method and
// encodes; the logic lives in the Node.
type api struct{ n *Node }

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

// cardView is a held card with its provenance and freshness.
type cardView struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	AgentCard  json.RawMessage `json:"agent_card"`
	Source     store.Source    `json:"source"`
	Origin     string          `json:"origin,omitempty"`
	ReceivedAt string          `json:"received_at"`
	ExpiresAt  string          `json:"expires_at,omitempty"`
	Stale      bool            `json:"stale"`
}

func viewRecord(rec *store.Record, now time.Time) cardView {
	v := cardView{
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
	out := struct {
		Count int        `json:"count"` // all held cards
		Cards []cardView `json:"cards"` // this page, in agent id order
	}{Count: len(recs), Cards: []cardView{}}
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
		return 0, badRequest("", "query parameter %s must be an integer from %d to %d", name, lo, hi)
	}
	return v, nil
}

// getCardByID answers GET /v1/cards/{id}; escaped is the id as it
// appears in the escaped request path (see cardsByID).
func (a *api) getCardByID(w http.ResponseWriter, r *http.Request, escaped string) {
	id, err := url.PathUnescape(escaped)
	if err != nil {
		writeAPIError(w, badRequest("/id", "not a valid URL path segment: %v", err))
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
	var in struct {
		Agent  string   `json:"agent"`
		Fields []string `json:"fields"`
	}
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

// invokeRequest is the body of POST /v1/invoke.
type invokeRequest struct {
	Agent     string          `json:"agent"`
	Method    string          `json:"method"`
	Body      json.RawMessage `json:"body"`
	Stream    bool            `json:"stream"`
	TimeoutMS int             `json:"timeout_ms"`
}

func (a *api) invoke(w http.ResponseWriter, r *http.Request) {
	var in invokeRequest
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
		writeAPIError(w, badRequest("/method", "must be 1 to %d octets of UTF-8 without spaces or control characters", aitp.MaxMethodLen))
		return
	case in.TimeoutMS < 0 || in.TimeoutMS > int(10*time.Minute/time.Millisecond):
		writeAPIError(w, badRequest("/timeout_ms", "must be 0 to 600000"))
		return
	}
	timeout := apiCallTimeout
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
	writeAPIJSON(w, http.StatusOK, map[string]any{
		"agent": in.Agent, "method": in.Method, "body": res.Body, "latency_ms": float64(res.Latency.Microseconds()) / 1000,
	})
}

// invokeStream answers application/x-ndjson, one chunk per line. An error
// before the first chunk is an ordinary error response; after it, a final
// line {"error": {...}}.
func (a *api) invokeStream(ctx context.Context, w http.ResponseWriter, in invokeRequest, body []byte) {
	started := false
	flusher, _ := w.(http.Flusher)
	err := a.n.InvokeStream(ctx, in.Agent, in.Method, body, func(chunk json.RawMessage) error {
		if !started {
			w.Header().Set("Content-Type", ndjson)
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
		b, _ := json.Marshal(map[string]*apiError{"error": toAPIError(err)})
		w.Write(append(b, '\n'))
	case !started:
		w.Header().Set("Content-Type", ndjson)
		w.WriteHeader(http.StatusOK)
	}
}

func (a *api) rate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Agent string `json:"agent"`
		Stars *int   `json:"stars"`
	}
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
	writeAPIJSON(w, http.StatusOK, map[string]any{"agent": in.Agent, "stars": *in.Stars, "rating_count": stats.RatingCount, "rating_mean": stats.RatingMean})
}

func (a *api) advertise(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Agent string `json:"agent"`
	}
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
	writeAPIJSON(w, http.StatusOK, map[string]any{"agent": in.Agent, "stored": stored})
}

func (a *api) peers(w http.ResponseWriter, r *http.Request) {
	writeAPIJSON(w, http.StatusOK, map[string]any{"peers": a.n.PeerInfos()})
}

func (a *api) status(w http.ResponseWriter, r *http.Request) {
	writeAPIJSON(w, http.StatusOK, a.n.Status())
}

func (a *api) wellKnown(doc wellKnownDoc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := doc.render(a.n, r)
		var ae *apiError
		if err != nil && !errors.As(err, &ae) {
			// The card cannot be expressed in this format: the node's fault.
			err = &apiError{status: http.StatusInternalServerError, Code: codeInternal, Message: "cannot render " + r.URL.Path + ": " + err.Error()}
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

// toAPIError maps an error from the node to the error model and an HTTP
// status.
func toAPIError(err error) *apiError {
	var (
		ae  *apiError
		ve  *adp.ValidationError
		re  *aitp.Error
		mbe *http.MaxBytesError
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &mbe), errors.Is(err, adp.ErrTooLarge):
		return &apiError{status: http.StatusRequestEntityTooLarge, Code: codeInvalidRequest, Message: err.Error()}
	case errors.As(err, &ve):
		e := &apiError{status: http.StatusBadRequest, Code: codeInvalidRequest, Message: ve.Error()}
		if len(ve.Problems) > 0 {
			e.Path = ve.Problems[0].Path
		}
		return e
	case errors.As(err, &re):
		return remoteAPIError(re)
	case errors.Is(err, store.ErrRevoked):
		return &apiError{status: http.StatusGone, Code: codeNotFound, Message: err.Error()}
	case errors.Is(err, store.ErrNotFound), errors.Is(err, adp.ErrNotFound):
		return &apiError{status: http.StatusNotFound, Code: codeNotFound, Message: err.Error()}
	case errors.Is(err, adp.ErrBadID):
		return &apiError{status: http.StatusBadRequest, Code: codeInvalidRequest, Path: "/agent", Message: err.Error()}
	case errors.Is(err, adp.ErrMalformed), errors.Is(err, adp.ErrTooDeep), errors.Is(err, adp.ErrInvalid), errors.Is(err, store.ErrInvalid):
		return &apiError{status: http.StatusBadRequest, Code: codeInvalidRequest, Message: err.Error()}
	case errors.Is(err, ErrBadScope):
		return &apiError{status: http.StatusBadRequest, Code: codeInvalidRequest, Message: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{status: http.StatusGatewayTimeout, Code: codeTimeout, Message: "the network did not answer in time"}
	case errors.Is(err, ErrClosed), errors.Is(err, store.ErrClosed), errors.Is(err, aitp.ErrClosed):
		return &apiError{status: http.StatusServiceUnavailable, Code: codeInternal, Message: "node is shutting down"}
	case errors.Is(err, aitp.ErrCircuitOpen):
		return &apiError{status: http.StatusServiceUnavailable, Code: codeInternal, Message: err.Error()}
	case errors.Is(err, ErrUnreachable), errors.Is(err, aitp.ErrConnLost), errors.Is(err, aitp.ErrAborted):
		return &apiError{status: http.StatusBadGateway, Code: codeInternal, Message: err.Error()}
	default:
		return &apiError{status: http.StatusInternalServerError, Code: codeInternal, Message: err.Error()}
	}
}

// remoteAPIError maps a remote agent's AITP failure to an HTTP status,
// keeping its code, message and path.
func remoteAPIError(re *aitp.Error) *apiError {
	e := &apiError{Code: re.Code, Message: re.Message, Path: re.Path}
	switch re.Status {
	case aitp.StatusInvalidRequest:
		e.status = http.StatusBadRequest
	case aitp.StatusUnauthorized:
		e.status = http.StatusUnauthorized
		if re.Code == codeForbidden {
			e.status = http.StatusForbidden
		}
	case aitp.StatusNotFound:
		e.status = http.StatusNotFound
	case aitp.StatusBusy:
		e.status = http.StatusTooManyRequests
	case aitp.StatusTimeout:
		e.status = http.StatusGatewayTimeout
	default:
		e.status = http.StatusBadGateway
	}
	if e.Code == "" {
		e.Code = codeInternal
	}
	return e
}
