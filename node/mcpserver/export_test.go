package mcpserver

// WithSessionIDHook makes f give the id of each new session (the SDK's
// ServerOptions.GetSessionID), so that a test can hold a request where
// the SDK makes its session.
func WithSessionIDHook(f func() string) Option { return func(c *config) { c.sessionID = f } }
