package server

// SetTestHook makes every statement call h at fixed points of its run
// (stage "plan": a query was bound; "start": a query was planned and
// is about to run, at every attempt; "rows": before each batch a query
// sends or an INSERT loads), with the statement's text, so that a test can
// make a chosen statement panic there. nil removes it.
func (s *Server) SetTestHook(h func(stage, sql string)) {
	if h == nil {
		s.testHook.Store(nil)
		return
	}
	s.testHook.Store(&h)
}

// CheckPlans turns enable_plan_check on for every session of s: the
// end-to-end tests run each distributed plan through planner/check.
func (s *Server) CheckPlans() { s.globals.set("enable_plan_check", "true") }
