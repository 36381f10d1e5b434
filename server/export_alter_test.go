package server

import "github.com/dorisgo/dorisgo/catalog"

// AlterCatalogOnly commits a schema change to the catalog without sending
// it to the backends: the state a kill -9 between the two leaves.
func (s *Server) AlterCatalogOnly(db, table string, edit func(t *catalog.Table) error) error {
	_, _, err := s.cat.AlterTable(db, table, edit)
	return err
}
