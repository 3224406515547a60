package warehouse

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
)

// Every kind of change a transaction makes commits to a table's metadata
// directory (put-if-absent of the next version), local and in S3.
func TestEveryActionCommits(t *testing.T) {
	onBoth(t, func(t *testing.T, root string, opts table.Options) {
		c, err := Open(context.Background(), root, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CreateNamespace(context.Background(), []string{"db"}, nil); err != nil {
			t.Fatal(err)
		}
		catalogtest.EveryAction(t, c, []string{"db"})
	})
}
