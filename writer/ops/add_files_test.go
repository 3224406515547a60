package ops_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// The data files of the real tables Spark, Impala, Hive, Flink, NiFi and
// DuckDB wrote, registered in a new table with add_files: the entries
// built from their footers agree with the ones those engines wrote in
// their manifests (record counts, partition tuples, value and null
// counts, bounds), and the new table reads the same rows as the original.
func TestAddFilesOfOtherEnginesMatchTheirManifests(t *testing.T) {
	ctx := context.Background()
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, fx := range all {
		t.Run(fx.Name, func(t *testing.T) {
			src, plan := openPlanned(t, fx)
			if len(plan.DeleteFiles) > 0 || len(plan.Tasks) == 0 {
				t.Skip("deletes (the rows would differ) or no files")
			}
			md := src.Metadata
			if plan.Schema.ID != md.CurrentSchemaID {
				t.Skip("the current snapshot was written with an older schema")
			}
			for _, task := range plan.Tasks {
				if task.File.SpecID != md.DefaultSpecID || !isParquet(task.File.FileFormat) {
					t.Skip("files of an older partition spec, or not Parquet")
				}
			}
			dst, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "t"), md.CurrentSchema(), md.DefaultSpec(), nil, nil, md.FormatVersion)
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, task := range plan.Tasks {
				paths = append(paths, task.Path)
			}
			res, err := ops.AddFiles(ctx, dst, paths, table.CommitOptions{})
			if errors.Is(err, errkind.InvalidArgument) && !md.DefaultSpec().IsUnpartitioned() {
				t.Skipf("partition values not derivable: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !res.Committed || len(res.Files) != len(paths) {
				t.Fatalf("result %+v", res)
			}
			schema := md.CurrentSchema()
			for i, got := range res.Files {
				want := plan.Tasks[i].File
				if got.RecordCount != want.RecordCount || !reflect.DeepEqual(got.Partition, want.Partition) {
					t.Errorf("%s: %d rows, partition %v; the engine wrote %d, %v", got.FilePath, got.RecordCount, got.Partition, want.RecordCount, want.Partition)
				}
				sameCounts(t, got.FilePath, "value counts", want.Metrics.Maps().ValueCounts, got.Metrics.Maps().ValueCounts)
				sameCounts(t, got.FilePath, "null counts", want.Metrics.Maps().NullValueCounts, got.Metrics.Maps().NullValueCounts)
				sameBounds(t, got.FilePath, schema, want, got)
			}
			if fx.Name == "impala_iceberg_migrated_complex_test" {
				// Its file has no field ids: the table got a name mapping.
				again, err := table.Open(ctx, dst.Metadata.Location, table.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if again.Metadata.Properties[metadata.PropertyNameMapping] == "" {
					t.Error("files without field ids, yet the table got no name mapping")
				}
				// In the same commit as the files: no version has the
				// files without the mapping.
				if n := len(again.Metadata.MetadataLog); n != 1 {
					t.Errorf("adding files without ids took %d commits, want 1", n)
				}
			}
			wantRows := rowstest.ScanRows(t, src, scan.Options{})
			gotRows := rowstest.ScanRows(t, dst, scan.Options{})
			rowstest.SortRows(schema, wantRows)
			rowstest.SortRows(schema, gotRows)
			rowstest.CompareRows(t, "rows of the added files", schema, wantRows, gotRows)
			checked++
		})
	}
	if checked < 4 || boundsCompared < 50 {
		t.Fatalf("only %d fixture tables and %d bounds checked: not a useful test", checked, boundsCompared)
	}
}

// boundsCompared counts the bounds sameBounds compared.
var boundsCompared int

func isParquet(format string) bool { return format == "PARQUET" || format == "parquet" }

// sameCounts: every count both sides have is equal.
func sameCounts(t *testing.T, path, what string, want, got map[int]int64) {
	t.Helper()
	for id, w := range want {
		if g, ok := got[id]; ok && g != w {
			t.Errorf("%s: column %d %s %d, the engine wrote %d", path, id, what, g, w)
		}
	}
}

// sameBounds: the bounds from the footer are at least as tight as sound
// bounds can be: each lower bound the engine wrote is at most ours and
// each upper bound at least ours (engines may truncate differently, and
// bounds need only be bounds), and every value bound the engine gave for
// a column outside lists and maps has one from us too.
func sameBounds(t *testing.T, path string, schema *iceberg.Schema, want, got manifest.DataFile) {
	t.Helper()
	ids := make([]int, 0, len(want.Metrics.Maps().LowerBounds))
	for id := range want.Metrics.Maps().LowerBounds {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		f, ok := schema.FindField(id)
		if !ok {
			continue
		}
		wl, err1 := iceberg.ValueFromBytes(f.Type, want.Metrics.Maps().LowerBounds[id])
		gb, has := got.Metrics.Maps().LowerBounds[id]
		if !has || err1 != nil {
			continue
		}
		gl, err := iceberg.ValueFromBytes(f.Type, gb)
		if err != nil {
			t.Errorf("%s: column %s: our lower bound does not decode: %v", path, f.Name, err)
			continue
		}
		if iceberg.Compare(f.Type, wl, gl) > 0 && !truncatable(f.Type) {
			t.Errorf("%s: column %s: lower bound %v, the engine wrote %v", path, f.Name, gl, wl)
		}
		wu, err1 := iceberg.ValueFromBytes(f.Type, want.Metrics.Maps().UpperBounds[id])
		gub, has := got.Metrics.Maps().UpperBounds[id]
		if !has || err1 != nil {
			continue
		}
		gu, _ := iceberg.ValueFromBytes(f.Type, gub)
		boundsCompared++
		if iceberg.Compare(f.Type, wu, gu) < 0 && !truncatable(f.Type) {
			t.Errorf("%s: column %s: upper bound %v, the engine wrote %v", path, f.Name, gu, wu)
		}
		if !truncatable(f.Type) && (iceberg.Compare(f.Type, wl, gl) != 0 || iceberg.Compare(f.Type, wu, gu) != 0) {
			t.Errorf("%s: column %s: bounds [%v, %v], the engine wrote [%v, %v]", path, f.Name, gl, gu, wl, wu)
		}
	}
}

