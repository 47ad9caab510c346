package didwba

import (
	"net/http"
	"strconv"
)

// MediaType is the media type DID documents are served with
// (application/json: did:wba method, 2.4, expects it from most servers).
const MediaType = "application/json"

// DocumentHandler serves d, encoded once, at whatever path it is
// mounted on (the DID's DocumentPath): GET and HEAD only, cacheable for
// the resolver cache's lifetime.
func DocumentHandler(d *Document) (http.Handler, error) {
	body, err := d.Marshal()
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", MediaType)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(DefaultCacheTTL.Seconds())))
		h.Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodHead {
			return
		}
		w.Write(body)
	}), nil
}
