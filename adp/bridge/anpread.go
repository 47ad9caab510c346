package bridge

import (
	"fmt"
	"strings"

	"github.com/adpnode/adpnode/adp"
)

// FromANP reads an ANP agent description ("ad:AgentDescription", the
// document ANPDescription writes and ANP agents publish) into an unsigned
// card: name (required), description, version and did; each interface
// with a url becomes an endpoint (protocol in lower case, "http" when the
// interface names none); when the description carries an ADP card under
// "ad:agentCard" (as ANPDescription writes), its tools, skills and
// examples are taken from it. The card's id is that embedded card's when
// it has one, else none: an ANP description is not signed, and a card
// read from one is not vouched for by any adpnode key (its signature, if
// the embedded card has one, is not carried over).
func FromANP(data []byte) (*adp.Card, error) {
	r, o, err := readDoc(data)
	if err != nil {
		return nil, err
	}
	if t := o.str("@type", false); t != "" && t != "ad:AgentDescription" && t != "AgentDescription" {
		r.add(o.at("@type"), "want ad:AgentDescription, got %q", t)
	}
	card := doc{}
	if raw := o.get("ad:agentCard"); raw != nil {
		if inner := r.obj(o.at("ad:agentCard"), raw); inner != nil {
			for _, k := range []string{"id", "tools", "skills", "examples", "constraints"} {
				if v := inner.get(k); v != nil {
					card[k] = v
				}
			}
		}
	}
	card.setStr("name", o.str("name", true))
	card.setStr("description", o.str("description", false))
	card.setStr("version", o.str("version", false))
	if did := o.str("did", false); strings.HasPrefix(did, "did:") {
		card["did"] = did
	}
	var endpoints []doc
	for i, raw := range o.arr("interfaces") {
		io := r.obj(fmt.Sprintf("%s/%d", o.at("interfaces"), i), raw)
		if io == nil {
			continue
		}
		u := io.str("url", false)
		if u == "" {
			continue
		}
		proto := strings.ToLower(io.str("protocol", false))
		if proto == "" || strings.ContainsAny(proto, " /") {
			proto = "http"
		}
		endpoints = append(endpoints, doc{"protocol": proto, "uri": u})
	}
	if endpoints != nil {
		card["endpoints"] = endpoints
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	return finishCard(card)
}
