package webui

import (
	"bytes"
	"embed"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

// AssetPrefix is the path the page's modules and style sheet are served
// under; the page itself is served at "/".
const AssetPrefix = "/ui/"

// csp allows the page only its own scripts, styles and API: card text
// that slipped into markup could still run nothing.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

//go:embed static
var static embed.FS

// Files returns the embedded files by name (index.html, app.js...).
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the directory is embedded
	}
	return sub
}

// Size returns the total size in bytes of the embedded files: the page
// weight, since the page loads all of them.
func Size() int {
	total := 0
	fs.WalkDir(Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(Files(), p)
			total += len(b)
		}
		return nil
	})
	return total
}

// Option configures Handler.
type Option func(*config)

type config struct{ apiBase string }

// ReadOnly serves the page in its read-only form, for a public server:
// the page reads its API under apiBase (apiBase + "/v1/status", ...; only
// GET requests), offers no invoke and follows no event stream. It learns
// this from a meta tag the handler adds to index.html:
//
//	<meta name="adpnode-read-only" content="/view">
func ReadOnly(apiBase string) Option { return func(c *config) { c.apiBase = apiBase } }

// ReadOnlyMeta is the name of the meta tag ReadOnly adds.
const ReadOnlyMeta = "adpnode-read-only"

// Handler serves the page at "/" and its assets under AssetPrefix; any
// other path is not found.
func Handler(opts ...Option) http.Handler {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	files := Files()
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		panic(err) // the file is embedded
	}
	if cfg.apiBase != "" {
		meta := `<meta name="` + ReadOnlyMeta + `" content="` + html.EscapeString(cfg.apiBase) + `">`
		index = bytes.Replace(index, []byte(`<meta charset="utf-8">`), []byte(`<meta charset="utf-8">`+"\n"+meta), 1)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := "index.html"
		if r.URL.Path != "/" {
			rest, ok := strings.CutPrefix(r.URL.Path, AssetPrefix)
			if !ok || rest == "" || rest == "index.html" || !fs.ValidPath(rest) {
				http.NotFound(w, r)
				return
			}
			name = rest
		}
		b, err := fs.ReadFile(files, name)
		if name == "index.html" {
			b = index
		}
		if err != nil {
			http.NotFound(w, r)
			return
		}
		ct := mime.TypeByExtension(path.Ext(name))
		if strings.HasSuffix(name, ".js") {
			ct = "text/javascript; charset=utf-8"
		}
		h := w.Header()
		h.Set("Content-Type", ct)
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	})
}
