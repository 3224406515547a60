package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer"
	"github.com/floedb/floe/writer/ops"
)

func TestParseRowTxActionsRefusesWhatItCannotRead(t *testing.T) {
	cases := []struct{ in, want string }{
		{`[{"action": "delete-rows"}]`, `action 0 (delete-rows): no "filter"`},
		{`[{"action": "delete-rows", "filter": "i <"}]`, "filter:"},
		{`[{"action": "delete-rows", "filter": "i < 3", "delete-mode": "merge"}]`, "delete-mode:"},
		{`[{"action": "delete-rows", "filter": "i < 3", "delete_mode": "merge-on-read"}]`, `unknown field "delete_mode"`},
		{`[{"action": "overwrite-rows", "files": "AAAA", "filter": "true"}]`, "action 0 (overwrite-rows): files:"},
		{`[{"action": "overwrite-rows", "files": ""}]`, `no "filter"`},
		{`[{"action": "expire-snapshots", "retain-last": 0}]`, "retain-last must be at least 1, not 0"},
		{`[{"action": "expire-snapshots", "older_than_ms": 5}]`, `unknown field "older_than_ms"`},
	}
	for _, c := range cases {
		_, err := parseTxActions([]byte(c.in))
		if err == nil {
			t.Errorf("%s: parsed", c.in)
			continue
		}
		if classify(err, statusInternal) != statusInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: status %d, %v; want INVALID_ARGUMENT saying %q", c.in, classify(err, statusInternal), err, c.want)
		}
	}
}

// txRows are a table's rows as a fresh open reads them.
func txRows(t *testing.T, tbl *table.Table) [][]any {
	t.Helper()
	return rowstest.TableRows(t, tbl.MetadataLocation, table.Options{LocationMap: tbl.Locations.Prefixes()})
}

func commitTxJSON(t *testing.T, tbl *table.Table, list string, opts txOptions) (table.TransactionResult, error) {
	t.Helper()
	actions, err := parseTxActions([]byte(list))
	if err != nil {
		t.Fatal(err)
	}
	return commitTxActions(context.Background(), tbl, actions, opts)
}

// A column added and rows deleted by filter in one transaction, on
// Hive's v2 table with position deletes, in both delete modes: one new
// metadata version, the new column in the schema and the rows gone (the
// deleted rows share files with rows that stay, so the delete writes
// position delete files or rewritten files). A later action refused, as
// it is added or when the transaction builds, leaves none of the files
// the delete wrote and the table as it was.
func TestDeleteRowsActionWithASchemaChange(t *testing.T) {
	for _, mode := range []string{"copy-on-write", "merge-on-read"} {
		t.Run(mode, func(t *testing.T) {
			tbl, dir := txFixtureCopy(t, "impala_iceberg_v2_partitioned_position_deletes")
			logBefore := len(tbl.Metadata.MetadataLog)
			rows := txRows(t, tbl)
			res, err := commitTxJSON(t, tbl, `[
				{"action": "add-column", "path": "note", "type": "string"},
				{"action": "delete-rows", "filter": "id = 6 or id = 18", "delete-mode": "`+mode+`"},
				{"action": "set-properties", "updates": {"cleaned": "yes"}}]`, txOptions{})
			if err != nil || !res.Committed || len(res.SnapshotIDs) != 1 {
				t.Fatalf("%+v %v", res, err)
			}
			fresh := reopenDir(t, dir)
			md := fresh.Metadata
			if got := len(md.MetadataLog) - logBefore; got != 1 || md.Properties["cleaned"] != "yes" {
				t.Fatalf("%d new versions, properties %v", got, md.Properties)
			}
			if _, ok := md.CurrentSchema().FindFieldByName("note"); !ok {
				t.Fatalf("schema %v has no note", md.CurrentSchema())
			}
			var want [][]any
			for _, r := range rows {
				if id := fmt.Sprint(r[0]); id != "6" && id != "18" {
					want = append(want, append(slices.Clone(r), nil))
				}
			}
			if len(want) != len(rows)-2 {
				t.Fatalf("the fixture changed: %v", rows)
			}
			rowstest.CompareRows(t, "after the transaction", md.CurrentSchema(), want, txRows(t, fresh))

			// Without discard_refused: the appended file stays (the
			// caller's), the delete's files go (the transaction's own).
			appended := writeTxFiles(t, fresh, [][]any{{int32(99), "Zed", "view", int64(0), "x"}})
			for _, later := range []string{
				// Refused as it is added: a summary property floe owns.
				`{"action": "append-files", "files": "` + appended + `", "snapshot-properties": {"floe.commit-token": "x"}}`,
				// Refused when the transaction builds.
				`{"action": "upgrade-format-version", "format-version": 1}`,
			} {
				before := rowstest.FilesUnder(t, dir)
				at := fresh.MetadataLocation
				_, err := commitTxJSON(t, fresh, `[{"action": "delete-rows", "filter": "id = 20", "delete-mode": "`+mode+`"}, `+later+`]`, txOptions{})
				if !errors.Is(err, errkind.InvalidArgument) {
					t.Fatalf("%s: %v", later, err)
				}
				if after := rowstest.FilesUnder(t, dir); !slices.Equal(after, before) {
					t.Fatalf("%s: a refused transaction left files: %v, was %v", later, after, before)
				}
				if fresh.MetadataLocation != at {
					t.Fatalf("%s: the table moved to %s", later, fresh.MetadataLocation)
				}
			}
			rowstest.CompareRows(t, "after the refused transactions", md.CurrentSchema(), want, txRows(t, reopenDir(t, dir)))
		})
	}
}

