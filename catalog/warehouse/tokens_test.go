package warehouse

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
)

// A retried token is found after expiry removed its snapshot, in a local
// warehouse and one in S3.
func TestTokensOutliveExpiry(t *testing.T) {
	onBoth(t, func(t *testing.T, root string, opts table.Options) {
		c, err := Open(context.Background(), root, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CreateNamespace(context.Background(), []string{"db"}, nil); err != nil {
			t.Fatal(err)
		}
		catalogtest.TokensOutliveExpiry(t, c, []string{"db"})
	})
}
