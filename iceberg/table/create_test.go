package table

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/testtable"
)

func TestCreateWritesWhatOpenReads(t *testing.T) {
	ctx := context.Background()
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: testtable.IDTimestamp, Transform: iceberg.DayTransform{}},
		{SourceID: testtable.IDString, Transform: iceberg.BucketTransform{N: 8}},
	}}
	order := &iceberg.SortOrder{Fields: []iceberg.SortField{{SourceID: testtable.IDLong, Transform: iceberg.IdentityTransform{}, Direction: "desc"}}}
	for _, version := range []int{1, 2, 3} {
		dir := filepath.Join(t.TempDir(), "t")
		tbl, err := Create(ctx, nil, dir, testtable.Schema(), spec, order, map[string]string{"owner": "floe"}, version)
		if err != nil {
			t.Fatal(err)
		}
		opened, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(opened.Metadata, tbl.Metadata) {
			t.Fatalf("v%d: opened metadata differs from created:\n%+v\n%+v", version, opened.Metadata, tbl.Metadata)
		}
		md := opened.Metadata
		if md.FormatVersion != version || md.CurrentSnapshot() != nil || md.LastColumnID != testtable.IDBool ||
			md.Properties["owner"] != "floe" || md.TableUUID == "" {
			t.Fatalf("v%d metadata %+v", version, md)
		}
		got := md.DefaultSpec().Fields
		if got[0].Name != "ts_day" || got[0].FieldID != 1000 || got[1].Name != "s_bucket_8" || got[1].FieldID != 1001 || md.LastPartitionID != 1001 {
			t.Fatalf("spec fields %+v, last partition id %d", got, md.LastPartitionID)
		}
		so := md.DefaultSortOrder()
		if so.OrderID != 1 || so.Fields[0].NullOrder != "nulls-last" {
			t.Fatalf("sort order %+v", so)
		}
		plan, err := opened.PlanFiles(ctx, SnapshotSelector{})
		if err != nil || len(plan.Tasks) != 0 {
			t.Fatalf("plan of a new table: %v, %v", plan, err)
		}
	}
}

func TestCreateRefusesAnExistingTable(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	if _, err := Create(ctx, nil, dir, testtable.Schema(), nil, nil, nil, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, nil, dir, testtable.Schema(), nil, nil, nil, 2); !errors.Is(err, ErrTableExists) {
		t.Fatalf("second create: %v", err)
	}
	fx, err := fixtures.Get("impala_iceberg_partitioned")
	if err != nil {
		t.Skip(err)
	}
	if _, err := Create(ctx, nil, fx.Dir, testtable.Schema(), nil, nil, nil, 2); !errors.Is(err, ErrTableExists) {
		t.Fatalf("create over a fixture table: %v", err)
	}
}

func TestConcurrentCreatesOneWins(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	var wg sync.WaitGroup
	results := make([]error, 6)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = Create(ctx, nil, dir, testtable.Schema(), nil, nil, map[string]string{"creator": string(rune('a' + i))}, 2)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range results {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrTableExists):
			t.Errorf("create: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d creates succeeded", won)
	}
}

func TestCreateAssignsFreshIDsToASchemaWithout(t *testing.T) {
	s := iceberg.NewSchema(7, []iceberg.NestedField{
		{Name: "a", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{Name: "x", Type: iceberg.IntType{}, Required: true},
			{Name: "y", Type: &iceberg.ListType{Element: iceberg.StringType{}}},
		}}},
		{Name: "b", Type: &iceberg.MapType{Key: iceberg.StringType{}, Value: iceberg.LongType{}}},
		{Name: "c", Type: iceberg.DoubleType{}},
	})
	tbl, err := Create(context.Background(), nil, filepath.Join(t.TempDir(), "t"), s, nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := tbl.Metadata.CurrentSchema()
	// The reference implementation's numbering: a struct's fields first,
	// then what each holds, depth first.
	want := map[string]int{"a": 1, "b": 2, "c": 3, "a.x": 4, "a.y": 5, "a.y.element": 6, "b.key": 7, "b.value": 8}
	for name, id := range want {
		f, ok := got.FindFieldByName(name)
		if !ok || f.ID != id {
			t.Errorf("%s: id %d (%v), want %d", name, f.ID, ok, id)
		}
	}
	if got.ID != 0 || tbl.Metadata.LastColumnID != 8 {
		t.Fatalf("schema id %d, last column id %d", got.ID, tbl.Metadata.LastColumnID)
	}
}

