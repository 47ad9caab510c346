package discovery

import "errors"

// Discovery scopes: "local" ranks the cards this node holds, "network"
// also asks directories and the DHT's tag providers.
const (
	ScopeLocal   = "local"
	ScopeNetwork = "network"
)

// ErrBadScope is an unknown discovery scope.
var ErrBadScope = errors.New("node: scope must be local or network")
