package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
)

// upsertCase builds a table of 400 rows in 4 appends (several files per
// partition) and an input of 60 existing ids with new values, 10 existing
// rows unchanged and 60 new ids. It returns the input and the rows the
// table should hold after the upsert.
func upsertCase(t *testing.T, tbl *table.Table) (input, want [][]any) {
	t.Helper()
	rows := testtable.RandomRows(31, 400)
	appendInChunks(t, tbl, rows, 100)
	fresh := testtable.RandomRows(32, 120)
	replaced := map[int64]bool{}
	for i := range fresh {
		if i < 60 {
			// Existing ids spread over every file.
			fresh[i][0] = int64(i * 6)
			replaced[int64(i*6)] = true
		} else {
			fresh[i][0] = int64(10_000 + i)
		}
	}
	input = slices.Clone(fresh)
	for i := 0; i < 10; i++ {
		input = append(input, slices.Clone(rows[i*6+1]))
	}
	want = keepRows(tbl.Metadata.CurrentSchema(), rows, func(r []any) bool { return replaced[r[0].(int64)] })
	want = append(want, fresh...)
	sortRows(tbl.Metadata.CurrentSchema(), want)
	return input, want
}

func upsertOpts(mode UpsertMode, cols ...string) UpsertOptions {
	return UpsertOptions{JoinCols: cols, Mode: mode, WhenMatchedUpdateAll: true, WhenNotMatchedInsertAll: true}
}

// An upsert of half existing, half new keys, with some rows unchanged, in
// every format version and mode: the table then reads the expected rows,
// in one new snapshot whose delete files are the mode's kind; unchanged
// rows are neither counted nor rewritten.
func TestUpsertReplacesAndInserts(t *testing.T) {
	cases := []struct {
		version int
		mode    UpsertMode
		spec    *iceberg.PartitionSpec
		// deletes is the kind of delete file the snapshot adds.
		deletes string
	}{
		{1, "", byBool, "none"},
		{2, "", byBool, "position"},
		{2, UpsertCopyOnWrite, byBool, "none"},
		{2, UpsertEqualityDeletes, nil, "equality"},
		{3, "", byBool, "vector"},
		{3, UpsertMergeOnRead, nil, "vector"},
		{3, UpsertCopyOnWrite, nil, "none"},
	}
	// Rows are compared in the matching scan (one pass) or in a second
	// read of the files holding matches: both ways give the same.
	defer func(share float64) { onePassShare = share }(onePassShare)
	for _, share := range []float64{-1, 2} {
		for _, tc := range cases {
			name := strings.Join([]string{fmt.Sprintf("share %v", share), "v" + string(rune('0'+tc.version)), string(tc.mode), tc.deletes}, "/")
			onePassShare = share
			t.Run(name, func(t *testing.T) {
				ctx := context.Background()
				tbl := newTable(t, tc.version, tc.spec, nil)
				input, want := upsertCase(t, tbl)
				before := len(tbl.Metadata.Snapshots)
				rr := rowsReader(t, tbl, input)
				defer rr.Release()
				res, err := Upsert(ctx, tbl, rr, upsertOpts(tc.mode, "id"))
				if err != nil {
					t.Fatal(err)
				}
				if !res.Committed || res.RowsUpdated != 60 || res.RowsInserted != 60 || res.DeletedRows != 60 {
					t.Fatalf("result %+v: want 60 updated, 60 inserted, 60 deleted", res)
				}
				checkRows(t, "after the upsert", tbl, want)
				re := reopened(t, tbl)
				if n := len(re.Metadata.Snapshots); n != before+1 {
					t.Fatalf("%d snapshots, want %d", n, before+1)
				}
				var dataRows int64
				kinds := map[string]int{}
				for _, f := range res.Files {
					switch {
					case f.Content == manifest.ContentData:
						dataRows += f.RecordCount
					case f.Content == manifest.ContentEqualityDeletes:
						kinds["equality"]++
					case f.ContentOffset != nil:
						kinds["vector"]++
					default:
						kinds["position"]++
					}
				}
				if tc.deletes == "none" {
					if len(kinds) != 0 {
						t.Fatalf("delete files %v, want none", kinds)
					}
				} else if len(kinds) != 1 || kinds[tc.deletes] == 0 {
					t.Fatalf("delete files %v, want %s only", kinds, tc.deletes)
				}
				// The unchanged rows were not written again (copy-on-write
				// also rewrites the rows that stay in the files it touches).
				if tc.deletes != "none" && dataRows != 120 {
					t.Fatalf("%d rows written, want 120", dataRows)
				}
				if tc.version >= 3 {
					checkVectors(t, re)
				}
			})
		}
	}
}

