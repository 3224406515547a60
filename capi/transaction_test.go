package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer"
	"github.com/floedb/floe/writer/ops"
)

func TestParseTxActionsRefusesWhatItCannotRead(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, "none given"},
		{`[]`, "empty"},
		{`{"action": "set-properties"}`, "JSON array"},
		{`[{"updates": {}}]`, `action 0: no "action" name`},
		{`[{"action": "set-properties", "updates": {"a": "b"}}, {"action": "set-propertys"}]`, `action 1: unknown action "set-propertys" (did you mean "set-properties"?)`},
		{`[{"action": "set-properties", "updates": {"a": "b"}, "removals": ["c"]}]`, `action 0 (set-properties): json: unknown field "removals"`},
		{`[{"action": "set-properties"}]`, `action 0 (set-properties): no "updates"`},
		{`[{"action": "upgrade-format-version"}]`, `no "format-version"`},
		{`[{"action": "add-column", "path": "x"}]`, `action 0 (add-column): no "type" for column "x"`},
		{`[{"action": "add-column", "path": "x", "type": "lung"}]`, `type "lung"`},
		{`[{"action": "add-column", "path": "x", "type": "int", "initial-default": "seven"}]`, `initial-default "seven" is not a int`},
		{`[{"action": "add-column", "path": "x", "type": "int", "first": true, "after": "i"}]`, "at most one"},
		{`[{"action": "move-column", "path": "x"}]`, "give one of"},
		{`[{"action": "update-column", "path": "x"}]`, `give "type", "doc" or "required"`},
		{`[{"action": "update-column", "path": "x", "type": {"type": "list", "element-id": 9, "element": "int", "element-required": false}}]`, "only a primitive type"},
		{`[{"action": "rename-column", "path": ["a", "b"]}]`, `give "path" (the column) and "new-name"`},
		{`[{"action": "delete-column", "path": 3}]`, "a column path is a dotted name or an array of names"},
		{`[{"action": "set-identifier-fields"}]`, `no "fields"`},
		{`[{"action": "add-partition-field", "source": "i", "transform": "bucket"}]`, `transform "bucket" is not one floe knows`},
		{`[{"action": "remove-partition-field", "name": "a", "source": "i"}]`, `give "name" (the partition field), or "source" and "transform"`},
		{`[{"action": "replace-sort-order", "fields": [{"source": "i", "direction": "up"}]}]`, `field 0 ("i"): direction must be`},
		{`[{"action": "create-tag", "name": "t", "min-snapshots-to-keep": 2}]`, `"min-snapshots-to-keep" does not apply to create-tag`},
		{`[{"action": "create-branch"}]`, `no "name"`},
		{`[{"action": "replace-branch", "name": "b", "snapshot-id": 1, "ref": "main"}]`, `give one of "snapshot-id" and "ref"`},
		{`[{"action": "replace-tag", "name": "t"}]`, `no "snapshot-id"`},
		{`[{"action": "rollback-to-timestamp", "timestamp": 5}]`, `unknown field "timestamp"`},
		{`[{"action": "fast-forward", "branch": "main"}]`, `give "branch"`},
		{`[{"action": "append-files"}]`, `no "files"`},
		{`[{"action": "append-files", "files": "AAAA"}]`, "action 0 (append-files): files:"},
		{`[{"action": "overwrite-files", "files": "AAAA"}]`, `no "filter"`},
		{`[{"action": "overwrite-files", "filter": "i <"}]`, "filter:"},
		{`[{"action": "commit-files"}]`, "nothing to commit"},
		{`[{"action": "delete-files", "removed": [""]}]`, "an empty path"},
		{`[{"action": "cherry-pick"}]`, `no "snapshot-id"`},
	}
	for _, c := range cases {
		_, err := parseTxActions([]byte(c.in))
		if err == nil {
			t.Errorf("%s: parsed", c.in)
			continue
		}
		if classify(err, statusInternal) != statusInvalidArgument {
			t.Errorf("%s: status %d, want INVALID_ARGUMENT: %v", c.in, classify(err, statusInternal), err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to say %q", c.in, err, c.want)
		}
	}
}

