package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/pgtest"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/s3test"
	"github.com/floedb/floe/writer/ops"
)

var idSchema = catalogtest.IDSchema

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

func openCatalog(t testing.TB, dir string) *Catalog {
	t.Helper()
	return openURI(t, "sqlite:"+filepath.Join(dir, "catalog.db"), filepath.Join(dir, "warehouse"))
}

func openURI(t testing.TB, uri, warehouse string) *Catalog {
	t.Helper()
	c, err := Open(context.Background(), uri, map[string]string{PropWarehouse: warehouse}, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// onBoth runs a test on a SQLite catalog and on a PostgreSQL one; handle
// opens another connection to the same catalog, and dir is the directory
// its warehouse is in.
func onBoth(t *testing.T, test func(t *testing.T, handle func() *Catalog, dir string)) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		test(t, func() *Catalog { return openCatalog(t, dir) }, dir)
	})
	t.Run("postgresql", func(t *testing.T) {
		uri := pgtest.Shared(t).NewDatabase(t)
		dir := t.TempDir()
		test(t, func() *Catalog { return openURI(t, uri, filepath.Join(dir, "warehouse")) }, dir)
	})
}

func appendRows(t testing.TB, tbl *table.Table, rows [][]any, token string) ops.Result {
	t.Helper()
	return catalogtest.MustAppend(t, tbl, rows, token)
}

func ids(t testing.TB, tbl *table.Table) []int64 { return catalogtest.IDs(t, tbl) }

func TestCreateAppendLoad(t *testing.T) { onBoth(t, testCreateAppendLoad) }

func testCreateAppendLoad(t *testing.T, handle func() *Catalog, dir string) {
	ctx := context.Background()
	c := handle()
	id := catalog.Identifier{Namespace: []string{"db"}, Name: "events"}
	if _, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{}); !errors.Is(err, catalog.ErrNoSuchNamespace) {
		t.Fatalf("create in a missing namespace: %v", err)
	}
	if err := c.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{Properties: map[string]string{"owner": "floe"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.ToSlash(filepath.Join(dir, "warehouse", "db", "events")); tbl.Metadata.Location != want {
		t.Errorf("location %s, want %s", tbl.Metadata.Location, want)
	}
	if _, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{}); !errors.Is(err, catalog.ErrTableExists) {
		t.Fatalf("second create: %v", err)
	}
	// Another name at the same location would share its metadata directory.
	if err := c.CreateNamespace(ctx, []string{"db2"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, catalog.Identifier{Namespace: []string{"db2"}, Name: "events"}, idSchema, catalog.CreateOptions{Location: tbl.Metadata.Location}); !errors.Is(err, catalog.ErrTableExists) {
		t.Fatalf("a second table at %s: %v", tbl.Metadata.Location, err)
	}
	appendRows(t, tbl, [][]any{{int64(1), "a"}, {int64(2), "a"}}, "")
	appendRows(t, tbl, [][]any{{int64(3), "a"}}, "")

	// Another handle on the same database sees both commits: the row
	// points at the newest metadata file.
	other := handle()
	loaded, err := other.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(t, loaded); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("rows %v", got)
	}
	if n := len(loaded.Metadata.Snapshots); n != 2 {
		t.Errorf("%d snapshots", n)
	}
	if loaded.Metadata.Properties["owner"] != "floe" {
		t.Errorf("properties %v", loaded.Metadata.Properties)
	}
	var loc, prev string
	if err := c.db.QueryRowContext(ctx, `SELECT metadata_location, previous_metadata_location FROM iceberg_tables WHERE table_name = 'events'`).Scan(&loc, &prev); err != nil {
		t.Fatal(err)
	}
	if loc != loaded.MetadataLocation || !strings.HasSuffix(filepath.Base(loc), ".metadata.json") || !strings.HasPrefix(filepath.Base(loc), "00002-") || !strings.HasPrefix(filepath.Base(prev), "00001-") {
		t.Errorf("row points at %s (previous %s), the table was loaded from %s", loc, prev, loaded.MetadataLocation)
	}
	if len(loaded.Metadata.MetadataLog) != 2 {
		t.Errorf("metadata log %v", loaded.Metadata.MetadataLog)
	}
}

// A handle that fell behind loses the swap, refreshes through the
// catalog and commits on top: nothing is lost, and a token already
// committed is found again.
func TestStaleHandleRetries(t *testing.T) { onBoth(t, testStaleHandleRetries) }