// Two input rows with one key are refused before anything is written.
func TestUpsertRefusesDuplicateKeys(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, byBool, nil)
	input, _ := upsertCase(t, tbl)
	input = append(input, slices.Clone(input[70]))
	files := filesUnderDir(t, tbl.Metadata.Location)
	snaps := len(tbl.Metadata.Snapshots)
	rr := rowsReader(t, tbl, input)
	defer rr.Release()
	_, err := Upsert(ctx, tbl, rr, upsertOpts("", "id"))
	if !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), "same key") {
		t.Fatalf("upsert of a duplicate key: %v", err)
	}
	if after := filesUnderDir(t, tbl.Metadata.Location); !slices.Equal(after, files) {
		t.Fatalf("the refused upsert left files:\n%v", after)
	}
	if n := len(reopened(t, tbl).Metadata.Snapshots); n != snaps {
		t.Fatalf("%d snapshots after the refusal, %d before", n, snaps)
	}
}

// Without JoinCols the identifier fields are the key; with them, the
// columns named (case-insensitively when asked); neither is an error.
func TestUpsertJoinColumns(t *testing.T) {
	ctx := context.Background()
	base := testtable.Schema()
	keyed := iceberg.NewSchema(0, base.Fields, testtable.IDID)
	tbl, err := table.Create(ctx, nil, t.TempDir()+"/tbl", keyed, nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	input, want := upsertCase(t, tbl)
	rr := rowsReader(t, tbl, input)
	res, err := Upsert(ctx, tbl, rr, upsertOpts(""))
	rr.Release()
	if err != nil || res.RowsUpdated != 60 || res.RowsInserted != 60 {
		t.Fatalf("upsert by the identifier field: %+v, %v", res, err)
	}
	checkRows(t, "by identifier", tbl, want)

	// Join on l instead: rows whose l matches replace rows of another id.
	rows := tableRows(t, tbl.MetadataLocation, table.Options{})
	var byL [][]any
	for _, r := range rows {
		if r[testtable.IDLong-1] != nil && len(byL) < 5 {
			n := slices.Clone(r)
			n[0] = r[0].(int64) + 50_000
			byL = append(byL, n)
		}
	}
	rr = rowsReader(t, tbl, byL)
	res, err = Upsert(ctx, tbl, rr, upsertOpts("", "L"))
	rr.Release()
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("join column L matched by case: %+v, %v", res, err)
	}
	rr = rowsReader(t, tbl, byL)
	o := upsertOpts("", "L")
	o.CaseInsensitive = true
	res, err = Upsert(ctx, tbl, rr, o)
	rr.Release()
	if err != nil || res.RowsUpdated != 5 || res.RowsInserted != 0 {
		t.Fatalf("upsert on l: %+v, %v", res, err)
	}
	moved := map[int64]bool{}
	for _, r := range byL {
		moved[r[0].(int64)-50_000] = true
	}
	want = append(keepRows(keyed, rows, func(r []any) bool { return moved[r[0].(int64)] }), byL...)
	sortRows(keyed, want)
	checkRows(t, "by l", tbl, want)

	plain := newTable(t, 2, nil, nil)
	rr = rowsReader(t, plain, input[:3])
	defer rr.Release()
	if _, err := Upsert(ctx, plain, rr, upsertOpts("")); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("upsert without a key: %v", err)
	}
}

// An input column the table lacks is refused, naming the closest.
func TestUpsertRefusesUnknownColumn(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, nil, nil)
	appendInChunks(t, tbl, testtable.RandomRows(1, 10), 10)
	fields := slices.Clone(testtable.Schema().Fields)
	fields[4].Name = "ss"
	rr := rowstest.Reader(t, iceberg.NewSchema(0, fields), testtable.RandomRows(2, 3))
	defer rr.Release()
	_, err := Upsert(ctx, tbl, rr, upsertOpts("", "id"))
	var unknown *iceberg.UnknownColumnError
	if !errors.As(err, &unknown) || unknown.Column != "ss" || unknown.Closest != "s" {
		t.Fatalf("upsert with column ss: %v", err)
	}
}