// Consecutive actions of one kind are one builder (one new schema, one
// spec, one ref change); anything between them starts another.
func TestParseTxActionsGroupsConsecutiveChanges(t *testing.T) {
	actions, err := parseTxActions([]byte(`[
		{"action": "add-column", "path": "a", "type": "int"},
		{"action": "rename-column", "path": "i", "new-name": "id"},
		{"action": "set-properties", "updates": {"k": "v"}},
		{"action": "delete-column", "path": "a"},
		{"action": "add-partition-field", "source": "i", "transform": "bucket[4]"},
		{"action": "remove-partition-field", "name": "j"},
		{"action": "replace-sort-order", "fields": []},
		{"action": "replace-sort-order", "fields": [{"source": ["i"]}]},
		{"action": "create-tag", "name": "t"},
		{"action": "rollback-to-snapshot", "snapshot-id": 1},
		{"action": "cherry-pick", "snapshot-id": 2}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range actions.steps {
		name := "snapshot"
		if s.act != nil {
			name = s.act.Name()
		}
		names = append(names, name)
	}
	want := "update-schema set-properties update-schema update-spec update-sort-order update-sort-order manage-snapshots snapshot"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("steps %s, want %s", got, want)
	}
}

// txFixtureCopy copies a fixture table into a temporary directory and opens
// the copy.
func txFixtureCopy(t *testing.T, name string) (*table.Table, string) {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dir, os.DirFS(fx.Dir)); err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), dir, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tbl, dir
}

// Spark's v1 table upgraded to v2 and given identifier fields (which need
// v2) in one version, with a column merged in by name and a doc set: the
// steps apply in order, each on what the ones before produced.
func TestCommitTxActionsInOrderOnSparksTable(t *testing.T) {
	tbl, dir := txFixtureCopy(t, "impala_iceberg_partitioned")
	before := len(tbl.Metadata.MetadataLog)
	actions, err := parseTxActions([]byte(`[
		{"action": "upgrade-format-version", "format-version": 2},
		{"action": "union-by-name", "schema": {"type": "struct", "fields": [
			{"id": 1, "name": "user", "required": true, "type": "string"},
			{"id": 7, "name": "action", "required": true, "type": "string"},
			{"id": 8, "name": "event_time", "required": true, "type": "timestamptz"},
			{"id": 2, "name": "device", "required": false, "type": {"type": "struct", "fields": [
				{"id": 3, "name": "os", "required": false, "type": "string"}]}}]}},
		{"action": "update-column", "path": "id", "doc": "the event"},
		{"action": "set-identifier-fields", "fields": ["user", ["action"]]},
		{"action": "set-properties", "updates": {"owner": "capi"}}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := commitTxActions(context.Background(), tbl, actions, txOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || len(res.SnapshotIDs) != 0 || res.MetadataLocation != tbl.MetadataLocation {
		t.Errorf("result %+v, table at %s", res, tbl.MetadataLocation)
	}
	again, err := table.Open(context.Background(), dir, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := again.Metadata
	if md.FormatVersion != 2 || md.Properties["owner"] != "capi" || len(md.MetadataLog) != before+1 {
		t.Errorf("format %d, properties %v, metadata log %d (was %d)", md.FormatVersion, md.Properties, len(md.MetadataLog), before)
	}
	s := md.CurrentSchema()
	if f, ok := s.FindFieldByName("device.os"); !ok || f.Required {
		t.Errorf("device.os: %+v %v", f, ok)
	}
	if f, _ := s.FindFieldByName("id"); f.Doc != "the event" {
		t.Errorf("id doc %q", f.Doc)
	}
	var ids []string
	for _, id := range s.IdentifierFieldIDs {
		f, _ := s.FindField(id)
		ids = append(ids, f.Name)
	}
	if strings.Join(ids, ",") != "user,action" {
		t.Errorf("identifier fields %v", ids)
	}
	got := newTxResult(res, md)
	if got.CurrentSchemaID != md.CurrentSchemaID || got.FormatVersion != 2 || got.Refs["main"].Type != "branch" {
		t.Errorf("result JSON form %+v", got)
	}
}

// A preview holds the schema the earlier actions make and never commits.
func TestPreviewMetadataAndItsRefusal(t *testing.T) {
	tbl, _ := txFixtureCopy(t, "impala_test_default_part")
	actions, err := parseTxActions([]byte(`[{"action": "add-column", "path": "k", "type": "long", "initial-default": 7},
		{"action": "append-files", "files": ""}]`))
	if err == nil {
		t.Fatal("an append-files with empty files parsed")
	}
	actions, err = parseTxActions([]byte(`[{"action": "add-column", "path": "k", "type": "long", "initial-default": 7},
		{"action": "add-partition-field", "source": "k", "transform": "truncate[10]"}]`))
	if err != nil {
		t.Fatal(err)
	}
	md, err := previewMetadata(tbl.Metadata, actions)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := md.CurrentSchema().FindFieldByName("k"); !ok || len(md.DefaultSpec().Fields) != 2 {
		t.Errorf("preview schema %v, spec %v", md.CurrentSchema(), md.DefaultSpec())
	}
	if _, ok := tbl.Metadata.CurrentSchema().FindFieldByName("k"); ok {
		t.Error("the preview changed the table's own metadata")
	}
	preview := *tbl
	preview.Metadata, preview.Publisher = md, previewPublisher{}
	_, err = preview.Apply(context.Background(), nil)
	if err == nil {
		t.Fatal("a nil action committed")
	}
	res, err := preview.Transaction().SetProperties(map[string]string{"a": "b"}, nil).Commit(context.Background())
	if !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), "preview") {
		t.Errorf("commit through a preview: %+v, %v", res, err)
	}
	bad, _ := parseTxActions([]byte(`[{"action": "rename-column", "path": "nope", "new-name": "x"}]`))
	if _, err := previewMetadata(tbl.Metadata, bad); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("preview of a refused change: %v", err)
	}
}

// FuzzTxActions: whatever action list a host passes is parsed or refused
// as an invalid argument, and a parsed one builds on a real table's
// metadata or is refused with an error of a known kind; never a panic.
func FuzzTxActions(f *testing.F) {
	for _, seed := range []string{
		`[{"action": "add-column", "path": "k", "type": "long", "initial-default": 7, "after": "i"}]`,
		`[{"action": "rename-column", "path": ["i"], "new-name": "id"}, {"action": "move-column", "path": "j", "first": true}]`,
		`[{"action": "update-column", "path": "i", "type": "long", "doc": "d", "required": false}]`,
		`[{"action": "union-by-name", "schema": {"type": "struct", "fields": [{"id": 5, "name": "m", "required": false, "type": {"type": "map", "key-id": 6, "key": "string", "value-id": 7, "value": "int", "value-required": false}}]}}]`,
		`[{"action": "set-identifier-fields", "fields": []}, {"action": "delete-column", "path": "i"}]`,
		`[{"action": "add-partition-field", "source": "i", "transform": "truncate[3]"}, {"action": "remove-partition-field", "name": "j"}]`,
		`[{"action": "replace-sort-order", "fields": [{"source": "j", "direction": "desc", "null-order": "nulls-first"}]}]`,
		`[{"action": "create-branch", "name": "b", "max-snapshot-age-ms": 5}, {"action": "fast-forward", "branch": "main", "to": "b"}]`,
		`[{"action": "rollback-to-timestamp", "timestamp-ms": 1}, {"action": "set-current-snapshot", "ref": "main"}]`,
		`[{"action": "upgrade-format-version", "format-version": 3}, {"action": "remove-properties", "removals": ["x"]}]`,
		`[{"action": "set-properties", "updates": {"": "v"}}]`, `[{}]`, `[`, `[1]`, `null`,
	} {
		f.Add(seed)
	}
	fx, err := fixtures.Get("impala_test_default_part")
	if err != nil {
		f.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		actions, err := parseTxActions([]byte(in))
		if err != nil {
			if got := classify(err, statusInternal); got != statusInvalidArgument {
				t.Fatalf("%q: status %d (%v)", in, got, err)
			}
			return
		}
		if _, err := previewMetadata(tbl.Metadata, actions); err != nil && classify(err, statusInternal) == statusInternal {
			t.Fatalf("%q: an error of no kind: %v", in, err)
		}
	})
}

// With discard_refused, the files of a transaction refused before or at
// its commit are deleted, and the table is as it was.
func TestDiscardRefusedDeletesTheFiles(t *testing.T) {
	tbl, dir := txFixtureCopy(t, "impala_test_default_part")
	before := tbl.MetadataLocation
	rows := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), [][]any{{int32(6), int32(1)}})
	files, err := ops.WriteFiles(context.Background(), tbl, rows)
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := writer.EncodeDataFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	// The entry names the file as the table's metadata spells its
	// location; the copy's location map says where it is.
	local := strings.TrimPrefix(tbl.Locations.Apply(files[0].FilePath), "file://")
	exists := func() bool { _, err := os.Stat(local); return err == nil }
	if !strings.HasPrefix(local, dir) || !exists() {
		t.Fatalf("written %s (%s), not under %s", files[0].FilePath, local, dir)
	}
	list, _ := json.Marshal([]any{
		map[string]any{"action": "append-files", "files": encoded},
		// Refused as it is added, before any commit attempt.
		map[string]any{"action": "cherry-pick", "snapshot-id": 42, "snapshot-properties": map[string]string{"": "x"}},
	})
	actions, err := parseTxActions(list)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := commitTxActions(context.Background(), tbl, actions, txOptions{}); err == nil {
		t.Fatal("a cherry-pick of a missing snapshot committed")
	}
	if !exists() {
		t.Fatal("without discard_refused the files went")
	}
	actions, _ = parseTxActions(list)
	if _, err := commitTxActions(context.Background(), tbl, actions, txOptions{DiscardRefused: true}); err == nil || !strings.Contains(err.Error(), "42") {
		t.Fatalf("refusal %v, want it to name snapshot 42", err)
	}
	if exists() {
		t.Error("discard_refused left the files of a refused transaction")
	}
	if tbl.MetadataLocation != before {
		t.Errorf("the table moved to %s", tbl.MetadataLocation)
	}
}
