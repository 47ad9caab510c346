package aicatalog

import "encoding/json"

// Catalog is the capability manifest (§4.1).
type Catalog struct {
	SpecVersion string    `json:"specVersion"`
	Host        *HostInfo `json:"host,omitempty"`
	Entries     []Entry   `json:"entries"`
}

// HostInfo names the operator of a catalog (§4.3).
type HostInfo struct {
	DisplayName      string `json:"displayName"`
	Identifier       string `json:"identifier,omitempty"`
	DocumentationURL string `json:"documentationUrl,omitempty"`
	LogoURL          string `json:"logoUrl,omitempty"`
}

// Entry is a catalog entry (§4.2): exactly one of URL and Data is set.
type Entry struct {
	Identifier            string          `json:"identifier"`
	DisplayName           string          `json:"displayName"`
	Type                  string          `json:"type"`
	URL                   string          `json:"url,omitempty"`
	Data                  json.RawMessage `json:"data,omitempty"`
	Description           string          `json:"description,omitempty"`
	Tags                  []string        `json:"tags,omitempty"`
	Capabilities          []string        `json:"capabilities,omitempty"`
	RepresentativeQueries []string        `json:"representativeQueries,omitempty"`
	Version               string          `json:"version,omitempty"`
	UpdatedAt             string          `json:"updatedAt,omitempty"`
	Metadata              map[string]any  `json:"metadata,omitempty"`
	TrustManifest         json.RawMessage `json:"trustManifest,omitempty"`
}

// Query is the query model shared by search and explore (§7.1). Filter
// values are normalized to lists (a bare string is a one-element list).
type Query struct {
	Text   string              `json:"text"`
	Filter map[string][]string `json:"filter,omitempty"`
}

// SearchRequest is the body of POST /search (§7.2).
type SearchRequest struct {
	Query      Query  `json:"query"`
	Federation string `json:"federation,omitempty"`
	PageSize   int    `json:"pageSize,omitempty"`
	PageToken  string `json:"pageToken,omitempty"`
}

// Result is a ranked catalog entry: Score is the relevance (0–100, not a
// trust rating) and Source where the entry was indexed (§7.2).
type Result struct {
	Entry
	Score  int    `json:"score"`
	Source string `json:"source"`
}

// Referral is a registry the client may query next (§8).
type Referral struct {
	Identifier  string `json:"identifier"`
	DisplayName string `json:"displayName"`
	Type        string `json:"type"`
	URL         string `json:"url"`
}

// SearchResponse is the answer of POST /search (§7.2).
type SearchResponse struct {
	Results   []Result   `json:"results"`
	Referrals []Referral `json:"referrals,omitempty"`
	PageToken string     `json:"pageToken,omitempty"`
}

// ErrorBody is the draft's error object (OpenAPI components.schemas.Error)
// with the JSON Pointer of the value at fault when there is one.
type ErrorBody struct {
	ErrorCode string `json:"errorCode"`
	Message   string `json:"message"`
	Path      string `json:"path,omitempty"`
}
