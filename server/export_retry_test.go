package server

// StaleRetries counts the queries the coordinator planned again because
// their plan went stale (E-230).
func (s *Server) StaleRetries() int64 { return s.coord.StaleRetries() }