// Only the matched or only the unmatched rows, as asked.
func TestUpsertWhenClauses(t *testing.T) {
	ctx := context.Background()
	for _, update := range []bool{true, false} {
		tbl := newTable(t, 3, byBool, nil)
		input, _ := upsertCase(t, tbl)
		rows := tableRows(t, tbl.MetadataLocation, table.Options{})
		rr := rowsReader(t, tbl, input)
		o := upsertOpts("", "id")
		o.WhenMatchedUpdateAll, o.WhenNotMatchedInsertAll = update, !update
		res, err := Upsert(ctx, tbl, rr, o)
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
		var want [][]any
		if update {
			if res.RowsUpdated != 60 || res.RowsInserted != 0 {
				t.Fatalf("update only: %+v", res)
			}
			replaced := map[int64]bool{}
			for _, r := range input[:60] {
				replaced[r[0].(int64)] = true
			}
			want = append(keepRows(tbl.Metadata.CurrentSchema(), rows, func(r []any) bool { return replaced[r[0].(int64)] }), input[:60]...)
		} else {
			if res.RowsUpdated != 0 || res.RowsInserted != 60 {
				t.Fatalf("insert only: %+v", res)
			}
			want = append(rows, input[60:120]...)
		}
		sortRows(tbl.Metadata.CurrentSchema(), want)
		checkRows(t, "when clauses", tbl, want)
	}
	tbl := newTable(t, 2, nil, nil)
	rr := rowsReader(t, tbl, testtable.RandomRows(1, 3))
	defer rr.Release()
	if _, err := Upsert(ctx, tbl, rr, UpsertOptions{JoinCols: []string{"id"}}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("upsert doing nothing: %v", err)
	}
}

// Upserting rows equal to the table's commits nothing.
func TestUpsertOfUnchangedRowsCommitsNothing(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, byBool, nil)
	rows := testtable.RandomRows(5, 200)
	appendInChunks(t, tbl, rows, 50)
	head := tbl.Metadata.CurrentSnapshotID
	files := filesUnderDir(t, tbl.Metadata.Location)
	rr := rowsReader(t, tbl, rows[20:80])
	defer rr.Release()
	res, err := Upsert(ctx, tbl, rr, upsertOpts("", "id"))
	if err != nil || res.Committed || res.RowsUpdated != 0 || res.RowsInserted != 0 || head == nil || res.SnapshotID != *head {
		t.Fatalf("upsert of unchanged rows: %+v, %v", res, err)
	}
	if after := filesUnderDir(t, tbl.Metadata.Location); !slices.Equal(after, files) {
		t.Fatalf("files written:\n%v", after)
	}
}

// An upsert planned before another writer deleted rows of the files its
// keys reach fails with ErrConflict, leaving no file; planned again it
// succeeds.
func TestUpsertConflicts(t *testing.T) {
	for _, version := range []int{2, 3} {
		ctx := context.Background()
		tbl := newTable(t, version, byBool, nil)
		input, _ := upsertCase(t, tbl)
		stale := reopened(t, tbl)
		first, firstDeletes := ids(t, 6, 7, 200)
		if _, err := DeleteRows(ctx, tbl, first, RowOptions{Mode: MergeOnRead}); err != nil {
			t.Fatal(err)
		}
		snaps := len(reopened(t, tbl).Metadata.Snapshots)
		files := filesUnderDir(t, tbl.Metadata.Location)
		rr := rowsReader(t, stale, input)
		_, err := Upsert(ctx, stale, rr, upsertOpts("", "id"))
		rr.Release()
		if version >= 3 && !errors.Is(err, table.ErrConflict) {
			t.Fatalf("v%d: the stale upsert: %v", version, err)
		}
		if err != nil {
			if n := len(reopened(t, tbl).Metadata.Snapshots); n != snaps {
				t.Fatalf("%d snapshots after the conflict, %d before", n, snaps)
			}
			if after := filesUnderDir(t, tbl.Metadata.Location); !slices.Equal(after, files) {
				t.Fatalf("the failed upsert left files:\n%v", after)
			}
		}
		// A concurrent append of rows the keys may reach conflicts too.
		stale = reopened(t, tbl)
		appendInChunks(t, tbl, testtable.RandomRows(9, 5), 5)
		rr = rowsReader(t, stale, input)
		_, err = Upsert(ctx, stale, rr, upsertOpts("", "id"))
		rr.Release()
		if !errors.Is(err, table.ErrConflict) {
			t.Fatalf("v%d: upsert after a concurrent append: %v", version, err)
		}
		fresh := reopened(t, tbl)
		rr = rowsReader(t, fresh, input)
		res, err := Upsert(ctx, fresh, rr, upsertOpts("", "id"))
		rr.Release()
		if err != nil || !res.Committed {
			t.Fatalf("v%d: upsert planned again: %+v, %v", version, res, err)
		}
		_ = firstDeletes
	}
}

