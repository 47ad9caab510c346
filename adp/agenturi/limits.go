package agenturi

// Limits applied by Parse. They bound the work done on hostile input and are
// well above anything the agent:// draft or ADP produce.
const (
	// MaxLength is the longest URI, in octets, that Parse accepts.
	MaxLength = 4096
	// MaxProtocolLength is the longest transport binding name (the
	// <protocol> of agent+<protocol>://), in octets.
	MaxProtocolLength = 64
	// MaxPort is the largest port number Parse accepts. RFC 3986 allows any
	// run of digits; a port that does not fit in 16 bits is rejected.
	MaxPort = 65535
)

// Scheme is the URI scheme registered by the agent:// draft. A transport
// binding is written as Scheme + "+" + protocol.
const Scheme = "agent"
