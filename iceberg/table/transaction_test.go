package table

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
)

// addColumnAction adds an optional long column at the end of the current
// schema: a schema change, so its updates require the current schema and
// last column id they were built on.
type addColumnAction struct{ name string }

func (addColumnAction) Name() string { return "test-add-column" }

func (a addColumnAction) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	cur := md.CurrentSchema()
	id := 0
	for _, s := range md.Schemas {
		id = max(id, s.ID+1)
	}
	fields := append(append([]iceberg.NestedField(nil), cur.Fields...),
		iceberg.NestedField{ID: md.LastColumnID + 1, Name: a.name, Type: iceberg.LongType{}})
	return []metadata.Update{metadata.AddSchema{Schema: iceberg.NewSchema(id, fields, cur.IdentifierFieldIDs...)}, metadata.SetCurrentSchema{SchemaID: -1}}, nil
}

// metadataFiles counts the table's metadata JSON files: one per version.
func metadataFiles(t *testing.T, tbl *Table) int {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(tbl.Metadata.Location, "metadata", "*.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	return len(names)
}

// metadataDirFiles lists every file in the table's metadata directory.
func metadataDirFiles(t *testing.T, tbl *Table) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(tbl.Metadata.Location, "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() != commitLockName {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestTransactionIsOneVersion(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	before := metadataFiles(t, tbl)
	first := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10)
	second := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 10), 10)

	tx := tbl.Transaction()
	tx.SetProperties(map[string]string{"owner": "etl"}, nil)
	tx.Add(addColumnAction{name: "extra"})
	if err := tx.Append(first, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Append(second, CommitOptions{Properties: map[string]string{"step": "2"}}); err != nil {
		t.Fatal(err)
	}
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := metadataFiles(t, tbl); got != before+1 {
		t.Fatalf("%d metadata versions after one transaction, want %d", got, before+1)
	}
	fresh := reopen(t, tbl)
	md := fresh.Metadata
	if !res.Committed || len(res.SnapshotIDs) != 2 || res.MetadataLocation != fresh.MetadataLocation {
		t.Fatalf("result %+v, table at %s", res, fresh.MetadataLocation)
	}
	if md.Properties["owner"] != "etl" {
		t.Fatalf("properties %v", md.Properties)
	}
	if _, ok := md.CurrentSchema().FindFieldByName("extra"); !ok {
		t.Fatalf("schema %s lacks the added column", md.CurrentSchema())
	}
	// The second snapshot is the first's child and main's head; both were
	// written under the schema the transaction made current.
	s1, s2 := md.SnapshotByID(res.SnapshotIDs[0]), md.SnapshotByID(res.SnapshotIDs[1])
	if s1 == nil || s2 == nil || s2.ParentSnapshotID == nil || *s2.ParentSnapshotID != s1.SnapshotID || *md.CurrentSnapshotID != s2.SnapshotID {
		t.Fatalf("snapshots %+v %+v, current %v", s1, s2, md.CurrentSnapshotID)
	}
	if *s1.SchemaID != md.CurrentSchemaID || *s2.SchemaID != md.CurrentSchemaID || s2.Summary["step"] != "2" {
		t.Fatalf("snapshot schemas %d %d (current %d), summary %v", *s1.SchemaID, *s2.SchemaID, md.CurrentSchemaID, s2.Summary)
	}
	if got, want := livePaths(t, fresh), pathsOf(append(append(first[:0:0], first...), second...)); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("live files %v, want %v", got, want)
	}
	if _, err := tx.Commit(ctx); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a second commit of one transaction: %v", err)
	}
}

// Two schema changes from one base: the second finds the schema it was
// built on replaced and commits nothing; a property change from the same
// stale base depends on nothing and is rebuilt.
func TestTransactionConflictsWhenItsBaseChanged(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	a, b, c := reopen(t, tbl), reopen(t, tbl), reopen(t, tbl)
	if _, err := a.Apply(ctx, addColumnAction{name: "from_a"}); err != nil {
		t.Fatal(err)
	}
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 0, 5), 5)
	before, listed := metadataFiles(t, tbl), metadataDirFiles(t, tbl)
	txb := b.Transaction().Add(addColumnAction{name: "from_b"})
	if err := txb.Append(files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := txb.Commit(ctx)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "changed since the transaction began") {
		t.Fatalf("second schema change from a stale base: %v", err)
	}
	if got := metadataFiles(t, tbl); got != before {
		t.Fatalf("a refused transaction committed: %d versions, had %d", got, before)
	}
	if got := metadataDirFiles(t, tbl); strings.Join(got, ",") != strings.Join(listed, ",") {
		t.Fatalf("a refused transaction left files: %v, had %v", got, listed)
	}
	if _, err := c.Apply(ctx, action.SetProperties{Set: map[string]string{"k": "v"}}); err != nil {
		t.Fatalf("a change that depends on nothing, from a stale base: %v", err)
	}
	md := reopen(t, tbl).Metadata
	if _, ok := md.CurrentSchema().FindFieldByName("from_a"); !ok || md.Properties["k"] != "v" {
		t.Fatalf("schema %s, properties %v", md.CurrentSchema(), md.Properties)
	}
	if _, ok := md.CurrentSchema().FindFieldByName("from_b"); ok {
		t.Fatal("the refused change is in the schema")
	}
}