// An upsert whose keys cannot narrow the scan (a timestamp key: the plan's
// filter is true) keeps the delete files already in the table: the rows
// they deleted stay deleted.
func TestUpsertKeepsEarlierDeletes(t *testing.T) {
	ctx := context.Background()
	for _, version := range []int{2, 3} {
		tbl := newTable(t, version, nil, nil)
		rows := testtable.RandomRows(41, 200)
		appendInChunks(t, tbl, rows, 100)
		gone, deleted := ids(t, 3, 4, 150)
		if _, err := DeleteRows(ctx, tbl, gone, RowOptions{Mode: MergeOnRead}); err != nil {
			t.Fatal(err)
		}
		schema := tbl.Metadata.CurrentSchema()
		ts := testtable.IDTimestamp - 1
		var input [][]any
		for _, r := range rows[100:] {
			if r[ts] != nil && !deleted(r) && len(input) < 10 {
				n := slices.Clone(r)
				n[testtable.IDString-1] = "changed"
				input = append(input, n)
			}
		}
		changed := map[int64]bool{}
		for _, r := range input {
			changed[r[0].(int64)] = true
		}
		want := keepRows(schema, rows, func(r []any) bool { return deleted(r) || changed[r[0].(int64)] })
		want = append(want, input...)
		sortRows(schema, want)
		rr := rowsReader(t, tbl, input)
		res, err := Upsert(ctx, tbl, rr, upsertOpts("", "ts"))
		rr.Release()
		if err != nil || res.RowsUpdated != int64(len(input)) {
			t.Fatalf("v%d: %+v, %v", version, res, err)
		}
		checkRows(t, "after an upsert on ts", tbl, want)
	}
}

// An upsert and a property change in one transaction: one new version
// with both. A transaction refused after the upsert step wrote its files
// leaves none of them.
func TestUpsertInATransaction(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 3, byBool, nil)
	input, want := upsertCase(t, tbl)
	logBefore := len(tbl.Metadata.MetadataLog)
	tx := tbl.Transaction()
	tx.SetProperties(map[string]string{"merged": "yes"}, nil)
	rr := rowsReader(t, tbl, input)
	res, err := UpsertIn(ctx, tx, rr, upsertOpts("", "id"))
	rr.Release()
	if err != nil || res.RowsUpdated != 60 || res.RowsInserted != 60 {
		t.Fatalf("%+v, %v", res, err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := reopened(t, tbl)
	if got := len(fresh.Metadata.MetadataLog) - logBefore; got != 1 || fresh.Metadata.Properties["merged"] != "yes" {
		t.Fatalf("%d versions, properties %v", got, fresh.Metadata.Properties)
	}
	checkRows(t, "after the transaction", fresh, want)

	before := filesUnderDir(t, tbl.Metadata.Location)
	tx = fresh.Transaction()
	more := testtable.RandomRows(77, 5)
	for i := range more {
		more[i][0] = int64(20_000 + i)
	}
	changed := slices.Clone(input[0])
	changed[testtable.IDString-1] = "x" // an existing row changed
	rr = rowsReader(t, fresh, append(more, changed))
	defer rr.Release()
	if _, err := UpsertIn(ctx, tx, rr, upsertOpts("", "id")); err != nil {
		t.Fatal(err)
	}
	tx.Add(action.UpgradeFormatVersion{FormatVersion: 1})
	if _, err := tx.Commit(ctx); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a downgrade: %v", err)
	}
	if after := filesUnderDir(t, tbl.Metadata.Location); !slices.Equal(after, before) {
		t.Fatalf("a refused transaction left files: %v", after)
	}
}
