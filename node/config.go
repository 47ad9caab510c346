package node

import "github.com/adpnode/adpnode/node/config"

// The node's configuration lives in package node/config; these are its
// names as package node has always spelt them.

// Config configures a Node (config.Config).
type Config = config.Config

// ReachConfig is what lets a node be reached from beyond its own network
// (config.Reach).
type ReachConfig = config.Reach

// DefaultConfig returns the configuration `adpnode run` starts from
// (config.Default).
func DefaultConfig() Config { return config.Default() }

// Defaults (see package node/config).
const (
	DefaultAPIAddr           = config.DefaultAPIAddr
	DefaultGossipInterval    = config.DefaultGossipInterval
	DefaultRepublishInterval = config.DefaultRepublishInterval
	DefaultCardTTL           = config.DefaultCardTTL
	DefaultConnLow           = config.DefaultConnLow
	DefaultConnHigh          = config.DefaultConnHigh
	DefaultMaxCards          = config.DefaultMaxCards
	DefaultDirectoryMaxCards = config.DefaultDirectoryMaxCards
)

// DefaultListen and DefaultRunListen hold config.DefaultListen and
// config.DefaultRunListen. They are variables of their own: the defaults
// a Config is given are config's (assigning these changes nothing).
var (
	DefaultListen    = config.DefaultListen
	DefaultRunListen = config.DefaultRunListen
)

// Values of ReachConfig.Reachability and ReachConfig.RelayService.
const (
	ReachAuto    = config.ReachAuto
	ReachPublic  = config.ReachPublic
	ReachPrivate = config.ReachPrivate
	RelayOn      = config.RelayOn
	RelayOff     = config.RelayOff
)

// The values of Config.PublicA2A.
const (
	PublicA2AOpen   = config.PublicA2AOpen
	PublicA2ADIDWba = config.PublicA2ADIDWba
)