func TestTransactionToken(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	run := func(files int64) (TransactionResult, error) {
		tx := tbl.TransactionWith(TransactionOptions{Token: "step-7"})
		tx.Add(action.SetProperties{Set: map[string]string{"run": "7"}})
		if err := tx.Append(writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(uint64(files), files*100, 5), 5), CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		return tx.Commit(ctx)
	}
	first, err := run(1)
	if err != nil || !first.Committed {
		t.Fatalf("%+v %v", first, err)
	}
	versions := metadataFiles(t, tbl)
	again, err := run(2)
	if err != nil || again.Committed || !again.TokenFound || again.SnapshotIDs[0] != first.SnapshotIDs[0] {
		t.Fatalf("a retried token: %+v %v", again, err)
	}
	if got := metadataFiles(t, tbl); got != versions {
		t.Fatalf("a retried token committed a version")
	}
	// A token needs a snapshot to be recorded in.
	_, err = tbl.TransactionWith(TransactionOptions{Token: "t"}).Add(action.SetProperties{Set: map[string]string{"a": "b"}}).Commit(ctx)
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a token with no snapshot: %v", err)
	}
	// Steps may not carry another token.
	tx := tbl.TransactionWith(TransactionOptions{Token: "x"})
	if err := tx.Append(nil, CommitOptions{Token: "y"}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a step with its own token: %v", err)
	}
}

// A step that fails while the transaction builds leaves nothing behind:
// the manifests an earlier step wrote are deleted.
func TestTransactionFailureLeavesNoFiles(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	listed := metadataDirFiles(t, tbl)
	tx := tbl.Transaction()
	if err := tx.Append(writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(4, 0, 5), 5), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tx.Add(action.UpgradeFormatVersion{FormatVersion: 1})
	_, err := tx.Commit(ctx)
	if !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), "upgrade-format-version") {
		t.Fatalf("a downgrade in a transaction: %v", err)
	}
	if got := metadataDirFiles(t, tbl); strings.Join(got, ",") != strings.Join(listed, ",") {
		t.Fatalf("a failed transaction left %v, had %v", got, listed)
	}
}

func TestUpgradeFormatVersionAction(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 1, nil, nil)
	if _, err := tbl.Append(ctx, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(5, 0, 5), 5), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []int{2, 3} {
		if _, err := tbl.Apply(ctx, action.UpgradeFormatVersion{FormatVersion: v}); err != nil {
			t.Fatal(err)
		}
		if got := reopen(t, tbl).Metadata.FormatVersion; got != v {
			t.Fatalf("format version %d, want %d", got, v)
		}
	}
	// v3: the next append gets row ids.
	res, err := tbl.Append(ctx, writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(6, 10, 5), 5), CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The rows from before the upgrade get their ids with the new ones.
	if md := reopen(t, tbl).Metadata; md.NextRowID != 10 || *md.SnapshotByID(res.SnapshotID).AddedRows != 10 {
		t.Fatalf("v3 next-row-id %d, snapshot %+v", md.NextRowID, md.SnapshotByID(res.SnapshotID))
	}
	if len(livePaths(t, reopen(t, tbl))) != 2 {
		t.Fatal("files lost across upgrades")
	}
	if _, err := tbl.Apply(ctx, action.UpgradeFormatVersion{FormatVersion: 4}); !errors.Is(err, errkind.Unsupported) {
		t.Fatalf("v4: %v", err)
	}
}

// The tokens expiry keeps can be neither set nor removed by a property
// change: removing them would let a retried token commit again.
func TestExpiredTokensPropertyIsProtected(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, map[string]string{PropExpiredTokens: "[]"})
	for _, tx := range []*Transaction{
		tbl.Transaction().SetProperties(nil, []string{PropExpiredTokens}),
		tbl.Transaction().SetProperties(map[string]string{PropExpiredTokens: "[]"}, nil),
	} {
		if _, err := tx.Commit(ctx); !errors.Is(err, errkind.InvalidArgument) {
			t.Fatalf("a change of %s: %v", PropExpiredTokens, err)
		}
	}
	if _, ok := reopen(t, tbl).Metadata.Properties[PropExpiredTokens]; !ok {
		t.Fatal("the expired tokens were removed")
	}
}
