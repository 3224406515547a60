package inspect

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// readable_metrics on Impala's table of every type: each column's bounds
// are the manifest's bounds decoded into the column's type, and its
// counts the manifest's counts.
func TestReadableMetricsAreTheManifestMetrics(t *testing.T) {
	differ := 0 // bounds whose lower and upper differ, so a swap shows
	for _, name := range []string{"impala_iceberg_v3_all_types", "impala_iceberg_v2_delete_equality_partitioned", "duckdb_lineitem_iceberg"} {
		differ += checkReadableMetrics(t, name)
	}
	if differ == 0 {
		t.Fatal("no file has different lower and upper bounds")
	}
}

func checkReadableMetrics(t *testing.T, name string) (differ int) {
	f, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*table.DataFileTask{}
	for i := range plan.Tasks {
		byPath[plan.Tasks[i].File.FilePath] = &plan.Tasks[i]
	}
	schema := tbl.Metadata.CurrentSchema()
	compared := 0
	for _, rec := range readAll(t, tbl, DataFiles, Options{Columns: []string{"file_path", "readable_metrics"}}) {
		paths := rec.Column(0).(*array.String)
		rm := rec.Column(1).(*array.Struct)
		for row := 0; row < int(rec.NumRows()); row++ {
			task := byPath[paths.Value(row)]
			if task == nil {
				t.Fatalf("%s is not a planned file", paths.Value(row))
			}
			for _, col := range schema.Fields {
				idx := fieldIndex(t, rm, col.Name)
				cs := rm.Field(idx).(*array.Struct)
				m := task.File.Metrics.Column(col.ID)
				vc := cs.Field(1).(*array.Int64)
				if m.HasValueCount != vc.IsValid(row) || m.HasValueCount && vc.Value(row) != m.ValueCount {
					t.Errorf("%s value_count %v, manifest %d (%v)", col.Name, vc.ValueStr(row), m.ValueCount, m.HasValueCount)
				}
				if string(m.Lower) != string(m.Upper) {
					differ++
				}
				for k, raw := range [][]byte{m.Lower, m.Upper} {
					got := cs.Field(4 + k)
					if raw == nil {
						if got.IsValid(row) {
							t.Errorf("%s bound %d: %s without a manifest bound", col.Name, k, got.ValueStr(row))
						}
						continue
					}
					v, err := iceberg.ValueFromBytes(col.Type, raw)
					if err != nil {
						t.Fatal(err)
					}
					if want := boundText(t, got, col.Type, v); got.ValueStr(row) != want {
						t.Errorf("%s bound %d: %s, the manifest's decodes to %s", col.Name, k, got.ValueStr(row), want)
					}
					compared++
				}
			}
		}
	}
	if compared < 10 {
		t.Fatalf("%s: only %d bounds compared", name, compared)
	}
	return differ
}

// boundText is v as Arrow spells it in an array of got's type.
func boundText(t *testing.T, got arrow.Array, typ iceberg.Type, v any) string {
	b := array.NewBuilder(memory.NewGoAllocator(), got.DataType())
	defer b.Release()
	if err := arrowschema.AppendValue(b, typ, v); err != nil {
		t.Fatal(err)
	}
	a := b.NewArray()
	defer a.Release()
	return a.ValueStr(0)
}

func fieldIndex(t *testing.T, s *array.Struct, name string) int {
	t.Helper()
	st := s.DataType().(interface{ FieldIdx(string) (int, bool) })
	i, ok := st.FieldIdx(name)
	if !ok {
		t.Fatalf("readable_metrics has no %s", name)
	}
	return i
}

// countingIO counts whole-file reads by path.
type countingIO struct {
	fileio.FileIO
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingIO) ReadFile(ctx context.Context, path string) ([]byte, error) {
	c.mu.Lock()
	c.reads[path]++
	c.mu.Unlock()
	return c.FileIO.ReadFile(ctx, path)
}

