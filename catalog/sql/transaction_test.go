package sql

import (
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/internal/catalogtest"
)

// Two tables committed together through one database transaction, on
// SQLite and PostgreSQL: both move or neither does (catalogtest.MultiTable).
func TestMultiTableTransaction(t *testing.T) {
	onBoth(t, func(t *testing.T, handle func() *Catalog, dir string) {
		catalogtest.MultiTable(t, handle(), []string{"multi"}, func() catalog.Catalog { return handle() })
	})
}
