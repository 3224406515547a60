package main

import (
	"bufio"
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// scan --output FILE.parquet goes through floe's own writer: on every
// fixture (all types, nested, v3, deletes applied) the file, read back by
// arrow-go's independent reader, has the scan's rows (the JSON lines
// printed from it equal the CLI's own), every top-level column carries
// its Iceberg field id, and the footer's iceberg.schema is the scan's.
func TestScanParquetOutputEveryFixture(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range all {
		t.Run(fx.Name, func(t *testing.T) {
			args := append([]string{"scan", fx.Dir}, mapArgs(fx)...)
			status, want, errOut := runCLI(t, args...)
			if status != 0 {
				t.Skipf("the table does not scan: %s", errOut)
			}
			pq := filepath.Join(t.TempDir(), "rows.parquet")
			if status, _, errOut := runCLI(t, append(args, "--output", pq)...); status != 0 {
				t.Fatalf("scan --output: status %d: %s", status, errOut)
			}
			tbl, schema := readParquetOutput(t, pq)
			defer tbl.Release()
			src, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
			if err != nil {
				t.Fatal(err)
			}
			read, err := src.SchemaFor(table.SnapshotSelector{})
			if err != nil {
				t.Fatal(err)
			}
			if len(read.Fields) != len(schema.Fields) {
				t.Fatalf("%d columns in the file, the table reads %d", len(schema.Fields), len(read.Fields))
			}
			for i, f := range tbl.Schema().Fields() {
				id, ok := f.Metadata.GetValue("PARQUET:field_id")
				if want := read.Fields[i]; !ok || id != strconv.Itoa(want.ID) || schema.Fields[i].ID != want.ID || f.Name != want.Name {
					t.Errorf("column %s: field id %q (footer schema %d), the table's %s is %d", f.Name, id, schema.Fields[i].ID, want.Name, want.ID)
				}
			}
			var got bytes.Buffer
			w := bufio.NewWriter(&got)
			sink := &jsonlSink{w: w, fields: schema.Fields}
			tr := array.NewTableReader(tbl, 4096)
			defer tr.Release()
			for tr.Next() {
				if err := sink.batch(withStorage(tr.RecordBatch())); err != nil {
					t.Fatal(err)
				}
			}
			if err := sink.finish(); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			if got.String() != want {
				t.Errorf("the Parquet file's rows differ from the scan's:\n%.600s\nwant\n%.600s", got.String(), want)
			}
		})
	}
}

// readParquetOutput reads a scan's Parquet output whole with arrow-go
// and decodes the Iceberg schema from its footer.
func readParquetOutput(t *testing.T, path string) (arrow.Table, *iceberg.Schema) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	kv := pf.MetaData().KeyValueMetadata().FindValue("iceberg.schema")
	if kv == nil {
		t.Fatal("no iceberg.schema in the footer")
	}
	var schema iceberg.Schema
	if err := schema.UnmarshalJSON([]byte(*kv)); err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(schema.Fields) != int(tbl.NumCols()) {
		t.Fatalf("%d columns, the footer's schema has %d", tbl.NumCols(), len(schema.Fields))
	}
	return tbl, &schema
}

// withStorage replaces arrow-go's extension columns (UUID) by their
// storage, the Arrow form floe's scan hands its sinks.
func withStorage(rec arrow.RecordBatch) arrow.RecordBatch {
	cols := rec.Columns()
	fields := rec.Schema().Fields()
	for i, c := range cols {
		if ext, ok := c.(array.ExtensionArray); ok {
			cols[i] = ext.Storage()
			fields[i].Type = ext.Storage().DataType()
		}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// A scan of no rows still writes a Parquet file (a footer and its schema,
// no row group), and a changelog scan's extra columns get their reserved
// field ids too.
func TestScanParquetOutputEmptyAndChangelog(t *testing.T) {
	fx, _ := fixtures.Get("impala_iceberg_v3_row_lineage")
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.parquet")
	args := append([]string{"scan", fx.Dir, "--limit", "0", "--output", empty}, mapArgs(fx)...)
	if status, _, errOut := runCLI(t, args...); status != 0 {
		t.Fatalf("--limit 0: status %d: %s", status, errOut)
	}
	tbl, schema := readParquetOutput(t, empty)
	if tbl.NumRows() != 0 || len(schema.Fields) == 0 {
		t.Errorf("empty output: %d rows, %d columns", tbl.NumRows(), len(schema.Fields))
	}
	tbl.Release()

	args = append([]string{"scan", fx.Dir, "--changelog"}, mapArgs(fx)...)
	status, want, errOut := runCLI(t, args...)
	if status != 0 {
		t.Fatalf("changelog: status %d: %s", status, errOut)
	}
	log := filepath.Join(dir, "changes.parquet")
	if status, _, errOut := runCLI(t, append(args, "--output", log)...); status != 0 {
		t.Fatalf("changelog --output: status %d: %s", status, errOut)
	}
	tbl, schema = readParquetOutput(t, log)
	defer tbl.Release()
	if got := int64(bytes.Count([]byte(want), []byte("\n"))); tbl.NumRows() != got || got == 0 {
		t.Errorf("changelog file: %d rows, the scan printed %d", tbl.NumRows(), got)
	}
	if _, ok := schema.FindFieldByName("_change_type"); !ok {
		t.Errorf("changelog file's schema has no _change_type: %v", schema.Fields)
	}
}
