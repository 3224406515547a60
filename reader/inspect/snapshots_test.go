package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// openFixture opens a bundled real-engine table.
func openFixture(t *testing.T, f fixtures.Table) *table.Table {
	t.Helper()
	tbl, err := table.Open(context.Background(), f.Metadata, table.Options{LocationMap: f.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// readAll reads a metadata table into its batches, checking the
// allocator is left empty once they are released.
func readAll(t *testing.T, tbl *table.Table, kind Kind, opts Options) []arrow.RecordBatch {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rr, err := Open(context.Background(), tbl, kind, opts, mem)
	if err != nil {
		t.Fatal(err)
	}
	var out []arrow.RecordBatch
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		out = append(out, rec)
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	t.Cleanup(func() {
		for _, r := range out {
			r.Release()
		}
		mem.AssertSize(t, 0)
	})
	return out
}

// rawSnapshot is a snapshot as the metadata JSON spells it, read apart
// from floe's parser.
type rawSnapshot struct {
	ID        int64             `json:"snapshot-id"`
	Parent    *int64            `json:"parent-snapshot-id"`
	Timestamp int64             `json:"timestamp-ms"`
	List      string            `json:"manifest-list"`
	Summary   map[string]string `json:"summary"`
}

// The snapshots table of every fixture holds what its metadata JSON
// holds: ids, parents, times, operations, summaries.
func TestSnapshotsMatchTheMetadataJSON(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range all {
		raw, err := os.ReadFile(f.Metadata)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Snapshots []rawSnapshot `json:"snapshots"`
		}
		// Some writers round ids through doubles; json.Number keeps the
		// digits as written.
		dec := json.NewDecoder(bytesReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Logf("%s: not compared: %v", f.Name, err)
			continue
		}
		tbl := openFixture(t, f)
		recs := readAll(t, tbl, Snapshots, Options{})
		var ids, parents, times []int64
		var ops []string
		for _, rec := range recs {
			for i := 0; i < int(rec.NumRows()); i++ {
				ids = append(ids, rec.Column(1).(*array.Int64).Value(i))
				if p := rec.Column(2); p.IsNull(i) {
					parents = append(parents, -1)
				} else {
					parents = append(parents, p.(*array.Int64).Value(i))
				}
				times = append(times, int64(rec.Column(0).(*array.Timestamp).Value(i)))
				ops = append(ops, rec.Column(3).(*array.String).Value(i))
			}
		}
		if len(ids) != len(doc.Snapshots) {
			t.Fatalf("%s: %d snapshot rows, the metadata has %d", f.Name, len(ids), len(doc.Snapshots))
		}
		for i, s := range doc.Snapshots {
			wantParent := int64(-1)
			if s.Parent != nil {
				wantParent = *s.Parent
			}
			if times[i] != s.Timestamp*1000 || ops[i] != s.Summary["operation"] {
				t.Errorf("%s row %d: time %d op %q; the metadata says %d, %q", f.Name, i, times[i], ops[i], s.Timestamp*1000, s.Summary["operation"])
			}
			if ids[i] != s.ID || parents[i] != wantParent {
				t.Errorf("%s row %d: id %d parent %d; metadata %d parent %d", f.Name, i, ids[i], parents[i], s.ID, wantParent)
			}
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d fixture tables checked", checked)
	}
}

// Column selection, a filter and a limit, as for a scan; unknown names
// are refused naming the closest.
func TestSnapshotsColumnsFilterLimit(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_positional_not_all_data_files_have_delete_files")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	if len(tbl.Metadata.Snapshots) < 3 {
		t.Fatalf("%d snapshots: not a useful table", len(tbl.Metadata.Snapshots))
	}
	second := tbl.Metadata.Snapshots[1].SnapshotID
	eq, err := expr.NewPredicate(expr.OpEq, "snapshot_id", second)
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, tbl, Snapshots, Options{Columns: []string{"snapshot_id", "operation"}, Filter: eq})
	if len(recs) != 1 || recs[0].NumRows() != 1 || recs[0].NumCols() != 2 || recs[0].Column(0).(*array.Int64).Value(0) != second {
		t.Fatalf("filtered to snapshot %d: %v", second, recs)
	}
	rows := 0
	for _, rec := range readAll(t, tbl, Snapshots, Options{Limit: 2, BatchSize: 1}) {
		rows += int(rec.NumRows())
	}
	if rows != 2 {
		t.Fatalf("limit 2 gave %d rows", rows)
	}
	_, err = Open(context.Background(), tbl, Snapshots, Options{Columns: []string{"snapshotid"}}, nil)
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("an unknown column: %v", err)
	}
	_, err = Open(context.Background(), tbl, "snapshot", Options{}, nil)
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("an unknown metadata table: %v", err)
	}
	_, err = Open(context.Background(), tbl, Snapshots, Options{Ref: "main"}, nil)
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a ref for the snapshots table: %v", err)
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
