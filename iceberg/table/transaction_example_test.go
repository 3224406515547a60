package table_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// A transaction: a schema change, a partition field, a property and an
// append are one new metadata version. A schema change from a handle
// opened before it conflicts and commits nothing.
func ExampleTransaction() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "tx")
	defer os.RemoveAll(dir)
	t, err := table.Create(ctx, nil, filepath.Join(dir, "t"), testtable.Schema(), nil, nil, nil, 2)
	if err != nil {
		panic(err)
	}
	stale, err := table.Open(ctx, t.Metadata.Location, table.Options{})
	if err != nil {
		panic(err)
	}

	tx := t.Transaction()
	tx.Add(new(action.UpdateSchema).AddColumn("note", iceberg.StringType{}))
	tx.Add(new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, ""))
	tx.SetProperties(map[string]string{"owner": "etl"}, nil)
	if err := tx.Append(dataFiles(filepath.Join(dir, "a"), 1, 10), table.CommitOptions{}); err != nil {
		panic(err)
	}
	res, err := tx.Commit(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("committed:", res.Committed, "snapshots:", len(res.SnapshotIDs), "at", filepath.Base(res.MetadataLocation))
	fmt.Println("partition fields:", len(t.Metadata.DefaultSpec().Fields), "owner:", t.Metadata.Properties["owner"])

	_, err = stale.Apply(ctx, new(action.UpdateSchema).AddColumn("other", iceberg.IntType{}))
	fmt.Println("stale schema change conflicts:", errors.Is(err, table.ErrConflict))
	// Output:
	// committed: true snapshots: 1 at v2.metadata.json
	// partition fields: 1 owner: etl
	// stale schema change conflicts: true
}
