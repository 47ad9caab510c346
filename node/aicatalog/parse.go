package aicatalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/internal/jsonerr"
)

// wireRequest is the body as sent: filter values are a string or a list.
type wireRequest struct {
	Query      json.RawMessage `json:"query"`
	Federation string          `json:"federation"`
	PageSize   *int            `json:"pageSize"`
	PageToken  string          `json:"pageToken"`
}

type wireQuery struct {
	Text   *string                    `json:"text"`
	Filter map[string]json.RawMessage `json:"filter"`
}

// ParseSearchRequest decodes and checks a POST /search body, in this
// order: size (ErrTooLarge), JSON shape (unknown members refused, as the
// draft's schema says), query.text present, non-empty and bounded, the
// filter keys among the supported ones with string values, federation one
// of the draft's modes, pageSize 1..MaxPageSize (default DefaultPageSize)
// and no pageToken (a directory answers in one page). Every refusal is a
// *RequestError naming the JSON Pointer at fault.
func ParseSearchRequest(body []byte) (*SearchRequest, error) {
	if len(body) > MaxBodyBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(body), MaxBodyBytes)
	}
	var w wireRequest
	if err := decodeStrict(body, &w, ""); err != nil {
		return nil, err
	}
	if len(w.Query) == 0 || string(w.Query) == "null" {
		return nil, invalid("/query", "required")
	}
	var q wireQuery
	if err := decodeStrict(w.Query, &q, "/query"); err != nil {
		return nil, err
	}
	if q.Text == nil {
		return nil, invalid("/query/text", "required for search")
	}
	req := &SearchRequest{PageSize: DefaultPageSize, Federation: FederationAuto}
	text := strings.TrimSpace(*q.Text)
	switch {
	case text == "":
		return nil, invalid("/query/text", "must not be empty")
	case len(text) > MaxTextBytes:
		return nil, invalid("/query/text", "longer than %d bytes", MaxTextBytes)
	case !utf8.ValidString(text):
		return nil, invalid("/query/text", "not valid UTF-8")
	}
	req.Query.Text = text
	filter, err := parseFilter(q.Filter)
	if err != nil {
		return nil, err
	}
	req.Query.Filter = filter
	switch w.Federation {
	case "":
	case FederationAuto, FederationReferrals, FederationNone:
		req.Federation = w.Federation
	default:
		return nil, invalid("/federation", "want one of auto, referrals, none")
	}
	if w.PageSize != nil {
		if *w.PageSize < 1 || *w.PageSize > MaxPageSize {
			return nil, invalid("/pageSize", "must be from 1 to %d", MaxPageSize)
		}
		req.PageSize = *w.PageSize
	}
	if w.PageToken != "" {
		return nil, invalid("/pageToken", "unknown page token: this registry answers in one page")
	}
	return req, nil
}

// decodeStrict decodes one JSON value into v, refusing unknown members
// and trailing data; at prefixes the JSON Pointer of a refusal.
func decodeStrict(b []byte, v any, at string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		path, msg := jsonerr.Describe(err)
		if path == "" && at != "" && strings.HasPrefix(msg, "the body must be") {
			msg = "want an object"
		}
		return invalid(at+path, "%s", msg)
	}
	if !jsonerr.AtEnd(dec) {
		return invalid(at, "trailing data after the JSON value")
	}
	return nil
}

// supportedFilters are the filter keys a search honours.
var supportedFilters = map[string]bool{FilterType: true, FilterTags: true, FilterCapabilities: true, FilterSource: true}

func parseFilter(raw map[string]json.RawMessage) (map[string][]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first error reported is the same every time
	out := make(map[string][]string, len(raw))
	for _, k := range keys {
		path := "/query/filter/" + pointerToken(k)
		if !supportedFilters[k] {
			return nil, invalid(path, "unsupported filter field (supported: capabilities, source, tags, type)")
		}
		var vals []string
		var one string
		if err := json.Unmarshal(raw[k], &one); err == nil {
			vals = []string{one}
		} else if err := json.Unmarshal(raw[k], &vals); err != nil {
			return nil, invalid(path, "want a string or a list of strings")
		}
		if len(vals) == 0 || len(vals) > MaxFilterValues {
			return nil, invalid(path, "want 1 to %d values", MaxFilterValues)
		}
		for i, v := range vals {
			if v == "" || len(v) > MaxFilterValueBytes || !utf8.ValidString(v) {
				return nil, invalid(fmt.Sprintf("%s/%d", path, i), "want a non-empty UTF-8 string of at most %d bytes", MaxFilterValueBytes)
			}
		}
		out[k] = vals
	}
	return out, nil
}

// pointerToken escapes a member name for a JSON Pointer (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// Discover is the adp.discover request a search asks of a discovery
// engine: the text as the query, the tags filter as tags (they raise the
// rank; the filter itself is applied to the results), and as many
// candidates as a page can use once filtered.
func (r *SearchRequest) Discover() *adp.DiscoverRequest {
	limit := r.PageSize
	if len(r.Query.Filter) > 0 {
		limit = MaxPageSize
	}
	req := &adp.DiscoverRequest{Query: r.Query.Text, Limit: limit, Detail: adp.DetailFull}
	for _, t := range r.Query.Filter[FilterTags] {
		if n := tag.Clean(t); tag.Check(n) == nil {
			req.Tags = append(req.Tags, n)
		}
	}
	return req.WithDefaults()
}

// errorBody is the draft's error object for err.
func errorBody(err error) ErrorBody {
	var re *RequestError
	switch {
	case errors.As(err, &re):
		return ErrorBody{ErrorCode: CodeInvalidArgument, Message: re.Msg, Path: re.Path}
	case errors.Is(err, ErrTooLarge):
		return ErrorBody{ErrorCode: CodeInvalidArgument, Message: fmt.Sprintf("request body larger than %d bytes", MaxBodyBytes)}
	}
	return ErrorBody{ErrorCode: CodeInternal, Message: "the search failed"}
}
