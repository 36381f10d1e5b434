package catalog

// SetBackendAddr moves a backend to a new host:port (persisted). Embedded
// standalone backends take a fresh port on every start; their identity is
// their id and data directory, not their address.
func (c *Catalog) SetBackendAddr(id BackendID, host string, port int) error {
	return c.updateBackend(id, func(be *Backend) { be.Host, be.Port = host, port })
}
