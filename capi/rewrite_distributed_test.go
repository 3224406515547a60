package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/committest"
	"github.com/floedb/floe/internal/maintenance"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/maintain"
	"github.com/floedb/floe/writer/ops"
)

// compactionTable is a v2 table floe wrote, partitioned by identity(b):
// 12 appends of 50 rows (a small file per partition each), rows with
// id < 60 deleted by position and id 100..119 by equality in the
// partition b = true. Built the same way each time, so two copies
// compacted two ways can be compared.
func compactionTable(t *testing.T) *table.Table {
	t.Helper()
	ctx := context.Background()
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: testtable.IDBool, FieldID: 1000, Name: "b", Transform: iceberg.IdentityTransform{}},
	}}
	tbl := rowstest.NewTable(t, 2, spec, nil)
	rows := testtable.RandomRows(11, 600)
	for i := range rows {
		rows[i][0] = int64(i)
	}
	for start := 0; start < len(rows); start += 50 {
		rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows[start:start+50])
		_, err := ops.Append(ctx, tbl, rr, table.CommitOptions{})
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	del := func(f expr.Expr) {
		if _, err := ops.DeleteRows(ctx, tbl, f, ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
			t.Fatal(err)
		}
	}
	del(rowstest.Pred(t, expr.OpLt, "id", int64(60)))
	del(rowstest.Pred(t, expr.OpEq, "id", int64(300)))
	eqPath := tbl.Metadata.Location + "/data/eq-true.parquet"
	ids := make([]int64, 20)
	for i := range ids {
		ids[i] = int64(100 + i)
	}
	if err := os.MkdirAll(tbl.Metadata.Location+"/data", 0o755); err != nil {
		t.Fatal(err)
	}
	eq, err := committest.WriteEqualityDeletes(eqPath, 0, []any{true}, testtable.IDID, "id", ids)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{eq}, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	return tbl
}

// distributedCompaction runs the three calls as floe.dask does: plan on
// the client, each group on its own handle of the plan's metadata file
// (as a worker opens it), one commit on the client's handle.
func distributedCompaction(t *testing.T, th *tableHandle, options, commitOptions string) (map[string]any, [][]byte) {
	t.Helper()
	planJSON, err := rewritePlan(th, []byte(options))
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		StartingSnapshotID int64             `json:"starting_snapshot_id"`
		Groups             []json.RawMessage `json:"groups"`
	}
	if err := json.Unmarshal(planJSON, &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Groups) == 0 {
		t.Fatalf("no group planned: %s", planJSON)
	}
	results := groupResults(t, th, plan.Groups)
	out, err := rewriteCommit(th, joinResults(results), []byte(commitOptions))
	if err != nil {
		t.Fatal(err)
	}
	return decodeNumbers(t, out), results
}

