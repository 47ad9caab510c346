package node

// wellKnownDoc renders one /.well-known document from the node's card.
type wellKnownDoc struct {
	contentType string
	render      func(n *Node) ([]byte, error)
}

// wellKnownDocs are the documents served under /.well-known.
var wellKnownDocs = map[string]wellKnownDoc{
	"/.well-known/adp-card.json": {"application/json", func(n *Node) ([]byte, error) { return n.Card().Raw(), nil }},
}
