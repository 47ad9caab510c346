package httpagent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/httpapi"
)

const (
	// MaxReply bounds a reply, or a failure's body, read from the server.
	MaxReply = 1 << 20
	// maxLine bounds one line of a streamed reply: one chunk.
	maxLine = aitp.MaxBodyPerMessage
	// maxStream bounds the whole of a streamed reply.
	maxStream = 64 * MaxReply
	// maxMessage bounds the message taken from a failure's plain body.
	maxMessage = 1024
	// DefaultTimeout applies to a call whose caller sent no deadline.
	DefaultTimeout = 30 * time.Second
	// CallerHeader carries the calling agent's id to the server.
	CallerHeader = "X-ADP-Caller"
)

// Agent forwards tool calls to an agent's HTTP server. Safe for
// concurrent use.
type Agent struct {
	base   *url.URL
	client *http.Client
}

// New returns an Agent for the server at rawURL (http or https); a tool's
// calls go to rawURL/<tool>.
func New(rawURL string) (*Agent, error) {
	u, err := url.Parse(rawURL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%w: %q: scheme must be http or https", ErrBadURL, rawURL)
	case u.Host == "":
		return nil, fmt.Errorf("%w: %q: host missing", ErrBadURL, rawURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &Agent{base: u, client: &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute, ResponseHeaderTimeout: DefaultTimeout},
		// Never follow a redirect off the agent's server.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// Close releases the idle connections to the server; calls under way end
// as they would. It always returns nil and may be called more than once.
func (a *Agent) Close() error {
	a.client.CloseIdleConnections()
	return nil
}

// StatusFromHTTP maps the server's HTTP status to an AITP status and
// error code (see the package documentation).
func StatusFromHTTP(code int) (aitp.Status, string) {
	switch {
	case code >= 200 && code < 300:
		return aitp.StatusOK, ""
	case code == http.StatusBadRequest || code == http.StatusUnprocessableEntity:
		return aitp.StatusInvalidRequest, aitp.CodeInvalidRequest
	case code == http.StatusUnauthorized:
		return aitp.StatusUnauthorized, aitp.CodeUnauthorized
	case code == http.StatusForbidden:
		return aitp.StatusUnauthorized, aitp.CodeForbidden
	case code == http.StatusNotFound:
		return aitp.StatusNotFound, aitp.CodeNotFound
	case code == http.StatusTooManyRequests:
		return aitp.StatusBusy, aitp.CodeRateLimited
	case code == http.StatusServiceUnavailable:
		return aitp.StatusBusy, aitp.CodeBusy
	case code == http.StatusGatewayTimeout:
		return aitp.StatusTimeout, aitp.CodeTimeout
	default:
		return aitp.StatusError, aitp.CodeInternal
	}
}

// Call forwards one tool call, r.Method, and writes the server's reply to
// w; caller is the calling agent's id. It is an aitp handler's body.
func (a *Agent) Call(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request, caller string) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	body := r.Body
	if len(body) == 0 {
		body = []byte("{}")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base.JoinPath(r.Method).String(), bytes.NewReader(body))
	if err != nil {
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "agent request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.StreamReply {
		req.Header.Set("Accept", httpapi.NDJSON+", application/json")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set(CallerHeader, caller)
	resp, err := a.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return aitp.Errorf(aitp.StatusTimeout, aitp.CodeTimeout, "", "agent did not answer in time")
		}
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "agent unreachable")
	}
	defer resp.Body.Close()
	if st, code := StatusFromHTTP(resp.StatusCode); st != aitp.StatusOK {
		return failure(resp, st, code)
	}
	if r.StreamReply && isStreamed(resp) {
		return copyLines(w, resp.Body)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxReply+1))
	if err != nil {
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "reading agent reply: %v", err)
	}
	if len(raw) > MaxReply {
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "agent reply larger than %d bytes", MaxReply)
	}
	_, err = w.Write(raw)
	return err
}

// failure is the error of a reply whose status maps to st and code: the
// body's error model when it has one, else its text.
func failure(resp *http.Response, st aitp.Status, code string) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, MaxReply))
	e := &aitp.Error{Status: st, Code: code, Message: http.StatusText(resp.StatusCode)}
	var model struct{ Code, Message, Path string }
	if json.Unmarshal(raw, &model) == nil && model.Message != "" {
		e.Message, e.Path = model.Message, model.Path
		if model.Code != "" {
			e.Code = model.Code
		}
	} else if s := strings.TrimSpace(string(raw)); s != "" {
		e.Message = s[:min(len(s), maxMessage)]
	}
	return e
}

// isStreamed reports whether the server answered with a line stream.
func isStreamed(resp *http.Response) bool {
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil && mt == httpapi.NDJSON {
		return true
	}
	for _, te := range resp.TransferEncoding {
		if te == "chunked" {
			return true
		}
	}
	return false
}

// copyLines writes each non-empty line of body as one stream chunk.
func copyLines(w aitp.ResponseWriter, body io.Reader) error {
	sc := bufio.NewScanner(io.LimitReader(body, maxStream))
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "reading agent stream: %v", err)
	}
	return nil
}