// Filters on a column and on a partition field, column selection, and a
// limit that stops reading manifests once met.
func TestFilesFilterColumnsLimit(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_delete_equality_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	all := fileRows(t, tbl, Files, Options{})
	if len(all) < 4 {
		t.Fatalf("%d files: not a useful table", len(all))
	}
	var big int
	for _, r := range all {
		if r.records > 1 {
			big++
		}
	}
	gt, err := expr.NewPredicate(expr.OpGt, "record_count", int64(1))
	if err != nil {
		t.Fatal(err)
	}
	if got := fileRows(t, tbl, Files, Options{Filter: gt}); len(got) != big || big == 0 || big == len(all) {
		t.Fatalf("record_count > 1: %d rows, want %d of %d", len(got), big, len(all))
	}
	// partition.d: the files' partition values, read back and filtered on.
	recs := readAll(t, tbl, Files, Options{Columns: []string{"partition", "file_path"}})
	if recs[0].NumCols() != 2 || recs[0].Schema().Field(0).Name != "partition" {
		t.Fatalf("columns: %v", recs[0].Schema())
	}
	days := map[int32]int{}
	for _, rec := range recs {
		d := rec.Column(0).(*array.Struct).Field(0).(*array.Date32)
		for i := 0; i < d.Len(); i++ {
			if d.IsValid(i) {
				days[int32(d.Value(i))]++
			}
		}
	}
	if len(days) < 2 {
		t.Fatalf("partition days %v: not a useful table", days)
	}
	for day, n := range days {
		eq, err := expr.NewPredicate(expr.OpEq, "partition.d", time.Unix(int64(day)*86400, 0).UTC().Format("2006-01-02"))
		if err != nil {
			t.Fatal(err)
		}
		io := &countingIO{FileIO: tbl.IO, reads: map[string]int{}}
		pruned := *tbl
		pruned.IO = io
		if got := len(fileRows(t, &pruned, Files, Options{Filter: eq})); got != n {
			t.Errorf("partition.d = %d: %d rows, want %d", day, got, n)
		}
		// The manifests whose summaries exclude the day are not read.
		read := 0
		for _, mf := range mustList(t, tbl) {
			read += io.reads[mf.Path]
		}
		if read == 0 || read >= len(mustList(t, tbl)) {
			t.Errorf("partition.d = %d read %d of %d manifests", day, read, len(mustList(t, tbl)))
		}
		// The same filter as text, as the CLI and C take it.
		text, err := expr.ParseFilter(fmt.Sprintf("partition.d = '%s' and record_count >= 0", time.Unix(int64(day)*86400, 0).UTC().Format("2006-01-02")))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(fileRows(t, tbl, Files, Options{Filter: text})); got != n {
			t.Errorf("%s: %d rows, want %d", text, got, n)
		}
		// In entries, the same struct is data_file.partition.
		eq, err = expr.NewPredicate(expr.OpEq, "data_file.partition.d", time.Unix(int64(day)*86400, 0).UTC().Format("2006-01-02"))
		if err != nil {
			t.Fatal(err)
		}
		if c := entryCounts(t, tbl, Entries, Options{Filter: eq}); c[0]+c[1] != n {
			t.Errorf("data_file.partition.d = %d: %v entries, want %d live", day, c, n)
		}
	}
	// A limit of 1 reads the manifest list and the first manifest only.
	list := mustList(t, tbl)
	if len(list) < 3 {
		t.Fatalf("%d manifests: not a useful table", len(list))
	}
	io := &countingIO{FileIO: tbl.IO, reads: map[string]int{}}
	limited := *tbl
	limited.IO = io
	if n := len(fileRows(t, &limited, Files, Options{Limit: 1})); n != 1 {
		t.Fatalf("limit 1: %d rows", n)
	}
	for _, mf := range list[1:] {
		if io.reads[mf.Path] != 0 {
			t.Errorf("limit 1 read manifest %s too", mf.Path)
		}
	}
	if io.reads[list[0].Path] != 1 {
		t.Errorf("limit 1 read the first manifest %d times", io.reads[list[0].Path])
	}
}

// A filter on content skips the manifests of the other kind (data
// manifests hold content 0 only, delete manifests 1 and 2).
func TestContentFilterSkipsManifestsOfTheOtherKind(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	list := mustList(t, tbl)
	for _, c := range []struct {
		kind   Kind
		column string
		value  int64
		skips  manifest.ManifestContent
	}{{Files, "content", 1, manifest.ManifestContentData}, {Entries, "data_file.content", 0, manifest.ManifestContentDeletes}} {
		eq, err := expr.NewPredicate(expr.OpEq, c.column, c.value)
		if err != nil {
			t.Fatal(err)
		}
		io := &countingIO{FileIO: tbl.IO, reads: map[string]int{}}
		counted := *tbl
		counted.IO = io
		var rows int
		if c.kind == Files {
			rows = len(fileRows(t, &counted, Files, Options{Filter: eq}))
		} else {
			n := entryCounts(t, &counted, Entries, Options{Filter: eq})
			rows = n[0] + n[1] + n[2]
		}
		want, kinds := 0, map[manifest.ManifestContent]bool{}
		for _, r := range fileRows(t, tbl, Files, Options{}) {
			if int64(r.content) == c.value {
				want++
			}
		}
		for _, mf := range list {
			kinds[mf.Content] = true
			if mf.Content == c.skips && io.reads[mf.Path] != 0 {
				t.Errorf("%s = %d read %s manifest %s", c.column, c.value, mf.Content, mf.Path)
			}
		}
		if rows != want || want == 0 || len(kinds) != 2 {
			t.Errorf("%s = %d: %d rows, want %d (manifest kinds %v)", c.column, c.value, rows, want, kinds)
		}
	}
}
