package scan_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/footertest"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
	"github.com/parquet-go/parquet-go/format"
)

// scanCount reads a scan to its end and counts its rows.
func scanCount(tbl *table.Table, opts scan.Options) (int64, error) {
	ctx := context.Background()
	s, err := scan.New(ctx, tbl, opts)
	if err != nil {
		return 0, err
	}
	rr, err := s.Reader(ctx, memory.NewGoAllocator())
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	return n, rr.Err()
}

// TestDamagedFooterIsNeverFewerRows: a floe-written data file of several
// row groups has its footer rewritten so that rows go missing. Either the
// footer contradicts itself (a row group's num_rows lost) or it agrees with
// itself but not with the manifest's record_count (a row group left out);
// both used to scan fewer rows and succeed, and are now a corrupt error
// naming the file, also when CRCs are verified, the scan is parallel or
// the file is read in byte-range splits. count(*) from metadata is not
// affected: it reads no file.
func TestDamagedFooterIsNeverFewerRows(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.NewTable(t, 2, nil, map[string]string{"write.parquet.row-group-size-bytes": "4096"})
	// Four batches: the writer closes a row group past its size between
	// batches.
	rows := testtable.RandomRows(3, 2000)
	var batches []arrow.RecordBatch
	for i := 0; i < len(rows); i += 500 {
		batches = append(batches, rowstest.BuildRecord(t, tbl.Metadata.CurrentSchema(), rows[i:i+500]))
	}
	rr, err := array.NewRecordReader(batches[0].Schema(), batches)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ops.Append(ctx, tbl, rr, table.CommitOptions{})
	rr.Release()
	for _, b := range batches {
		b.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	plan := rowstest.LiveFiles(t, tbl)
	if len(plan.Tasks) != 1 {
		t.Fatalf("%d data files, want 1", len(plan.Tasks))
	}
	path := strings.TrimPrefix(plan.Tasks[0].File.FilePath, "file://")
	original, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var groups int
	if _, err := footertest.Rewrite(original, func(md *format.FileMetaData) { groups = len(md.RowGroups) }); err != nil {
		t.Fatal(err)
	}
	if groups < 2 {
		t.Fatalf("%d row groups, want several", groups)
	}
	if n, err := scanCount(tbl, scan.Options{}); err != nil || n != 2000 {
		t.Fatalf("the undamaged file: %d rows, %v", n, err)
	}

	for _, c := range []struct {
		name string
		edit func(md *format.FileMetaData)
		want string
	}{
		{"a row group's num_rows lost", func(md *format.FileMetaData) { md.RowGroups[1].NumRows = 0 },
			"row group 1 has 0 rows (num_rows)"},
		{"a row group left out of a footer that agrees with itself", func(md *format.FileMetaData) {
			last := md.RowGroups[len(md.RowGroups)-1]
			md.RowGroups = md.RowGroups[:len(md.RowGroups)-1]
			md.NumRows -= last.NumRows
		}, "but the manifest's record_count is 2000"},
	} {
		damaged, err := footertest.Rewrite(original, c.edit)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, o := range []struct {
			what string
			opts scan.Options
		}{
			{"plain", scan.Options{}},
			{"verifying CRCs", scan.Options{VerifyCRC: true}},
			{"parallel", scan.Options{Threads: 4}},
			{"split", scan.Options{SplitSize: 2048}},
		} {
			n, err := scanCount(tbl, o.opts)
			if err == nil {
				t.Errorf("%s, %s: %d rows of 2000 and no error", c.name, o.what, n)
				continue
			}
			if errkind.Of(err) != errkind.Corrupt || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: %v, want a corrupt error naming %s and saying %q", c.name, o.what, err, path, c.want)
			}
		}
		s, err := scan.New(ctx, tbl, scan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.Count(ctx); err != nil || n != 2000 {
			t.Errorf("%s: count from metadata %d, %v; want 2000", c.name, n, err)
		}
	}
}

// TestDamagedDeleteFileFooterIsAnError: a position delete file whose footer
// lost its row group (and agrees with itself about it) read as no deletes,
// so deleted rows came back without a word; its footer is held to its
// record_count as a data file's is.
func TestDamagedDeleteFileFooterIsAnError(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.NewTable(t, 2, nil, nil)
	rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), testtable.RandomRows(4, 500))
	_, err := ops.Append(ctx, tbl, rr, table.CommitOptions{})
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	id := tbl.Metadata.CurrentSchema().Fields[0].Name
	if _, err := ops.DeleteRows(ctx, tbl, rowstest.Pred(t, expr.OpLt, id, int64(100)), ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
		t.Fatal(err)
	}
	want, err := scanCount(tbl, scan.Options{})
	if err != nil || want >= 500 {
		t.Fatalf("after the delete: %d rows, %v", want, err)
	}
	plan := rowstest.LiveFiles(t, tbl)
	if len(plan.Tasks) != 1 || len(plan.Tasks[0].Deletes) != 1 {
		t.Fatalf("want one data file with one position delete file, got %d tasks", len(plan.Tasks))
	}
	path := strings.TrimPrefix(plan.Tasks[0].Deletes[0].File.FilePath, "file://")
	original, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged, err := footertest.Rewrite(original, func(md *format.FileMetaData) { md.RowGroups, md.NumRows = nil, 0 })
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := scanCount(tbl, scan.Options{})
	if err == nil {
		t.Fatalf("%d rows (%d before the damage) and no error", n, want)
	}
	if errkind.Of(err) != errkind.Corrupt || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "its footer holds 0 rows but the manifest's record_count is") {
		t.Errorf("%v, want a corrupt error naming %s", err, path)
	}
}
