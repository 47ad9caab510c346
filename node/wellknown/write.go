package wellknown

import (
	"bytes"
	"net/http"
	"strconv"
)

// Write answers doc to a GET or HEAD request with its caching headers:
// ETag (ETag(doc.Body)), Cache-Control "public, max-age=<doc.MaxAge>",
// Last-Modified when doc.Modified is known, and 304 Not Modified when the
// request's If-None-Match names the ETag (or, without If-None-Match, its
// If-Modified-Since is not older than doc.Modified).
func Write(w http.ResponseWriter, r *http.Request, doc *Document) {
	h := w.Header()
	h.Set("Content-Type", doc.ContentType)
	h.Set("ETag", ETag(doc.Body))
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(doc.MaxAge.Seconds())))
	http.ServeContent(w, r, "", doc.Modified, bytes.NewReader(doc.Body))
}