func testStaleHandleRetries(t *testing.T, handle func() *Catalog, _ string) {
	ctx := context.Background()
	c := handle()
	id := catalog.Identifier{Namespace: []string{"db"}, Name: "t"}
	if err := c.CreateNamespace(ctx, []string{"db"}, map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	a, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	appendRows(t, a, [][]any{{int64(1), "a"}}, "tok-a")
	appendRows(t, b, [][]any{{int64(2), "b"}}, "tok-b") // b's base is stale
	if res := appendRows(t, b, [][]any{{int64(1), "a"}}, "tok-a"); !res.TokenFound {
		t.Errorf("the retried token was committed again: %+v", res)
	}
	fresh, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(t, fresh); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("rows %v", got)
	}
}

// Writers in parallel, each with its own connection, commit every append
// exactly once.
func TestConcurrentAppends(t *testing.T) { onBoth(t, testConcurrentAppends) }

func testConcurrentAppends(t *testing.T, handle func() *Catalog, _ string) {
	const writers, each = 4, 6
	ctx := context.Background()
	c := handle()
	id := catalog.Identifier{Namespace: []string{"db"}, Name: "t"}
	if err := c.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{Properties: map[string]string{"commit.retry.num-retries": "100", "commit.retry.min-wait-ms": "1", "commit.retry.max-wait-ms": "20"}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := handle()
			tbl, err := mine.LoadTable(ctx, id)
			if err != nil {
				errs <- err
				return
			}
			for i := range each {
				appendRows(t, tbl, [][]any{{int64(w*100 + i), fmt.Sprint(w)}}, "")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	tbl, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tbl.Metadata.Snapshots); n != writers*each {
		t.Errorf("%d snapshots, want %d", n, writers*each)
	}
	if got := ids(t, tbl); len(got) != writers*each || len(slices.Compact(slices.Clone(got))) != writers*each {
		t.Errorf("rows %v", got)
	}
}

func TestNamespacesAndTables(t *testing.T) { onBoth(t, testNamespacesAndTables) }

func testNamespacesAndTables(t *testing.T, handle func() *Catalog, _ string) {
	ctx := context.Background()
	c := handle()
	for _, ns := range [][]string{{"a"}, {"a", "b"}, {"c"}} {
		if err := c.CreateNamespace(ctx, ns, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.CreateNamespace(ctx, []string{"a"}, nil); !errors.Is(err, catalog.ErrNamespaceExists) {
		t.Errorf("second create: %v", err)
	}
	top, err := c.ListNamespaces(ctx, nil)
	if err != nil || len(top) != 2 {
		t.Fatalf("top namespaces %v (%v)", top, err)
	}
	if below, err := c.ListNamespaces(ctx, []string{"a"}); err != nil || len(below) != 1 || catalog.JoinNamespace(below[0]) != "a.b" {
		t.Fatalf("below a: %v (%v)", below, err)
	}
	if err := c.UpdateNamespaceProperties(ctx, []string{"c"}, nil, map[string]string{"owner": "me", "x": "1"}); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateNamespaceProperties(ctx, []string{"c"}, []string{"x"}, nil); err != nil {
		t.Fatal(err)
	}
	if props, err := c.NamespaceProperties(ctx, []string{"c"}); err != nil || len(props) != 1 || props["owner"] != "me" {
		t.Errorf("properties %v (%v)", props, err)
	}
	if _, err := c.NamespaceProperties(ctx, []string{"nope"}); errkind.Of(err) != errkind.NotFound {
		t.Errorf("properties of a missing namespace: %v", err)
	}

	ab := catalog.Identifier{Namespace: []string{"a", "b"}, Name: "t1"}
	if _, err := c.CreateTable(ctx, ab, idSchema, catalog.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.DropNamespace(ctx, []string{"a", "b"}); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
		t.Errorf("dropping a namespace with a table: %v", err)
	}
	if err := c.DropNamespace(ctx, []string{"a"}); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
		t.Errorf("dropping a namespace with a namespace: %v", err)
	}
	if list, err := c.ListTables(ctx, []string{"a", "b"}); err != nil || len(list) != 1 || list[0].String() != "a.b.t1" {
		t.Errorf("tables %v (%v)", list, err)
	}
	moved := catalog.Identifier{Namespace: []string{"c"}, Name: "t2"}
	if err := c.RenameTable(ctx, ab, catalog.Identifier{Namespace: []string{"zz"}, Name: "t"}); !errors.Is(err, catalog.ErrNoSuchNamespace) {
		t.Errorf("rename into a missing namespace: %v", err)
	}
	if err := c.RenameTable(ctx, ab, moved); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.TableExists(ctx, ab); ok {
		t.Error("the old name still exists")
	}
	tbl, err := c.LoadTable(ctx, moved)
	if err != nil {
		t.Fatal(err)
	}
	appendRows(t, tbl, [][]any{{int64(7), "x"}}, "") // commits under the new name
	if err := c.DropTable(ctx, moved, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.LoadTable(ctx, moved); !errors.Is(err, catalog.ErrNoSuchTable) || errkind.Of(err) != errkind.NotFound {
		t.Errorf("load after drop: %v", err)
	}
	// The dropped table's files are still there: register adopts them,
	// at the version the append left (the handle moved with its commit).
	back, err := c.RegisterTable(ctx, catalog.Identifier{Namespace: []string{"c"}, Name: "again"}, tbl.MetadataLocation)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(t, back); !slices.Equal(got, []int64{7}) {
		t.Errorf("the registered table shows rows %v", got)
	}
	// Drop with purge: the name is gone and so are the table's files.
	files := livePaths(t, back)
	if err := c.DropTable(ctx, catalog.Identifier{Namespace: []string{"c"}, Name: "again"}, true); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(files, back.MetadataLocation) {
		if ok, err := back.IO.Exists(ctx, p); ok || err != nil {
			t.Errorf("%s is left after a purge (%v)", p, err)
		}
	}
	if err := c.DropNamespace(ctx, []string{"a", "b"}); err != nil {
		t.Errorf("drop the emptied namespace: %v", err)
	}
}

// A catalog made with the older schema, without iceberg_type, opens, and
// floe's rows fit it.
func TestOlderSchemaWithoutType(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := dbsql.Open("sqlite", "file:"+filepath.Join(dir, "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL,
		table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000),
		PRIMARY KEY (catalog_name, table_namespace, table_name))`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	c := openCatalog(t, dir)
	if c.typed {
		t.Fatal("the older schema was taken for the newer")
	}
	id := catalog.Identifier{Namespace: []string{"db"}, Name: "t"}
	if err := c.CreateNamespace(ctx, id.Namespace, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	appendRows(t, tbl, [][]any{{int64(1), "a"}}, "")
	if list, err := c.ListTables(ctx, id.Namespace); err != nil || len(list) != 1 {
		t.Errorf("tables %v (%v)", list, err)
	}
}

// A PostgreSQL catalog that cannot be reached says so, without the
// password its URI holds.
func TestUnreachablePostgresHidesPassword(t *testing.T) {
	_, err := Open(context.Background(), "postgresql://postgres:hunter2@127.0.0.1:1/db?connect_timeout=2", map[string]string{PropWarehouse: t.TempDir()}, table.Options{})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("open: %v", err)
	}
}

func TestOpenRefusesOtherURIs(t *testing.T) {
	for _, uri := range []string{"postgresql://u:secret@h/db", "sqlite://host/x.db", "sqlite:", "mysql:x"} {
		_, err := Open(context.Background(), uri, nil, table.Options{})
		if errkind.Of(err) != errkind.InvalidArgument || strings.Contains(fmt.Sprint(err), "secret") {
			t.Errorf("%s: %v", uri, err)
		}
	}
}

// The swap itself refuses a stale base (the commit loop's lock and
// refresh usually spare it the attempt): the row is left alone and the
// attempt's metadata file removed.
func TestPublishRefusesStaleBase(t *testing.T) { onBoth(t, testPublishRefusesStaleBase) }

func testPublishRefusesStaleBase(t *testing.T, handle func() *Catalog, _ string) {
	ctx := context.Background()
	c := handle()
	id := catalog.Identifier{Namespace: []string{"db"}, Name: "t"}
	if err := c.CreateNamespace(ctx, id.Namespace, nil); err != nil {
		t.Fatal(err)
	}
	stale, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	current, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := current.SetProperties(ctx, map[string]string{"a": "1"}, nil); err != nil {
		t.Fatal(err)
	}
	changes := metadata.Edit(stale.Metadata)
	if err := changes.Apply(metadata.SetProperties{Updates: map[string]string{"b": "2"}}); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(filepath.FromSlash(stale.Metadata.Location), "metadata", "*.metadata.json"))
	_, err = stale.Publisher.Publish(ctx, stale, changes)
	if !errors.Is(err, table.ErrStale) || errkind.Of(err) != errkind.Conflict {
		t.Fatalf("publish on a stale base: %v", err)
	}
	after, _ := filepath.Glob(filepath.Join(filepath.FromSlash(stale.Metadata.Location), "metadata", "*.metadata.json"))
	if len(after) != len(before) {
		t.Errorf("metadata files %d before, %d after the refused attempt", len(before), len(after))
	}
	loaded, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.MetadataLocation != current.MetadataLocation || loaded.Metadata.Properties["b"] != "" {
		t.Errorf("the refused commit moved the table to %s", loaded.MetadataLocation)
	}
	// Through the commit loop the same stale handle refreshes and commits.
	if err := stale.SetProperties(ctx, map[string]string{"b": "2"}, nil); err != nil {
		t.Fatal(err)
	}
	if p := stale.Metadata.Properties; p["a"] != "1" || p["b"] != "2" {
		t.Errorf("properties %v", p)
	}
}

// Two writers replacing one partition from the same version, through the
// catalog: the first wins, the second fails with a conflict and commits
// nothing, and its files are gone.
func TestReplacePartitionsConflict(t *testing.T) { onBoth(t, testReplacePartitionsConflict) }

func testReplacePartitionsConflict(t *testing.T, handle func() *Catalog, _ string) {
	ctx := context.Background()
	c := handle()
	id := catalog.Identifier{Namespace: []string{"db"}, Name: "t"}
	if err := c.CreateNamespace(ctx, id.Namespace, nil); err != nil {
		t.Fatal(err)
	}
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 2, FieldID: 1000, Name: "writer", Transform: iceberg.IdentityTransform{}}}}
	tbl, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	appendRows(t, tbl, [][]any{{int64(1), "p"}, {int64(2), "q"}}, "")
	first, err := handle().LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	second, err := handle().LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	replace := func(tbl *table.Table, rows [][]any) (ops.Result, error) {
		rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows)
		defer rr.Release()
		return ops.ReplacePartitions(ctx, tbl, rr, table.CommitOptions{})
	}
	if _, err := replace(first, [][]any{{int64(10), "p"}}); err != nil {
		t.Fatal(err)
	}
	res, err := replace(second, [][]any{{int64(20), "p"}})
	if !errors.Is(err, table.ErrConflict) {
		t.Fatalf("the second replace of partition p: %+v, %v", res, err)
	}
	final, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(t, final); !slices.Equal(got, []int64{2, 10}) {
		t.Errorf("rows %v, want the first replace's and partition q's", got)
	}
	// On disk: the first append's two files and the winner's; the loser
	// removed its own.
	var files []string
	_ = filepath.WalkDir(filepath.Join(filepath.FromSlash(final.Metadata.Location), "data"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 3 {
		t.Errorf("%d data files on disk, want 3: %v", len(files), files)
	}
}

// livePaths are the data files of tbl's current snapshot.
func livePaths(t testing.TB, tbl *table.Table) []string {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range plan.Tasks {
		out = append(out, task.File.FilePath)
	}
	if len(out) == 0 {
		t.Fatal("the table has no data files")
	}
	return out
}

// A catalog's s3.* properties reach its tables' files: a SQLite catalog
// with its warehouse in S3 (versitygw) and no S3 options but properties.
func TestS3PropertiesConfigureTables(t *testing.T) {
	srv := s3test.Start(t)
	dir := t.TempDir()
	props := map[string]string{
		PropWarehouse:          srv.Location("wh"),
		"s3.endpoint":          srv.Endpoint,
		"s3.region":            srv.Region,
		"s3.access-key-id":     srv.AccessKey,
		"s3.secret-access-key": srv.SecretKey,
		"s3.path-style-access": "true",
	}
	c, err := Open(context.Background(), "sqlite:"+filepath.Join(dir, "c.db"), props, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{Namespace: []string{"db"}, Name: "t"}
	tbl, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	appendRows(t, tbl, [][]any{{int64(5), "s3"}}, "")
	again, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(again.Metadata.Location, "s3://") {
		t.Fatalf("location %s", again.Metadata.Location)
	}
	if got := ids(t, again); !slices.Equal(got, []int64{5}) {
		t.Fatalf("rows %v", got)
	}
}
