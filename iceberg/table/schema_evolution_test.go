package table_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/scan"
)

// action.UpdateSchema committed through table transactions on a copy of
// Impala's v3 test_default_part (i int; j int with initial-default -1 and
// write-default -999; spec 1 identity(j); files written before j existed
// have no null count for it, one later file counts one null in it).
// Reading through reader/scan, which imports package table, needs this
// external test package.

type evolvingTable struct {
	dir  string
	opts table.Options
}

func copyEvolvingFixture(t *testing.T) evolvingTable {
	t.Helper()
	fx, err := fixtures.Get("impala_test_default_part")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "copy")
	err = filepath.WalkDir(fx.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fx.Dir, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		return copyFileTo(path, filepath.Join(dir, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
	locations := map[string]string{}
	for prefix, target := range fx.LocationMap {
		locations[prefix] = strings.Replace(target, fx.Dir, dir, 1)
	}
	return evolvingTable{dir: dir, opts: table.Options{LocationMap: locations}}
}

func copyFileTo(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func (e evolvingTable) open(t *testing.T) *table.Table {
	t.Helper()
	tbl, err := table.Open(context.Background(), e.dir, e.opts)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func (e evolvingTable) versions(t *testing.T) int {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(e.dir, "metadata", "*.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	return len(names)
}

// rows reads columns of the current snapshot, one "v1|v2…" string per
// row, sorted.
func rows(t *testing.T, tbl *table.Table, columns ...string) []string {
	t.Helper()
	ctx := context.Background()
	s, err := scan.New(ctx, tbl, scan.Options{Columns: columns, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var out []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				parts[c] = rec.Column(c).ValueStr(r)
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func schemaColumn(t *testing.T, tbl *table.Table, name string) iceberg.NestedField {
	t.Helper()
	f, ok := tbl.Metadata.CurrentSchema().FindFieldByName(name)
	if !ok {
		t.Fatalf("no column %q in %v", name, tbl.Metadata.CurrentSchema())
	}
	return f
}

// refusedCommit checks err is an invalid argument naming every one of
// words and that no metadata version was written.
func refusedCommit(t *testing.T, e evolvingTable, versions int, err error, words ...string) {
	t.Helper()
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("want an invalid argument, got %v", err)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v does not say %q", err, w)
		}
	}
	if got := e.versions(t); got != versions {
		t.Fatalf("the refused change committed: %d metadata versions, had %d", got, versions)
	}
}

func TestSchemaEvolutionOnImpalaTable(t *testing.T) {
	ctx := context.Background()
	e := copyEvolvingFixture(t)
	tbl := e.open(t)
	before := rows(t, tbl, "i", "j")
	if len(before) != 5 {
		t.Fatalf("the fixture reads %d rows: %v", len(before), before)
	}

	// One transaction: a nested column, a rename, two promotions (j is the
	// identity partition source; int→long keeps its values).
	info := &iceberg.StructType{Fields: []iceberg.NestedField{
		{Name: "note", Type: iceberg.StringType{}},
		{Name: "n", Type: iceberg.IntType{}},
	}}
	tx := tbl.Transaction()
	tx.Add(new(action.UpdateSchema).
		AddColumn("info", info).
		RenameColumn("i", "id").
		UpdateColumn("i", iceberg.LongType{}).
		UpdateColumn("j", iceberg.LongType{}))
	if res, err := tx.Commit(ctx); err != nil || !res.Committed {
		t.Fatalf("evolve: %+v, %v", res, err)
	}
	tbl = e.open(t)
	if f := schemaColumn(t, tbl, "id"); f.ID != 1 || f.Type != (iceberg.LongType{}) {
		t.Errorf("id is %+v", f)
	}
	if f := schemaColumn(t, tbl, "j"); f.Type != (iceberg.LongType{}) || f.InitialDefault != int64(-1) || f.WriteDefault != int64(-999) {
		t.Errorf("j is %+v", f)
	}
	if f := schemaColumn(t, tbl, "info.n"); f.ID != 5 || tbl.Metadata.LastColumnID != 5 {
		t.Errorf("info.n is %+v, last-column-id %d", f, tbl.Metadata.LastColumnID)
	}
	// The files written before read through the new schema: the renamed
	// column by its id, the promoted ones widened, the new one null.
	if got := rows(t, tbl, "id", "j"); !slices.Equal(got, before) {
		t.Errorf("after the evolution the table reads %v, want %v", got, before)
	}
	infos := rows(t, tbl, "info")
	if len(infos) != len(before) {
		t.Errorf("the new column reads %d rows, want %d", len(infos), len(before))
	}
	for _, r := range infos {
		if r != "(null)" {
			t.Errorf("the new column reads %q in a row written before it", r)
		}
	}

	// Dropping a nested column; dropping the partition source is refused.
	if _, err := tbl.Apply(ctx, new(action.UpdateSchema).DeleteColumn("info.note")); err != nil {
		t.Fatal(err)
	}
	tbl = e.open(t)
	if _, ok := tbl.Metadata.CurrentSchema().FindFieldByName("info.note"); ok {
		t.Error("info.note is still there")
	}
	versions := e.versions(t)
	_, err := tbl.Apply(ctx, new(action.UpdateSchema).DeleteColumn("j"))
	refusedCommit(t, e, versions, err, `"j"`, "partition field", "spec 1")
	_, err = tbl.Apply(ctx, new(action.UpdateSchema).UpdateColumn("id", iceberg.IntType{}))
	refusedCommit(t, e, versions, err, `"id"`, "cannot change type")

	// id holds no null in any file (every file counts it): it may become
	// required.
	if _, err := tbl.Apply(ctx, new(action.UpdateSchema).RequireColumn("id")); err != nil {
		t.Fatalf("require id: %v", err)
	}
	tbl = e.open(t)
	if !schemaColumn(t, tbl, "id").Required {
		t.Error("id is not required")
	}
}

// RequireColumn is refused while a live file may hold a null in the
// column: one that counts a null, or one that has no count for it.
func TestRequireColumnRefusedWhileFilesHoldNulls(t *testing.T) {
	ctx := context.Background()
	e := copyEvolvingFixture(t)
	tbl := e.open(t)
	plan, err := tbl.PlanFiles(ctx, table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	var uncounted, withNull []string
	for _, task := range plan.Tasks {
		switch n, ok := task.File.Metrics.NullCount(2); {
		case !ok:
			uncounted = append(uncounted, task.File.FilePath)
		case n > 0:
			withNull = append(withNull, task.File.FilePath)
		}
	}
	if len(uncounted) == 0 || len(withNull) != 1 {
		t.Fatalf("the fixture changed: %d files without a null count for j, %d with nulls", len(uncounted), len(withNull))
	}
	require := new(action.UpdateSchema).RequireColumn("j")
	versions := e.versions(t)
	_, err = tbl.Apply(ctx, require)
	refusedCommit(t, e, versions, err, `"j"`, "cannot be required")

	// Without the files that have no count, the one null still refuses it.
	if _, err := tbl.Commit(ctx, nil, uncounted, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = e.open(t)
	versions = e.versions(t)
	_, err = tbl.Apply(ctx, require)
	refusedCommit(t, e, versions, err, `"j"`, "holds 1 null", filepath.Base(withNull[0]))

	// Without it too, every live file counts no null: j becomes required.
	if _, err := tbl.Commit(ctx, nil, withNull, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tbl = e.open(t)
	if _, err := tbl.Apply(ctx, require); err != nil {
		t.Fatalf("require j with no null left: %v", err)
	}
	if !schemaColumn(t, e.open(t), "j").Required {
		t.Error("j is not required")
	}
	// A copy of a file appended after the change reads as before.
	plan, err = e.open(t).PlanFiles(ctx, table.SnapshotSelector{})
	if err != nil || len(plan.Tasks) == 0 {
		t.Fatalf("plan: %v, %d tasks", err, len(plan.Tasks))
	}
	keep := plan.Tasks[0]
	copyPath := filepath.Join(e.dir, "data", "floe-copy.parquet")
	if err := copyFileTo(keep.Path, copyPath); err != nil {
		t.Fatal(err)
	}
	copied := keep.File
	copied.FilePath, copied.FirstRowID = copyPath, nil
	tbl = e.open(t)
	if _, err := tbl.Append(ctx, []manifest.DataFile{copied}, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, e.open(t), "i", "j"); len(got) != len(plan.Tasks)+1 {
		t.Errorf("after the append the table reads %v", got)
	}
}

// Two schema changes from one version: the second conflicts and commits
// nothing, as Java's and a REST catalog's assert-current-schema-id make it;
// a union by name (append --evolve, ensure_table) is rebuilt on the newer
// schema instead.
func TestConcurrentSchemaChanges(t *testing.T) {
	ctx := context.Background()
	e := copyEvolvingFixture(t)
	first, second, union := e.open(t), e.open(t), e.open(t)
	if _, err := first.Apply(ctx, new(action.UpdateSchema).AddColumn("a", iceberg.StringType{})); err != nil {
		t.Fatal(err)
	}
	versions := e.versions(t)
	_, err := second.Apply(ctx, new(action.UpdateSchema).AddColumn("b", iceberg.StringType{}))
	if !errors.Is(err, table.ErrConflict) {
		t.Fatalf("a schema change from a stale version: %v, want a conflict", err)
	}
	if got := e.versions(t); got != versions {
		t.Fatalf("the conflicting change committed: %d metadata versions, had %d", got, versions)
	}
	wanted := iceberg.NewSchema(0, []iceberg.NestedField{{Name: "c", Type: iceberg.StringType{}}})
	if _, err := union.Apply(ctx, new(action.UpdateSchema).UnionByName(wanted)); err != nil {
		t.Fatalf("a union by name from a stale version: %v", err)
	}
	tbl := e.open(t)
	a, c := schemaColumn(t, tbl, "a"), schemaColumn(t, tbl, "c")
	if a.ID != 3 || c.ID != 4 {
		t.Errorf("a has id %d and c %d, want 3 and 4", a.ID, c.ID)
	}
	if _, ok := tbl.Metadata.CurrentSchema().FindFieldByName("b"); ok {
		t.Error("the conflicting column b is in the table")
	}
}