func groupResults(t *testing.T, th *tableHandle, groups []json.RawMessage) [][]byte {
	t.Helper()
	var out [][]byte
	for _, g := range groups {
		worker := &tableHandle{table: reopenMetadata(t, th.current().MetadataLocation)}
		r, err := rewriteGroup(worker, g, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func joinResults(results [][]byte) []byte {
	parts := make([]string, len(results))
	for i, r := range results {
		parts[i] = string(r)
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

func reopenMetadata(t *testing.T, location string) *table.Table {
	t.Helper()
	tbl, err := table.Open(context.Background(), location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func liveDataFiles(t *testing.T, tbl *table.Table) (data int, deletes map[string]bool) {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	deletes = map[string]bool{}
	for _, dt := range plan.Tasks {
		for _, d := range dt.Deletes {
			deletes[d.File.FilePath] = true
		}
	}
	return len(plan.Tasks), deletes
}

// The distributed calls compact as maintain.RewriteDataFiles does on the
// same table: the same rows, the same number of files rewritten, added
// and left, the same delete files dropped, one snapshot; the handle holds
// it after.
func TestRewriteDistributedEqualsRewriteDataFiles(t *testing.T) {
	ctx := context.Background()
	const options = `{"min_input_files": 2}`
	local := compactionTable(t)
	th := &tableHandle{table: compactionTable(t)}
	want := txRows(t, local)
	// 61 rows deleted by position, some of 100..119 (those in b = true)
	// by equality.
	if len(want) >= 600-61 || len(want) < 600-61-20 {
		t.Fatalf("%d rows before", len(want))
	}
	before, _ := liveDataFiles(t, th.current())
	snapshotsBefore := len(th.current().Metadata.Snapshots)

	opts, _, err := maintenance.ParseRewriteDataFilesOptions([]byte(options))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := maintain.RewriteDataFiles(ctx, local, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := distributedCompaction(t, th, options, "")

	got := txRows(t, th.current())
	rowstest.CompareRows(t, "distributed compaction", th.current().Metadata.CurrentSchema(), want, got)
	rowstest.CompareRows(t, "local compaction", local.Metadata.CurrentSchema(), want, txRows(t, local))
	if num := int(jsonInt(res["rewritten_data_files_count"])); num != ref.RewrittenDataFiles || num != before {
		t.Errorf("rewritten %d files, RewriteDataFiles %d, the table had %d", num, ref.RewrittenDataFiles, before)
	}
	if num := int(jsonInt(res["added_data_files_count"])); num != ref.AddedDataFiles || num != 3 {
		t.Errorf("added %d files, RewriteDataFiles %d; want one per partition (3)", num, ref.AddedDataFiles)
	}
	removed := res["removed_delete_files"].([]any)
	if len(removed) != ref.RemovedDeleteFiles || len(removed) == 0 {
		t.Errorf("removed delete files %v, RewriteDataFiles %d", removed, ref.RemovedDeleteFiles)
	}
	after, deletes := liveDataFiles(t, th.current())
	localAfter, localDeletes := liveDataFiles(t, local)
	if after != localAfter || after != 3 || len(deletes) != 0 || len(localDeletes) != 0 {
		t.Errorf("after: %d data files (local %d), delete files %v (local %v)", after, localAfter, deletes, localDeletes)
	}
	cur := th.current().Metadata
	if len(cur.Snapshots) != snapshotsBefore+1 || jsonInt(res["snapshot_id"]) != *cur.CurrentSnapshotID ||
		cur.CurrentSnapshot().Summary["operation"] != "replace" {
		t.Errorf("snapshots %d (before %d), result %v, current %d", len(cur.Snapshots), snapshotsBefore, res["snapshot_id"], *cur.CurrentSnapshotID)
	}
	if reopened := reopenMetadata(t, cur.Location); *reopened.Metadata.CurrentSnapshotID != *cur.CurrentSnapshotID {
		t.Errorf("the table's newest version is snapshot %d, the handle holds %d", *reopened.Metadata.CurrentSnapshotID, *cur.CurrentSnapshotID)
	}
}

// A delete committed while the workers rewrote a group's file fails the
// commit as a conflict, the table unchanged; with discard_refused the
// workers' files are gone too. floe_rewrite_discard deletes files no
// commit took.
func TestRewriteDistributedConflictAndDiscard(t *testing.T) {
	ctx := context.Background()
	th := &tableHandle{table: compactionTable(t)}
	planJSON, err := rewritePlan(th, []byte(`{"min_input_files": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Groups []json.RawMessage `json:"groups"`
	}
	if err := json.Unmarshal(planJSON, &plan); err != nil {
		t.Fatal(err)
	}
	results := groupResults(t, th, plan.Groups)
	written := writtenPaths(t, results)
	if len(written) != 3 {
		t.Fatalf("written %v", written)
	}

	other := reopenMetadata(t, th.current().Metadata.Location)
	if _, err := ops.DeleteRows(ctx, other, rowstest.Pred(t, expr.OpEq, "id", int64(500)), ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
		t.Fatal(err)
	}
	_, err = rewriteCommit(th, joinResults(results), []byte(`{"discard_refused": true}`))
	if !errors.Is(err, errkind.Conflict) {
		t.Fatalf("commit after a concurrent delete: %v; want a conflict", err)
	}
	if head := reopenMetadata(t, other.Metadata.Location); *head.Metadata.CurrentSnapshotID != *other.Metadata.CurrentSnapshotID {
		t.Errorf("the refused commit changed the table")
	}
	for _, p := range written {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s after a refused commit with discard_refused: %v", p, err)
		}
	}

	// Again on the newer version: rewritten, then given up.
	th = &tableHandle{table: reopenMetadata(t, other.Metadata.Location)}
	planJSON, err = rewritePlan(th, []byte(`{"min_input_files": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(planJSON, &plan); err != nil {
		t.Fatal(err)
	}
	results = groupResults(t, th, plan.Groups)
	written = writtenPaths(t, results)
	if err := rewriteDiscard(th, joinResults(results)); err != nil {
		t.Fatal(err)
	}
	for _, p := range written {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s after floe_rewrite_discard: %v", p, err)
		}
	}
}

// A token makes a resubmitted job commit nothing: the second commit finds
// it, and its workers' files go with discard_refused.
func TestRewriteDistributedToken(t *testing.T) {
	th := &tableHandle{table: compactionTable(t)}
	first, _ := distributedCompaction(t, th, `{"min_input_files": 2, "rewrite_all": true}`, `{"token": "nightly"}`)
	if first["token_found"] != false {
		t.Fatalf("first commit %v", first)
	}
	// The same job resubmitted, planned on the version it started from.
	again := &tableHandle{table: reopenMetadata(t, th.current().Metadata.Location)}
	planJSON, err := rewritePlan(again, []byte(`{"min_input_files": 2, "rewrite_all": true}`))
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Groups []json.RawMessage `json:"groups"`
	}
	if err := json.Unmarshal(planJSON, &plan); err != nil {
		t.Fatal(err)
	}
	results := groupResults(t, again, plan.Groups)
	written := writtenPaths(t, results)
	out, err := rewriteCommit(again, joinResults(results), []byte(`{"token": "nightly", "discard_refused": true}`))
	if err != nil {
		t.Fatal(err)
	}
	res := decodeNumbers(t, out)
	if res["token_found"] != true || res["snapshot_id"] != first["snapshot_id"] || jsonInt(res["added_data_files_count"]) != 0 {
		t.Errorf("resubmitted commit %v; first %v", res, first)
	}
	for _, p := range written {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s after the token was found: %v", p, err)
		}
	}
}

// Bad input is refused as INVALID_ARGUMENT naming what is wrong.
func TestRewriteDistributedRefuses(t *testing.T) {
	th := &tableHandle{table: compactionTable(t)}
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"plan option", func() error { _, err := rewritePlan(th, []byte(`{"min_input_file": 2}`)); return err }, `did you mean "min_input_files"`},
		{"group options", func() error { _, err := rewriteGroup(th, []byte(`{}`), []byte(`{"timeout": 1}`)); return err }, "timeout"},
		{"empty group", func() error { _, err := rewriteGroup(th, []byte(`{"id": 4}`), nil); return err }, "file group 4 has no data file"},
		{"group not JSON", func() error { _, err := rewriteGroup(th, []byte(`{"id": `), nil); return err }, "not valid JSON"},
		{"results object", func() error { _, err := rewriteCommit(th, []byte(`{"group_id": 1}`), nil); return err }, "JSON array"},
		{"no results", func() error { _, err := rewriteCommit(th, []byte(`[]`), nil); return err }, "no group result"},
		{"commit option", func() error { _, err := rewriteCommit(th, []byte(`[]`), []byte(`{"discard": true}`)); return err }, "discard"},
	} {
		err := c.call()
		if err == nil || classify(err, statusInternal) != statusInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want INVALID_ARGUMENT saying %q", c.name, err, c.want)
		}
	}
}

func writtenPaths(t *testing.T, results [][]byte) []string {
	t.Helper()
	var out []string
	for _, r := range results {
		var g maintain.GroupResult
		if err := json.Unmarshal(r, &g); err != nil {
			t.Fatal(err)
		}
		for _, f := range g.Added {
			if _, err := os.Stat(f.FilePath); err != nil {
				t.Fatalf("written file %s: %v", f.FilePath, err)
			}
			out = append(out, f.FilePath)
		}
	}
	return out
}

// decodeNumbers decodes a result object keeping its numbers exact
// (snapshot ids need all 64 bits).
func decodeNumbers(t *testing.T, data []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var res map[string]any
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return res
}

func jsonInt(v any) int64 {
	n, _ := v.(json.Number).Int64()
	return n
}

// With partial_progress each commit of a run's groups takes the run's
// token and a hash of the files it replaces: groups commit one by one,
// and a group's commit retried finds its token and commits nothing.
func TestRewriteDistributedPartialProgressTokens(t *testing.T) {
	th := &tableHandle{table: compactionTable(t)}
	planJSON, err := rewritePlan(th, []byte(`{"min_input_files": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Groups []json.RawMessage `json:"groups"`
	}
	if err := json.Unmarshal(planJSON, &plan); err != nil {
		t.Fatal(err)
	}
	planned := th.current().MetadataLocation
	results := groupResults(t, th, plan.Groups)
	if len(results) != 3 {
		t.Fatalf("%d groups", len(results))
	}
	const opts = `{"token": "run-1", "partial_progress": true}`
	var ids []int64
	for _, r := range results {
		out, err := rewriteCommit(th, joinResults([][]byte{r}), []byte(opts))
		if err != nil {
			t.Fatal(err)
		}
		res := decodeNumbers(t, out)
		if res["token_found"] != false {
			t.Fatalf("partial commit %v", res)
		}
		ids = append(ids, jsonInt(res["snapshot_id"]))
	}
	snaps := th.current().Metadata.Snapshots
	if len(ids) != 3 || ids[0] == ids[1] || ids[1] == ids[2] {
		t.Fatalf("snapshots %v", ids)
	}
	// The same token given for two different commits was not taken as
	// one: each carries its own.
	tokens := map[string]bool{}
	for _, s := range snaps[len(snaps)-3:] {
		tokens[s.Summary[table.SummaryToken]] = true
	}
	if len(tokens) != 3 || tokens[""] || tokens["run-1"] {
		t.Errorf("tokens of the partial commits: %v", tokens)
	}
	// The first group's commit again (a retry after an unknown outcome).
	worker := &tableHandle{table: reopenMetadata(t, planned)}
	retried := groupResults(t, worker, plan.Groups[:1])
	written := writtenPaths(t, retried)
	out, err := rewriteCommit(th, joinResults(retried), []byte(`{"token": "run-1", "partial_progress": true, "discard_refused": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if res := decodeNumbers(t, out); res["token_found"] != true || jsonInt(res["snapshot_id"]) != ids[0] {
		t.Errorf("retried group commit %v; want the token of snapshot %d found", res, ids[0])
	}
	for _, p := range written {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s after the token was found: %v", p, err)
		}
	}
}
