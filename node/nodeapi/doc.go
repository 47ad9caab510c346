// Package nodeapi is the node's service contract: the values its methods
// return (Status, PeerInfo, InvokeResult, Network, Arrival) and the
// sentinel errors they report. Package node implements the contract;
// package node/httpapi serves it over HTTP, mapping each error to the
// discovery profile's error model, and its Client decodes the same
// types. It holds declarations only and imports no other adpnode package.
package nodeapi
