package httpapi

import (
	"net/http"

	"github.com/adpnode/adpnode/node/wellknown"
)

// wellKnown serves one document of package wellknown, with its caching
// headers, linking to the API's own URL.
func (a *api) wellKnown(w http.ResponseWriter, r *http.Request) {
	doc, err := a.docs.Render(r.Context(), r.URL.Path, a.base(), r.URL.Query())
	a.writeDoc(w, r, doc, err)
}

// anpDescription serves GET /agents/{id}/ad.json: the ANP description of
// the own card or, on a directory peer, of a held card.
func (a *api) anpDescription(w http.ResponseWriter, r *http.Request) {
	doc, err := a.docs.Description(r.PathValue("id"), a.base())
	a.writeDoc(w, r, doc, err)
}

// base is where the documents say the node is reached: the API, whose
// POST /v1/invoke the AgentCard document names as the agent's endpoint.
func (a *api) base() wellknown.Base {
	u := a.n.APIURL()
	b := wellknown.Base{URL: u, InvokeURL: u + "/v1/invoke"}
	if a.a2a {
		b.A2AURL = u + A2APath
	}
	return b
}

// writeDoc answers doc with its caching headers, or err (a card the
// format cannot express is the node's fault: 500).
func (a *api) writeDoc(w http.ResponseWriter, r *http.Request, doc *wellknown.Document, err error) {
	if err != nil {
		writeAPIError(w, err)
		return
	}
	wellknown.Write(w, r, doc)
}