func truncatable(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.StringType, iceberg.BinaryType:
		return true
	}
	return false
}

// What add_files refuses: a file named twice, a file the table has, a
// file whose column does not read as the table's type, a required column
// the file lacks; nothing is committed.
func TestAddFilesRefusals(t *testing.T) {
	ctx := context.Background()
	src, plan := fixturePlan(t, "impala_iceberg_v3_all_types")
	path := plan.Tasks[0].Path
	schema := src.Metadata.CurrentSchema()
	dst, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "t"), schema, nil, nil, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.AddFiles(ctx, dst, []string{path, path}, table.CommitOptions{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a file named twice: %v", err)
	}
	if _, err := ops.AddFiles(ctx, dst, []string{path}, table.CommitOptions{Token: "once"}); err != nil {
		t.Fatal(err)
	}
	if res, err := ops.AddFiles(ctx, dst, []string{path}, table.CommitOptions{Token: "once"}); err != nil || !res.TokenFound {
		t.Fatalf("the same token again: %+v, %v", res, err)
	}
	if _, err := ops.AddFiles(ctx, dst, []string{path}, table.CommitOptions{}); !errors.Is(err, errkind.Conflict) {
		t.Fatalf("a file the table has: %v", err)
	}
	// A table whose first column is a string where the file has a number.
	fields := append([]iceberg.NestedField(nil), schema.Fields...)
	var changed string
	for i, f := range fields {
		switch f.Type.(type) {
		case iceberg.IntType, iceberg.LongType:
			fields[i].Type = iceberg.StringType{}
			changed = f.Name
		}
		if changed != "" {
			break
		}
	}
	wrong, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "w"), iceberg.NewSchema(0, fields), nil, nil, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ops.AddFiles(ctx, wrong, []string{path}, table.CommitOptions{})
	if !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), changed) {
		t.Fatalf("a column of another type: %v (want the file and column %q named)", err, changed)
	}
	required := append(append([]iceberg.NestedField(nil), schema.Fields...), iceberg.NestedField{ID: 9999, Name: "not_in_file", Type: iceberg.LongType{}, Required: true})
	strict, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "r"), iceberg.NewSchema(0, required), nil, nil, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.AddFiles(ctx, strict, []string{path}, table.CommitOptions{}); !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), "not_in_file") {
		t.Fatalf("a required column the file lacks: %v", err)
	}
	if len(wrong.Metadata.Snapshots)+len(strict.Metadata.Snapshots) != 0 {
		t.Fatal("a refused add committed")
	}
}

// A Hive-style directory gives an identity partition whose column the
// file does not hold; the rows read it from the partition.
func TestAddFilesPartitionFromHivePath(t *testing.T) {
	ctx := context.Background()
	src, plan := fixturePlan(t, "duckdb_uuid")
	data, err := os.ReadFile(plan.Tasks[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "region=eu%2Fwest")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.ToSlash(filepath.Join(dir, "part-0.parquet"))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	schema := src.Metadata.CurrentSchema()
	fields := append(append([]iceberg.NestedField(nil), schema.Fields...), iceberg.NestedField{ID: 500, Name: "region", Type: iceberg.StringType{}})
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 500, FieldID: 1000, Name: "region", Transform: iceberg.IdentityTransform{}}}}
	dst, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "t"), iceberg.NewSchema(0, fields), spec, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ops.AddFiles(ctx, dst, []string{path}, table.CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Files[0].Partition; len(got) != 1 || got[0] != "eu/west" {
		t.Fatalf("partition %v, want [eu/west]", got)
	}
	rows := rowstest.ScanRows(t, dst, scan.Options{})
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range rows {
		if r[len(fields)-1] != "eu/west" {
			t.Fatalf("region reads %v, want the partition's eu/west", r[len(fields)-1])
		}
	}
	// Without the directory, a file that does not hold the column gives
	// no partition value: refused.
	plain := filepath.ToSlash(filepath.Join(t.TempDir(), "part-1.parquet"))
	if err := os.WriteFile(plain, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ops.AddFiles(ctx, dst, []string{plain}, table.CommitOptions{}); !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), "region") {
		t.Fatalf("no partition value: %v", err)
	}
}

// fixturePlan opens a fixture table and plans its current snapshot.
func fixturePlan(t *testing.T, name string) (*table.Table, *table.Plan) {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return openPlanned(t, fx)
}

func openPlanned(t *testing.T, fx fixtures.Table) (*table.Table, *table.Plan) {
	t.Helper()
	src, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := src.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	return src, plan
}
