// Package config is a node's configuration: Config (with Reach, what
// lets the node be reached from beyond its own network), the defaults
// that Default starts `adpnode run` from and WithDefaults fills in, and
// Validate, which reports every problem at once, each as ErrInvalid
// prefixed with the option's name in snake case (as `adpnode run`'s JSON
// configuration file spells the options it has).
//
// It also turns the reachability options into what the packages below
// the node take: Reach.HostOptions (internal/p2phost options) and
// Reach.DHTMode (the DHT's mode). Package node re-exports Config and its
// constants under their earlier names (node.Config, node.ReachConfig,
// node.DefaultConfig, node.ErrInvalidConfig...).
//
// A Config is a value and the package keeps no state of its own; but
// Reach.HostOptions with SimulatedPublic changes a process-wide table
// (p2phost.TreatAsPublic), which only tests that build an Internet out of
// network namespaces set.
package config
