package discovery

import (
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/scoring"
)

// QueryFromRequest translates an adp.discover request, with its defaults
// applied (adp.DiscoverRequest.WithDefaults), and returns the constraints
// it cannot apply (for unsupported_filters). Applied constraints:
// max_results_age_seconds and allow_stale.
func QueryFromRequest(req *adp.DiscoverRequest) (scoring.Query, []string) {
	req = req.WithDefaults()
	q := scoring.Query{
		Text: req.Query, Tags: req.Tags, RequiredTags: req.RequiredTags, PreferredTags: req.PreferredTags,
		ExcludedTags: req.ExcludedTags, Protocols: req.Protocols, Limit: req.Limit,
		MinScore: *req.MinScore, AllowStale: req.AllowStale(),
	}
	if age, ok := req.MaxResultsAge(); ok {
		q.MaxAge = age
		if age == 0 {
			q.MaxAge = time.Nanosecond // 0 seconds: nothing older than now
		}
	}
	return q, req.UnsupportedConstraints()
}

func appliedFilters(req *adp.DiscoverRequest, q scoring.Query) map[string]any {
	f := map[string]any{"limit": q.Limit, "min_score": q.MinScore}
	for k, v := range map[string][]string{"required_tags": req.RequiredTags, "excluded_tags": req.ExcludedTags, "protocols": req.Protocols} {
		if len(v) > 0 {
			f[k] = v
		}
	}
	if q.MaxAge > 0 {
		if age, ok := req.MaxResultsAge(); ok {
			f[adp.ConstraintMaxResultsAge] = age.Seconds()
		}
	}
	if q.AllowStale {
		f[adp.ConstraintAllowStale] = true
	}
	return f
}
