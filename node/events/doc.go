// Package events makes the events of a node's GET /v1/events
// (nodeapi.Event) out of its changes: the store's change feed (a card
// arrived or changed, was refreshed, was removed, with the reason) and
// the host's connectedness events (a peer connected or disconnected).
//
// Forward runs until its context ends and never waits for the reader: a
// reader that falls behind loses events and then gets one EventResync
// before anything newer, so that a slow browser never slows the node.
// The node owns the subscriptions Forward reads and the goroutine that
// runs it (Node.Events).
package events
