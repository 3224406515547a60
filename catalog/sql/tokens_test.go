package sql

import (
	"context"
	"testing"

	"github.com/floedb/floe/internal/catalogtest"
)

// A retried token is found after expiry removed its snapshot, on SQLite
// and PostgreSQL: the tokens expiry keeps are in the metadata the catalog
// points at.
func TestTokensOutliveExpiry(t *testing.T) {
	onBoth(t, func(t *testing.T, handle func() *Catalog, _ string) {
		c := handle()
		if err := c.CreateNamespace(context.Background(), []string{"db"}, nil); err != nil {
			t.Fatal(err)
		}
		catalogtest.TokensOutliveExpiry(t, c, []string{"db"})
	})
}
