package table

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/internal/testtable"
)

func TestEnsureTable(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	base := testtable.Schema()
	tbl, err := EnsureTable(ctx, nil, dir, base, nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !tblHasSchema(tbl, 0, len(base.Fields)) {
		t.Fatalf("created with schema %v", tbl.Metadata.CurrentSchema())
	}
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 10), 10)
	if _, err := tbl.Append(ctx, files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}

	// Ensuring the same schema changes nothing.
	loc := reopen(t, tbl).MetadataLocation
	if _, err := EnsureTable(ctx, nil, dir, base, nil, nil, nil, 2); err != nil {
		t.Fatal(err)
	}
	if got := reopen(t, tbl).MetadataLocation; got != loc {
		t.Fatalf("ensuring the same schema committed %s", got)
	}

	// Two writers add different columns from the same version: both land.
	first, second := reopen(t, tbl), reopen(t, tbl)
	withA := iceberg.NewSchema(0, append(append([]iceberg.NestedField(nil), base.Fields...), iceberg.NestedField{Name: "extra_a", Type: iceberg.StringType{}}))
	withB := iceberg.NewSchema(0, append(append([]iceberg.NestedField(nil), base.Fields...), iceberg.NestedField{Name: "extra_b", Type: iceberg.LongType{}}))
	if err := first.UpdateSchemaByName(ctx, withA); err != nil {
		t.Fatal(err)
	}
	if err := second.UpdateSchemaByName(ctx, withB); err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	s := fresh.Metadata.CurrentSchema()
	a, okA := s.FindFieldByName("extra_a")
	b, okB := s.FindFieldByName("extra_b")
	if !okA || !okB || a.ID != testtable.IDBool+1 || b.ID != testtable.IDBool+2 || fresh.Metadata.LastColumnID != testtable.IDBool+2 {
		t.Fatalf("schema %v, last column id %d", s, fresh.Metadata.LastColumnID)
	}
	if s.ID != 2 || len(fresh.Metadata.Schemas) != 3 {
		t.Fatalf("schema id %d of %d schemas", s.ID, len(fresh.Metadata.Schemas))
	}
	// Files written before still plan, with the schema of their snapshot.
	if got := livePaths(t, fresh); len(got) != len(files) {
		t.Fatalf("%d files after schema changes", len(got))
	}

	// A type change is refused, naming the column.
	fields := append([]iceberg.NestedField(nil), base.Fields...)
	fields[testtable.IDString-1].Type = iceberg.LongType{}
	changed := iceberg.NewSchema(0, fields)
	_, err = EnsureTable(ctx, nil, dir, changed, nil, nil, nil, 2)
	var sue *action.SchemaUpdateError
	if !errors.As(err, &sue) || sue.Column != "s" {
		t.Fatalf("type change: %v", err)
	}
	// A v3 type in a v2 table is refused.
	ns := iceberg.NewSchema(0, append(append([]iceberg.NestedField(nil), base.Fields...), iceberg.NestedField{Name: "when", Type: iceberg.TimestampNsType{}}))
	if _, err := EnsureTable(ctx, nil, dir, ns, nil, nil, nil, 2); err == nil {
		t.Fatal("a timestamp_ns column was added to a v2 table")
	}
	if got := reopen(t, tbl).Metadata.CurrentSchemaID; got != 2 {
		t.Fatalf("refused updates moved the schema to %d", got)
	}
}

func tblHasSchema(tbl *Table, id, columns int) bool {
	s := tbl.Metadata.CurrentSchema()
	return s.ID == id && len(s.Fields) == columns
}
