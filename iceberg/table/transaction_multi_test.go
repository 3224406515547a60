package table

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// memCatalog is a catalog for the multi-table loop's tests: each table's
// current metadata file is a pointer in memory, swapped all at once under
// a lock. stale, when set, makes the next publishes fail as lost races.
type memCatalog struct {
	mu       sync.Mutex
	current  map[string]string // table location → metadata file
	stale    int
	attempts int
}

func (c *memCatalog) adopt(t *Table) *Table {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil {
		c.current = map[string]string{}
	}
	c.current[t.Metadata.Location] = t.MetadataLocation
	t.Publisher = c
	return t
}

func (c *memCatalog) Publish(ctx context.Context, base *Table, changes *metadata.Changes) (*Table, error) {
	out, err := c.PublishTables(ctx, []*Table{base}, []*metadata.Changes{changes})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (c *memCatalog) Refresh(ctx context.Context, t *Table) (*Table, error) {
	c.mu.Lock()
	loc := c.current[t.Metadata.Location]
	c.mu.Unlock()
	return Load(ctx, t.IO, loc, c)
}

func (c *memCatalog) PublishTables(ctx context.Context, bases []*Table, changes []*metadata.Changes) ([]*Table, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempts++
	if c.stale > 0 {
		c.stale--
		return nil, ErrStale
	}
	for _, b := range bases {
		if c.current[b.Metadata.Location] != b.MetadataLocation {
			return nil, ErrStale
		}
	}
	out := make([]*Table, len(bases))
	for i, b := range bases {
		md, err := NextMetadata(b, changes[i])
		if err != nil {
			return nil, err
		}
		data, err := md.MarshalJSON()
		if err != nil {
			return nil, err
		}
		path := MetadataFilePath(md.Location, MetadataVersion(b.MetadataLocation)+1)
		if err := b.IO.WriteFile(ctx, path, data); err != nil {
			return nil, err
		}
		out[i] = &Table{Metadata: md, MetadataLocation: path, IO: b.IO, Publisher: c}
	}
	for i, b := range bases {
		c.current[b.Metadata.Location] = out[i].MetadataLocation
	}
	return out, nil
}

func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Path tables are refused before anything is built; so are a table given
// twice, a transaction already committed and no transaction at all.
func TestCommitTransactionsRefuses(t *testing.T) {
	ctx := context.Background()
	a := createTable(t, 2, nil, nil)
	b := createTable(t, 2, nil, nil)
	txA, txB := a.Transaction(), b.Transaction()
	if err := txA.Append(writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 10), 10), CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	txB.SetProperties(map[string]string{"k": "v"}, nil)
	before := filesUnder(t, a.Metadata.Location)
	cat := &memCatalog{}
	if _, err := CommitTransactions(ctx, cat, txA, txB); !errors.Is(err, errkind.Unsupported) {
		t.Fatalf("path tables: %v, want UNSUPPORTED", err)
	}
	if got := filesUnder(t, a.Metadata.Location); !slices.Equal(got, before) {
		t.Errorf("a refused transaction wrote %v", got)
	}
	if cat.attempts != 0 {
		t.Errorf("a refused transaction was published")
	}

	cat.adopt(a)
	cat.adopt(b)
	twice := reopen(t, a)
	cat.adopt(twice)
	if _, err := CommitTransactions(ctx, cat, a.Transaction().SetProperties(map[string]string{"x": "1"}, nil), twice.Transaction()); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("one table twice: %v", err)
	}
	if _, err := CommitTransactions(ctx, cat); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("nothing: %v", err)
	}
	done := b.Transaction().SetProperties(map[string]string{"y": "1"}, nil)
	if _, err := done.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := CommitTransactions(ctx, cat, done); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("a committed transaction again: %v", err)
	}
}

// Lost races are retried on refreshed versions up to the tables' fewest
// commit.retry.num-retries; past them the commit is a conflict, nothing
// is published and the manifests the attempts wrote are deleted. A
// transaction with nothing to change is left out of the publish and
// reports Committed false.
func TestCommitTransactionsRetries(t *testing.T) {
	ctx := context.Background()
	cat := &memCatalog{}
	a := cat.adopt(createTable(t, 2, nil, map[string]string{PropCommitNumRetries: "1", PropCommitMinWaitMs: "1", PropCommitMaxWaitMs: "2"}))
	b := cat.adopt(createTable(t, 2, nil, map[string]string{PropCommitNumRetries: "5", PropCommitMinWaitMs: "1", PropCommitMaxWaitMs: "2"}))
	beforeA, beforeB := filesUnder(t, a.Metadata.Location), filesUnder(t, b.Metadata.Location)
	data := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 10), 10)
	txA := a.Transaction()
	if err := txA.Append(data, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	txB := b.Transaction().SetProperties(map[string]string{"k": "v"}, nil)
	cat.stale = 10
	_, err := CommitTransactions(ctx, cat, txA, txB)
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("every attempt lost: %v, want a conflict", err)
	}
	if cat.attempts != 2 {
		t.Errorf("%d attempts, want 2 (a's one retry)", cat.attempts)
	}
	if got := filesUnder(t, a.Metadata.Location); !slices.Equal(got, beforeA) {
		t.Errorf("a's files after the conflict: %v, before %v", got, beforeA)
	}
	if got := filesUnder(t, b.Metadata.Location); !slices.Equal(got, beforeB) {
		t.Errorf("b's files after the conflict: %v, before %v", got, beforeB)
	}

	// One lost race, then both land; b's second transaction changes
	// nothing and is left out.
	cat.stale, cat.attempts = 1, 0
	txA = a.Transaction()
	if err := txA.Append(data, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	txB = b.Transaction().SetProperties(map[string]string{PropCommitNumRetries: "5"}, nil)
	res, err := CommitTransactions(ctx, cat, txA, txB)
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].Committed || res[1].Committed || len(res[0].SnapshotIDs) != 1 {
		t.Fatalf("results %+v", res)
	}
	if cat.attempts != 2 {
		t.Errorf("%d attempts, want 2", cat.attempts)
	}
	if got := livePaths(t, a); !slices.Equal(got, multiSortedPaths(data)) {
		t.Errorf("a holds %v", got)
	}
	if a.MetadataLocation != cat.current[a.Metadata.Location] {
		t.Errorf("a was not moved to its committed version")
	}
}

func multiSortedPaths(files []manifest.DataFile) []string {
	out := pathsOf(files)
	slices.Sort(out)
	return out
}
