package sql

import (
	"context"
	"testing"

	"github.com/floedb/floe/internal/catalogtest"
)

// Every kind of change a transaction makes commits through the SQL
// catalog, on SQLite and PostgreSQL.
func TestEveryActionCommits(t *testing.T) {
	onBoth(t, func(t *testing.T, handle func() *Catalog, _ string) {
		c := handle()
		if err := c.CreateNamespace(context.Background(), []string{"db"}, nil); err != nil {
			t.Fatal(err)
		}
		catalogtest.EveryAction(t, c, []string{"db"})
	})
}
