package lineitem

import (
	"context"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// scanPartKeys counts the rows floe returns and sums their l_partkey.
func scanPartKeys(t *testing.T, metadataPath string) Expected {
	t.Helper()
	ctx := context.Background()
	it, err := table.Open(ctx, metadataPath, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scan.New(ctx, it, scan.Options{Columns: []string{"l_partkey"}})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := sc.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var got Expected
	for rr.Next() {
		keys := rr.RecordBatch().Column(0).(*array.Int64)
		got.Rows += int64(keys.Len())
		for _, k := range keys.Int64Values() {
			got.SumPartKey += k
		}
	}
	if rr.Err() != nil {
		t.Fatalf("%s: %v", metadataPath, rr.Err())
	}
	return got
}

// TestDeleteTablesThroughFloe checks the derived tables against the
// generator's own account of what was deleted. The plain table's scan
// must match the replayed generator first, or the expectations would be
// about other data.
func TestDeleteTablesThroughFloe(t *testing.T) {
	tbl := generateSmall(t)
	dt, err := GenerateDeletes(tbl, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if got := scanPartKeys(t, tbl.MetadataPath); got != dt.Plain || got.Rows != smallParams.Rows {
		t.Fatalf("plain table scans as %+v, the generator replays %+v", got, dt.Plain)
	}
	tenth := smallParams.Rows / 10
	for _, kind := range DeleteKinds {
		d := dt.Table(kind)
		if d == nil {
			t.Fatalf("no %s table", kind)
		}
		// Files of 10,000 rows: exactly a tenth of each is deleted.
		if d.DeletedRows != tenth || d.DeleteRecords != tenth || d.Expected.Rows != smallParams.Rows-tenth {
			t.Errorf("%s: %d rows deleted by %d records, %d expected to survive; want %d of %d", kind, d.DeletedRows, d.DeleteRecords, d.Expected.Rows, tenth, smallParams.Rows)
		}
		if d.Expected.SumPartKey >= dt.Plain.SumPartKey || d.Expected.SumPartKey <= 0 {
			t.Errorf("%s: expected sum %d against the plain %d", kind, d.Expected.SumPartKey, dt.Plain.SumPartKey)
		}
		if got := scanPartKeys(t, d.MetadataPath); got != d.Expected {
			t.Errorf("%s (v%d): floe scans %+v, want %+v", kind, d.FormatVersion, got, d.Expected)
		}
	}
	// Position deletes and deletion vectors delete the same rows.
	if dt.Table(PositionDeletes).Expected != dt.Table(DeletionVectors).Expected {
		t.Errorf("position deletes leave %+v, deletion vectors %+v", dt.Table(PositionDeletes).Expected, dt.Table(DeletionVectors).Expected)
	}

	again, err := GenerateDeletes(tbl, t.Logf)
	if err != nil || again.Generated || again.Plain != dt.Plain || len(again.Tables) != len(dt.Tables) {
		t.Fatalf("second run: %v, generated %v", err, again != nil && again.Generated)
	}
	for i := range dt.Tables {
		if again.Tables[i] != dt.Tables[i] {
			t.Errorf("reused %s table differs: %+v vs %+v", dt.Tables[i].Kind, again.Tables[i], dt.Tables[i])
		}
	}
}

// TestDeletesFollowTheirData: a plain table made again (another seed)
// gets new delete tables.
func TestDeletesFollowTheirData(t *testing.T) {
	dir := t.TempDir()
	p := Params{Rows: 5_000, Files: 2, RowGroupsPerFile: 1, Seed: 1}
	tbl, err := Generate(dir, p, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	first, err := GenerateDeletes(tbl, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	p.Seed++
	if tbl, err = Generate(dir, p, t.Logf); err != nil {
		t.Fatal(err)
	}
	second, err := GenerateDeletes(tbl, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Generated || second.Plain == first.Plain {
		t.Fatalf("new data, but deletes generated %v with plain %+v (was %+v)", second.Generated, second.Plain, first.Plain)
	}
	if _, err := os.Stat(second.Table(EqualityDeletes).MetadataPath); err != nil {
		t.Fatal(err)
	}
	if got := scanPartKeys(t, second.Table(EqualityDeletes).MetadataPath); got != second.Table(EqualityDeletes).Expected {
		t.Errorf("equality table scans %+v, want %+v", got, second.Table(EqualityDeletes).Expected)
	}
}
