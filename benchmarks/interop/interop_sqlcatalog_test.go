package interop

import (
	"context"
	dbsql "database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	goiceberg "github.com/apache/iceberg-go"
	gocatalog "github.com/apache/iceberg-go/catalog"
	gosql "github.com/apache/iceberg-go/catalog/sql"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/catalog"
	sqlcatalog "github.com/floedb/floe/catalog/sql"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/pgtest"
	"github.com/floedb/floe/internal/weedtest"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	weedtest.StopShared()
	os.Exit(code)
}

// sharedCatalog is one SQL catalog database both sides open: floe by its
// URI, iceberg-go with a database/sql handle and its dialect.
type sharedCatalog struct {
	floeURI   string
	driver    string
	dsn       string
	dialect   gosql.SupportedDialect
	warehouse string
}

const catalogName = "interop"

func onSQLCatalogs(t *testing.T, test func(t *testing.T, c sharedCatalog)) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "catalog.db")
		test(t, sharedCatalog{floeURI: "sqlite:" + path, driver: "sqlite", dsn: "file:" + path + "?_pragma=busy_timeout(30000)",
			dialect: gosql.SQLite, warehouse: filepath.Join(dir, "warehouse")})
	})
	t.Run("postgresql", func(t *testing.T) {
		uri := pgtest.Shared(t).NewDatabase(t)
		test(t, sharedCatalog{floeURI: uri, driver: "pgx", dsn: uri, dialect: gosql.Postgres, warehouse: filepath.Join(t.TempDir(), "warehouse")})
	})
}

func (c sharedCatalog) floe(t *testing.T) *sqlcatalog.Catalog {
	t.Helper()
	cat, err := sqlcatalog.Open(context.Background(), c.floeURI,
		map[string]string{sqlcatalog.PropName: catalogName, sqlcatalog.PropWarehouse: c.warehouse}, table.Options{})
	if err != nil {
		t.Fatalf("floe: open the catalog: %v", err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

func (c sharedCatalog) icebergGo(t *testing.T) *gosql.Catalog {
	t.Helper()
	db, err := dbsql.Open(c.driver, c.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cat, err := gosql.NewCatalog(catalogName, db, c.dialect, goiceberg.Properties{"warehouse": c.warehouse})
	if err != nil {
		t.Fatalf("iceberg-go: open the catalog: %v", err)
	}
	return cat
}

// icebergGoRows scans a table iceberg-go loads from its catalog.
func icebergGoRows(t *testing.T, cat gocatalog.Catalog, ident icebergtable.Identifier) []string {
	t.Helper()
	ctx := context.Background()
	tbl, err := cat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatalf("iceberg-go LoadTable: %v", err)
	}
	_, records, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		t.Fatalf("iceberg-go scan: %v", err)
	}
	var batches []arrow.RecordBatch
	for rec, err := range records {
		if err != nil {
			t.Fatalf("iceberg-go scan: %v", err)
		}
		t.Cleanup(rec.Release)
		batches = append(batches, rec)
	}
	return rowKeys(t, batches)
}

// icebergGoCreateAndAppend creates namespace ns and the partitioned table
// ns.t through iceberg-go's catalog, and appends rows in one transaction.
func icebergGoCreateAndAppend(t *testing.T, goCat gocatalog.Catalog, ns string, rows []row) icebergtable.Identifier {
	t.Helper()
	ctx := context.Background()
	if err := goCat.CreateNamespace(ctx, icebergtable.Identifier{ns}, nil); err != nil {
		t.Fatalf("iceberg-go CreateNamespace: %v", err)
	}
	schema, spec := icebergGoSchemaAndSpec(t)
	ident := icebergtable.Identifier{ns, "t"}
	goTbl, err := goCat.CreateTable(ctx, ident, schema, gocatalog.WithPartitionSpec(spec))
	if err != nil {
		t.Fatalf("iceberg-go CreateTable: %v", err)
	}
	rec := batch(t, rows)
	arrTable := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
	rec.Release()
	defer arrTable.Release()
	tx := goTbl.NewTransaction()
	if err := tx.AppendTable(ctx, arrTable, 1024, nil); err != nil {
		t.Fatalf("iceberg-go AppendTable: %v", err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatalf("iceberg-go Commit: %v", err)
	}
	return ident
}

// floeRows scans a table floe loaded from its catalog.
func floeRows(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	return rowKeys(t, scanWithFloe(t, tbl))
}

// iceberg-go creates a table in the SQL catalog and appends; floe loads it
// through the same catalog, reads every row and appends; iceberg-go reads
// both appends.
func TestSQLCatalogIcebergGoToFloeAndBack(t *testing.T) {
	onSQLCatalogs(t, func(t *testing.T, c sharedCatalog) {
		ctx := context.Background()
		theirs := makeRows(1, 0, 400)
		ident := icebergGoCreateAndAppend(t, c.icebergGo(t), "ns", theirs)

		floeCat := c.floe(t)
		if list, err := floeCat.ListTables(ctx, []string{"ns"}); err != nil || len(list) != 1 || list[0].String() != "ns.t" {
			t.Fatalf("floe lists %v (%v)", list, err)
		}
		tbl, err := floeCat.LoadTable(ctx, catalog.Identifier{Namespace: []string{"ns"}, Name: "t"})
		if err != nil {
			t.Fatalf("floe LoadTable: %v", err)
		}
		assertSameRows(t, expectedKeys(theirs), floeRows(t, tbl))
		ours := makeRows(2, 10_000, 300)
		if _, err := tbl.Append(ctx, writeFloe(t, tbl, bucketDaySpec(), ours), table.CommitOptions{}); err != nil {
			t.Fatalf("floe Append: %v", err)
		}
		assertSameRows(t, expectedKeys(append(slices.Clone(theirs), ours...)), icebergGoRows(t, c.icebergGo(t), ident))
	})
}

// floe creates a table in the SQL catalog and appends; iceberg-go lists
// it, loads it and reads every row.
func TestSQLCatalogFloeToIcebergGo(t *testing.T) {
	onSQLCatalogs(t, func(t *testing.T, c sharedCatalog) {
		ctx := context.Background()
		floeCat := c.floe(t)
		if err := floeCat.CreateNamespace(ctx, []string{"ns"}, nil); err != nil {
			t.Fatal(err)
		}
		tbl, err := floeCat.CreateTable(ctx, catalog.Identifier{Namespace: []string{"ns"}, Name: "made_by_floe"}, testSchema(), catalog.CreateOptions{Spec: bucketDaySpec()})
		if err != nil {
			t.Fatalf("floe CreateTable: %v", err)
		}
		rows := makeRows(3, 0, 500)
		for _, part := range [][]row{rows[:200], rows[200:]} {
			if _, err := tbl.Append(ctx, writeFloe(t, tbl, bucketDaySpec(), part), table.CommitOptions{}); err != nil {
				t.Fatalf("floe Append: %v", err)
			}
		}
		goCat := c.icebergGo(t)
		var names []string
		for ident, err := range goCat.ListTables(ctx, icebergtable.Identifier{"ns"}) {
			if err != nil {
				t.Fatalf("iceberg-go ListTables: %v", err)
			}
			names = append(names, ident[len(ident)-1])
		}
		if !slices.Equal(names, []string{"made_by_floe"}) {
			t.Fatalf("iceberg-go lists %v", names)
		}
		assertSameRows(t, expectedKeys(rows), icebergGoRows(t, goCat, icebergtable.Identifier{"ns", "made_by_floe"}))
	})
}
