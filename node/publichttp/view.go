package publichttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/wellknown"
	"github.com/adpnode/adpnode/store"
)

// ViewPrefix is where the read-only page's endpoints live: the page asks
// ViewPrefix + "/v1/status" and so on, never the admin API's /v1/*.
const ViewPrefix = "/view"

// base is where the documents say the server is reached: the configured
// URL, or http:// and the request's Host.
func (h *handler) base(r *http.Request) (wellknown.Base, error) {
	b, err := h.baseURL(r)
	if err == nil && h.a2a {
		b.A2AURL = b.URL + httpapi.A2APath
	}
	return b, err
}

func (h *handler) baseURL(r *http.Request) (wellknown.Base, error) {
	if h.url != "" {
		return wellknown.Base{URL: h.url}, nil
	}
	u, err := url.Parse("http://" + r.Host)
	if err != nil || r.Host == "" || u.Host != r.Host || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return wellknown.Base{}, httpapi.NewError(http.StatusBadRequest, "the Host header is not a host name or address with an optional port")
	}
	return wellknown.Base{URL: "http://" + r.Host}, nil
}

func (h *handler) wellKnown(w http.ResponseWriter, r *http.Request) {
	b, err := h.base(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	doc, err := h.docs.Render(r.Context(), r.URL.Path, b, r.URL.Query())
	writeDoc(w, r, doc, err)
}

func (h *handler) description(w http.ResponseWriter, r *http.Request) {
	b, err := h.base(r)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	doc, err := h.docs.Description(r.PathValue("id"), b)
	writeDoc(w, r, doc, err)
}

// writeDoc answers doc with its caching headers, or err in the API's
// error model.
func writeDoc(w http.ResponseWriter, r *http.Request, doc *wellknown.Document, err error) {
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	wellknown.Write(w, r, doc)
}

// status is the node's summary without what only its operator should
// see: the API URL, the agent process, and listen addresses that are not
// public.
func (h *handler) status(w http.ResponseWriter, r *http.Request) {
	st := h.svc.Status()
	st.APIURL, st.Agent = "", nil
	st.Addrs = publicAddrs(st.Addrs)
	writeJSON(w, st)
}

// peers lists the connected peers without their addresses (where a
// reader of the page is, is not the page's to tell); whether each
// connection is direct or relayed stays.
func (h *handler) peers(w http.ResponseWriter, r *http.Request) {
	ps := h.svc.PeerInfos()
	for i := range ps {
		ps[i].Addrs = []string{}
	}
	writeJSON(w, httpapi.PeersResponse{Peers: ps})
}

func (h *handler) cards(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := httpapi.QueryInt(q, "limit", MaxViewCards, 1, MaxViewCards)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	offset, err := httpapi.QueryInt(q, "offset", 0, 0, 1<<31-1)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	recs, total, err := h.svc.CardPage(r.Context(), offset, limit)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	now := time.Now()
	out := httpapi.CardList{Count: total, Cards: []httpapi.CardView{}}
	for _, rec := range recs {
		v := httpapi.ViewCard(rec, now)
		v.Signature = ""
		out.Cards = append(out.Cards, v)
	}
	writeJSON(w, out)
}

// card answers one held card (never looked up on the network), or it in
// another format (?format=a2a, agentcard, oasf...).
func (h *handler) card(w http.ResponseWriter, r *http.Request) {
	rec, err := h.svc.HeldCard(r.Context(), r.PathValue("id"))
	if errors.Is(err, store.ErrRevoked) {
		err = store.ErrNotFound
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	q := r.URL.Query()
	if f := q.Get("format"); f != "" {
		b, err := httpapi.CardInFormat(rec.Card, f)
		if err != nil {
			httpapi.WriteError(w, err)
			return
		}
		writeRaw(w, b)
		return
	}
	writeJSON(w, httpapi.ViewCard(rec, time.Now()))
}

// discoverQuery is the JSON form of a discovery's query parameters,
// checked by adp.ParseDiscoverRequest like any discover request.
type discoverQuery struct {
	Query           string   `json:"query,omitempty"`
	Tags            []string `json:"tags,omitempty"`
	RequiredTags    []string `json:"required_tags,omitempty"`
	ExcludedTags    []string `json:"excluded_tags,omitempty"`
	Limit           int      `json:"limit,omitempty"`
	MinScore        *float64 `json:"min_score,omitempty"`
	IncludeEvidence bool     `json:"include_evidence"`
	Detail          string   `json:"detail"`
}

// discoverParams are the query parameters of a discovery; any other is
// refused.
var discoverParams = map[string]bool{"q": true, "tag": true, "required": true, "excluded": true, "limit": true, "min_score": true}

// parseDiscover reads a discovery from query parameters: q (text), tag,
// required, excluded (each repeatable, at most MaxListParams), limit (1 to
// MaxDiscoverLimit) and min_score (0 to 1).
func parseDiscover(q url.Values) (*adp.DiscoverRequest, error) {
	for k, v := range q {
		switch {
		case !discoverParams[k]:
			return nil, httpapi.NewError(http.StatusBadRequest, "unknown query parameter "+strconv.Quote(k))
		case len(v) > MaxListParams:
			return nil, httpapi.NewError(http.StatusBadRequest, "query parameter "+k+": at most "+strconv.Itoa(MaxListParams)+" values")
		case k != "tag" && k != "required" && k != "excluded" && len(v) > 1:
			return nil, httpapi.NewError(http.StatusBadRequest, "query parameter "+k+" given more than once")
		}
	}
	limit, err := httpapi.QueryInt(q, "limit", 10, 1, MaxDiscoverLimit)
	if err != nil {
		return nil, err
	}
	dq := discoverQuery{Query: q.Get("q"), Tags: q["tag"], RequiredTags: q["required"], ExcludedTags: q["excluded"],
		Limit: limit, IncludeEvidence: true, Detail: "full"}
	if s := q.Get("min_score"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return nil, httpapi.NewError(http.StatusBadRequest, "query parameter min_score must be a number from 0 to 1")
		}
		dq.MinScore = &f
	}
	raw, err := json.Marshal(dq)
	if err != nil {
		return nil, err
	}
	return adp.ParseDiscoverRequest(raw)
}

// discoverAgents ranks the cards this node holds (scope local: a public
// request never makes the node ask the network); it is mounted behind
// the discovery rate limit (limitDiscover).
func (h *handler) discoverAgents(w http.ResponseWriter, r *http.Request) {
	req, err := parseDiscover(r.URL.Query())
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	ctx, cancel := contextWithTimeout(r, discoverTimeout)
	defer cancel()
	resp, err := h.svc.Discover(ctx, req, discovery.ScopeLocal)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	writeJSON(w, resp)
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	writeRaw(w, b)
}

// writeRaw answers a JSON view: not cached (it changes with every card).
func writeRaw(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", wellknown.JSONType)
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(append(b, '\n'))
}

// publicAddrs keeps the multiaddrs whose IP is a public one.
func publicAddrs(addrs []string) []string {
	out := []string{}
	for _, a := range addrs {
		if m, err := ma.NewMultiaddr(a); err == nil && manet.IsPublicAddr(m) {
			out = append(out, a)
		}
	}
	return out
}

func contextWithTimeout(r *http.Request, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), d)
}
