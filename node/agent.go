package node

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

// Limits on the agent beside the node.
const (
	// maxAgentReply bounds a reply read from the agent's HTTP server.
	maxAgentReply = 1 << 20
	// maxAgentLine bounds one line of a streamed (NDJSON) reply.
	maxAgentLine = aitp.MaxBodyPerMessage
	// agentCallTimeout applies when the caller sent no deadline.
	agentCallTimeout = 30 * time.Second
	// ndjson is the content type of a streamed reply.
	ndjson = httpapi.NDJSON
	// callerHeader carries the calling agent's id to the agent.
	callerHeader = "X-ADP-Caller"
)

// httpAgent forwards tool calls to the agent's own HTTP server: a JSON POST
// to <base>/<method>, the HTTP status mapped to an AITP status, the body
// passed back. A reply of type application/x-ndjson, or a chunked reply,
// is streamed line by line when the caller accepts a streamed reply.
// Safe for concurrent use.
type httpAgent struct {
	base   *url.URL
	client *http.Client
}

func newHTTPAgent(raw string) (*httpAgent, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: agent_url: %v", ErrInvalidConfig, err)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &httpAgent{base: u, client: &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute, ResponseHeaderTimeout: agentCallTimeout},
		// Never follow a redirect off the agent's server.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// close releases idle connections to the agent.
func (a *httpAgent) close() { a.client.CloseIdleConnections() }

// statusFromHTTP maps the agent's HTTP status to an AITP status and error code.
func statusFromHTTP(code int) (aitp.Status, string) {
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

// call forwards one tool call. caller is the calling agent's id.
func (a *httpAgent) call(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request, caller string) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, agentCallTimeout)
		defer cancel()
	}
	u := a.base.JoinPath(r.Method)
	body := r.Body
	if len(body) == 0 {
		body = []byte("{}")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "agent request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.StreamReply {
		req.Header.Set("Accept", ndjson+", application/json")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set(callerHeader, caller)
	resp, err := a.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return aitp.Errorf(aitp.StatusTimeout, aitp.CodeTimeout, "", "agent did not answer in time")
		}
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "agent unreachable")
	}
	defer resp.Body.Close()
	st, code := statusFromHTTP(resp.StatusCode)
	if st != aitp.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxAgentReply))
		e := &aitp.Error{Status: st, Code: code, Message: http.StatusText(resp.StatusCode)}
		var model struct{ Code, Message, Path string }
		if json.Unmarshal(raw, &model) == nil && model.Message != "" {
			e.Message, e.Path = model.Message, model.Path
			if model.Code != "" {
				e.Code = model.Code
			}
		} else if s := strings.TrimSpace(string(raw)); s != "" {
			e.Message = truncate(s, 1024)
		}
		return e
	}
	if r.StreamReply && isStreamed(resp) {
		return copyLines(w, resp.Body)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAgentReply+1))
	if err != nil {
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "reading agent reply: %v", err)
	}
	if len(raw) > maxAgentReply {
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "agent reply larger than %d bytes", maxAgentReply)
	}
	_, err = w.Write(raw)
	return err
}

// isStreamed reports whether the agent answered with a line stream.
func isStreamed(resp *http.Response) bool {
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil && mt == ndjson {
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
	sc := bufio.NewScanner(io.LimitReader(body, 64*maxAgentReply))
	sc.Buffer(make([]byte, 0, 4096), maxAgentLine)
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

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