func TestCreateRefusesBadDefinitions(t *testing.T) {
	ctx := context.Background()
	ts := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "ts", Type: iceberg.TimestampNsType{}}})
	str := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "s", Type: iceberg.StringType{}}, {ID: 2, Name: "n", Type: iceberg.IntType{}}})
	dup := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "s", Type: iceberg.StringType{}}, {ID: 1, Name: "n", Type: iceberg.IntType{}}})
	variant := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "v", Type: iceberg.VariantType{}}})
	cases := []struct {
		name    string
		schema  *iceberg.Schema
		spec    *iceberg.PartitionSpec
		version int
		wantErr string
	}{
		{"v3 type in v2", ts, nil, 2, "format version 3"},
		{"geometry in v2", iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "g", Type: iceberg.GeometryType{}}}), nil, 2, "format version 3"},
		{"geography in v1", iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "g", Type: iceberg.GeographyType{CRS: "EPSG:4326"}}}), nil, 1, "format version 3"},
		{"identity of a geometry", iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "g", Type: iceberg.GeometryType{}}}), &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 1, Transform: iceberg.IdentityTransform{}}}}, 3, "partition"},
		{"duplicate ids", dup, nil, 2, "used twice"},
		{"variant in v2", variant, nil, 2, "type variant needs format version 3"},
		{"variant in v1", variant, nil, 1, "type variant needs format version 3"},
		{"identity of a variant", variant, &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 1, Transform: iceberg.IdentityTransform{}}}}, 3, "partition"},
		{"year of a string", str, &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 1, Transform: iceberg.YearTransform{}}}}, 2, "partition"},
		{"missing source", str, &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 9, Transform: iceberg.IdentityTransform{}}}}, 2, "no column"},
		{"v1 ids out of order", str, &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 1, FieldID: 1005, Transform: iceberg.IdentityTransform{}}}}, 1, "format version 1"},
		{"version 4", str, nil, 4, "format version"},
	}
	for _, c := range cases {
		_, err := Create(ctx, nil, filepath.Join(t.TempDir(), "t"), c.schema, c.spec, nil, nil, c.version)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.wantErr)
		}
	}
	// The format-version property chooses the version and is not kept.
	tbl, err := Create(ctx, nil, filepath.Join(t.TempDir(), "t"), ts, nil, nil, map[string]string{"format-version": "3"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Metadata.FormatVersion != 3 || len(tbl.Metadata.Properties) != 0 {
		t.Fatalf("version %d, properties %v", tbl.Metadata.FormatVersion, tbl.Metadata.Properties)
	}
}

func TestCreateRefusesSortingByVariant(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "v", Type: iceberg.VariantType{}}})
	order := &iceberg.SortOrder{Fields: []iceberg.SortField{{SourceID: 1}}}
	_, err := Create(context.Background(), nil, filepath.Join(t.TempDir(), "t"), schema, nil, order, nil, 3)
	if err == nil || !strings.Contains(err.Error(), "sort field") {
		t.Fatalf("sorting by a variant: %v", err)
	}
	if _, err := Create(context.Background(), nil, filepath.Join(t.TempDir(), "t"), schema, nil, nil, nil, 3); err != nil {
		t.Fatalf("a v3 table with a variant column: %v", err)
	}
}
