package interop

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	goiceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/table"
)

// icebergGoSchemaAndSpec converts the test schema and bucket/day spec to
// iceberg-go's types through their Iceberg JSON, so both sides describe
// the same table by the spec's own serialization.
func icebergGoSchemaAndSpec(t *testing.T) (*goiceberg.Schema, *goiceberg.PartitionSpec) {
	t.Helper()
	schemaJSON, err := testSchema().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var schema goiceberg.Schema
	if err := schema.UnmarshalJSON(schemaJSON); err != nil {
		t.Fatalf("iceberg-go schema from %s: %v", schemaJSON, err)
	}
	specJSON, err := bucketDaySpec().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var spec goiceberg.PartitionSpec
	if err := spec.UnmarshalJSON(specJSON); err != nil {
		t.Fatalf("iceberg-go spec from %s: %v", specJSON, err)
	}
	return &schema, &spec
}

// writeWithIcebergGo creates a partitioned table through iceberg-go's
// Hadoop (file system) catalog and appends each group of rows in its own
// transaction, returning the last metadata file.
func writeWithIcebergGo(t *testing.T, formatVersion int, groups ...[]row) string {
	t.Helper()
	ctx := context.Background()
	cat, err := hadoop.NewCatalog("interop", t.TempDir(), goiceberg.Properties{})
	if err != nil {
		t.Fatalf("hadoop catalog: %v", err)
	}
	defer cat.Close()
	if err := cat.CreateNamespace(ctx, icebergtable.Identifier{"ns"}, nil); err != nil {
		t.Fatalf("CreateNamespace: %v", err)
	}
	schema, spec := icebergGoSchemaAndSpec(t)
	tbl, err := cat.CreateTable(ctx, icebergtable.Identifier{"ns", "t"}, schema,
		catalog.WithPartitionSpec(spec),
		catalog.WithProperties(goiceberg.Properties{"format-version": fmt.Sprint(formatVersion)}))
	if err != nil {
		t.Fatalf("iceberg-go CreateTable v%d: %v", formatVersion, err)
	}
	for _, rows := range groups {
		rec := batch(t, rows)
		arrTable := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
		rec.Release()
		tx := tbl.NewTransaction()
		if err := tx.AppendTable(ctx, arrTable, 1024, nil); err != nil {
			t.Fatalf("iceberg-go AppendTable: %v", err)
		}
		arrTable.Release()
		if tbl, err = tx.Commit(ctx); err != nil {
			t.Fatalf("iceberg-go Commit: %v", err)
		}
	}
	if got := tbl.Metadata().Version(); got != formatVersion {
		t.Fatalf("iceberg-go wrote format version %d, want %d", got, formatVersion)
	}
	return tbl.MetadataLocation()
}

func testIcebergGoReadByFloe(t *testing.T, formatVersion int) {
	first, second := makeRows(4, 0, 3000), makeRows(5, 3000, 2000)
	metadataPath := writeWithIcebergGo(t, formatVersion, first, second)
	tbl, err := table.Open(context.Background(), metadataPath, table.Options{})
	if err != nil {
		t.Fatalf("floe open of iceberg-go table: %v", err)
	}
	md := tbl.Metadata
	if md.FormatVersion != formatVersion || len(md.Snapshots) != 2 || len(md.DefaultSpec().Fields) != 2 {
		t.Fatalf("floe sees format v%d, %d snapshots, spec %v; want v%d, 2 snapshots, bucket/day spec",
			md.FormatVersion, len(md.Snapshots), md.DefaultSpec(), formatVersion)
	}
	got := readWithFloe(t, metadataPath)
	assertSameRows(t, expectedKeys(append(first, second...)), rowKeys(t, got))
}

func TestIcebergGoV2ReadByFloe(t *testing.T) { testIcebergGoReadByFloe(t, 2) }
func TestIcebergGoV3ReadByFloe(t *testing.T) { testIcebergGoReadByFloe(t, 3) }
