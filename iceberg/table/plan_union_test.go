package table

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/internal/avronull"
	"github.com/floedb/floe/internal/testtable"
)

// A table whose manifests and manifest list declare every value nullable,
// records included, as BigQuery writes them, plans exactly as the same
// table written plainly: full scans and filtered scans that prune by
// partition summaries, partition tuples and column bounds.
func TestPlanUnionWrappedManifests(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tbl")
	spec := iceberg.PartitionSpec{ID: 0, Fields: []iceberg.PartitionField{
		{SourceID: testtable.IDDate, Transform: iceberg.YearTransform{}},
		{SourceID: testtable.IDInt, Transform: iceberg.BucketTransform{N: 2}},
	}}
	built, err := testtable.Build(dir, testtable.Options{Rows: testtable.RandomRows(12, 300), Spec: spec, RowsPerFile: 40, Manifests: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	filters := []string{"id < 60", "dt < '1995-01-01'", "i = 7 AND s IS NOT NULL"}
	plans := func() []*Plan {
		tbl, err := Open(ctx, built.MetadataPath, Options{})
		if err != nil {
			t.Fatal(err)
		}
		full, err := tbl.PlanFiles(ctx, SnapshotSelector{})
		if err != nil {
			t.Fatal(err)
		}
		out := []*Plan{full}
		for _, f := range filters {
			out = append(out, planFiltered(t, tbl, SnapshotSelector{}, f))
		}
		return out
	}
	want := plans()
	if len(want[0].Tasks) != len(built.Files) {
		t.Fatalf("plain table plans %d files, %d were written", len(want[0].Tasks), len(built.Files))
	}
	skipped := 0
	for _, p := range want[1:] {
		skipped += p.DataFilesSkipped + p.ManifestsSkipped
	}
	if skipped == 0 {
		t.Fatal("no filter pruned anything: the test would not cover the metrics")
	}

	wrapTableManifests(t, filepath.Join(built.Location, "metadata"))
	got := plans()
	for i := range want {
		if !reflect.DeepEqual(got[i].Tasks, want[i].Tasks) || got[i].DataFilesSkipped != want[i].DataFilesSkipped ||
			got[i].ManifestsSkipped != want[i].ManifestsSkipped || got[i].ManifestsRead != want[i].ManifestsRead {
			t.Errorf("plan %d (filters %v): union-wrapped manifests plan\n%+v\nthe plain ones\n%+v", i, filters, got[i], want[i])
		}
	}
}

// wrapTableManifests rewrites every manifest under metaDir with all values
// nullable (null first), then the manifest lists (null last), with the
// manifests' new lengths.
func wrapTableManifests(t *testing.T, metaDir string) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(metaDir, "*.avro"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Avro files in %s (%v)", metaDir, err)
	}
	lengths := map[string]int64{}
	var lists []string
	for _, p := range names {
		if strings.HasPrefix(filepath.Base(p), "snap-") {
			lists = append(lists, p)
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		wrapped, err := avronull.Wrap(data, avronull.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, wrapped, 0o644); err != nil {
			t.Fatal(err)
		}
		lengths[p] = int64(len(wrapped))
	}
	for _, p := range lists {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		wrapped, err := avronull.Wrap(data, avronull.Options{NullLast: true, Edit: func(_ int, r map[string]any) {
			path, _ := r["manifest_path"].(string)
			n, ok := lengths[path]
			if !ok {
				t.Fatalf("the list names %s, not a rewritten manifest", path)
			}
			r["manifest_length"] = n
		}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, wrapped, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