// writeTxFiles writes rows as data files of tbl and encodes them as an
// action's "files".
func writeTxFiles(t *testing.T, tbl *table.Table, rows [][]any) string {
	t.Helper()
	files, err := ops.WriteFiles(context.Background(), tbl, rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows))
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := writer.EncodeDataFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(encoded)
	return strings.Trim(string(b), `"`)
}

// overwrite-rows deletes what its filter selects and appends its files:
// two snapshots (a delete, an append) in one version; expire-snapshots in
// the same list then keeps only the newest.
func TestOverwriteRowsAndExpireActions(t *testing.T) {
	tbl, dir := txFixtureCopy(t, "impala_test_default_part")
	logBefore := len(tbl.Metadata.MetadataLog)
	files := writeTxFiles(t, tbl, [][]any{{int32(30), int32(5)}, {int32(31), nil}})
	now := time.Now().UnixMilli() + 1000
	res, err := commitTxJSON(t, tbl, `[
		{"action": "overwrite-rows", "filter": "j = 5 or j is null", "files": "`+files+`", "snapshot-properties": {"job": "fix"}},
		{"action": "expire-snapshots", "older-than-ms": `+strconvI(now)+`, "retain-last": 1, "keep-files": true}]`, txOptions{})
	if err != nil || len(res.SnapshotIDs) != 2 || res.Expire == nil {
		t.Fatalf("%+v %v", res, err)
	}
	fresh := reopenDir(t, dir)
	md := fresh.Metadata
	if got := len(md.MetadataLog) - logBefore; got != 1 {
		t.Fatalf("%d new versions", got)
	}
	if len(md.Snapshots) != 1 || *md.CurrentSnapshotID != res.SnapshotIDs[1] || md.CurrentSnapshot().Summary["job"] != "fix" {
		t.Fatalf("snapshots %v, current %v", md.Snapshots, md.CurrentSnapshotID)
	}
	if len(res.Expire.ExpiredSnapshots) != 4 {
		t.Errorf("expired %v, want the fixture's 3 and the delete", res.Expire.ExpiredSnapshots)
	}
	want := [][]any{{int32(1), int32(-1)}, {int32(2), int32(-1)}, {int32(4), int32(10)}, {int32(30), int32(5)}, {int32(31), nil}}
	rowstest.CompareRows(t, "after the overwrite", md.CurrentSchema(), want, txRows(t, fresh))
	if r := newTxResult(res, md); r.Expire == nil || len(r.Expire.ExpiredSnapshots) != 4 {
		t.Errorf("result JSON %+v", r.Expire)
	}
}

func strconvI(v int64) string { b, _ := json.Marshal(v); return string(b) }

// reopenDir opens the table in dir afresh (the copy's locations mapped).
func reopenDir(t *testing.T, dir string) *table.Table {
	t.Helper()
	tbl, err := table.Open(context.Background(), dir, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}
