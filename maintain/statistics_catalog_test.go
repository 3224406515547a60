package maintain

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/catalog"
	catalogsql "github.com/floedb/floe/catalog/sql"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer/ops"
)

// A table a SQL catalog owns gets its statistics file registered through
// the catalog: a fresh load through the catalog sees it.
func TestComputeStatisticsThroughACatalog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cat, err := catalogsql.Open(ctx, "sqlite:"+filepath.Join(dir, "catalog.db"), map[string]string{catalogsql.PropWarehouse: filepath.Join(dir, "warehouse")}, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{Namespace: []string{"db"}, Name: "t"}
	tbl, err := cat.CreateTable(ctx, id, statsSchema(), catalog.CreateOptions{FormatVersion: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Append(ctx, tbl, rowstest.Reader(t, statsSchema(), statsRows(0, 500)), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := tbl.MetadataLocation
	res, err := ComputeStatistics(ctx, tbl, StatisticsOptions{Columns: []string{"day"}})
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := cat.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.MetadataLocation == before || loaded.MetadataLocation != tbl.MetadataLocation {
		t.Fatalf("catalog points at %s (was %s, the table has %s)", loaded.MetadataLocation, before, tbl.MetadataLocation)
	}
	st := loaded.Metadata.Statistics
	if len(st) != 1 || st[0].StatisticsPath != res.Path || st[0].BlobMetadata[0].Properties[PropertyNDV] != "100" {
		t.Fatalf("statistics through the catalog: %+v", st)
	}
	readStatisticsBlobs(t, loaded, st[0])
}
