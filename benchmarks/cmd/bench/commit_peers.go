package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	goiceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// commitTable is one peer's table taking small commits.
type commitTable interface {
	// appendBatch writes the n-th batch as a new data file and commits it.
	appendBatch(ctx context.Context, n int) error
	// appendFile commits the n-th pre-written data file.
	appendFile(ctx context.Context, n int) error
	// state inspects the current snapshot through the peer's own reader
	// (untimed), so a commit that lost files cannot pass as a fast one.
	state(ctx context.Context) (tableState, error)
	// plan is the peer's planning of a full scan from the table's current
	// metadata file, as a fresh reader would do it.
	plan() func() (checksum, error)
	close()
}

type tableState struct {
	Files            int
	Rows             int64
	Manifests        int
	MetadataBytes    int64
	MetadataLocation string
}

func newCommitTable(ctx context.Context, peer, dir string, merge bool, fx *commitFixture) (commitTable, error) {
	switch peer {
	case "floe":
		return newFloeCommitTable(ctx, dir, merge, fx)
	case "iceberg-go":
		return newIcebergGoCommitTable(ctx, dir, merge, fx)
	}
	return nil, fmt.Errorf("unknown peer %q", peer)
}

// floe: table.Create on the local file system, Append per commit.

type floeCommitTable struct {
	tbl *table.Table
	fx  *commitFixture
}

func newFloeCommitTable(ctx context.Context, dir string, merge bool, fx *commitFixture) (*floeCommitTable, error) {
	props := map[string]string{}
	if !merge {
		props[table.PropManifestMergeEnabled] = "false"
	}
	tbl, err := table.Create(ctx, fileio.Local{}, dir, commitSchema(), nil, nil, props, 2)
	if err != nil {
		return nil, err
	}
	return &floeCommitTable{tbl: tbl, fx: fx}, nil
}

func (f *floeCommitTable) appendBatch(ctx context.Context, n int) error {
	files, err := writeBatch(ctx, f.tbl.IO, fileio.JoinPath(f.tbl.Metadata.Location, "data"), f.tbl.Metadata.CurrentSchema(), f.fx.batches[n])
	if err != nil {
		return err
	}
	_, err = f.tbl.Append(ctx, files, table.CommitOptions{})
	return err
}

func (f *floeCommitTable) appendFile(ctx context.Context, n int) error {
	_, err := f.tbl.Append(ctx, []manifest.DataFile{f.fx.staged[n]}, table.CommitOptions{})
	return err
}

func (f *floeCommitTable) state(ctx context.Context) (tableState, error) {
	t, err := table.Open(ctx, f.tbl.MetadataLocation, table.Options{})
	if err != nil {
		return tableState{}, err
	}
	plan, err := t.PlanFiles(ctx, table.SnapshotSelector{})
	if err != nil {
		return tableState{}, err
	}
	size, err := fileSize(f.tbl.MetadataLocation)
	if err != nil {
		return tableState{}, err
	}
	return tableState{Files: len(plan.Tasks), Rows: plan.RecordCount(), Manifests: plan.ManifestsRead,
		MetadataBytes: size, MetadataLocation: f.tbl.MetadataLocation}, nil
}

// plan opens the table and plans a scan of every column through the
// reader's entry point, scan.New, on one thread.
func (f *floeCommitTable) plan() func() (checksum, error) {
	location := f.tbl.MetadataLocation
	return func() (checksum, error) {
		ctx := context.Background()
		t, err := table.Open(ctx, location, table.Options{})
		if err != nil {
			return checksum{}, err
		}
		sc, err := scan.New(ctx, t, scan.Options{Threads: 1})
		if err != nil {
			return checksum{}, err
		}
		return checksum{Rows: int64(len(sc.Tasks()))}, nil
	}
}

func (f *floeCommitTable) close() {}

// iceberg-go: its Hadoop (file system) catalog on the local disk, one
// transaction per commit.

type icebergGoCommitTable struct {
	cat *hadoop.Catalog
	tbl *icebergtable.Table
	fx  *commitFixture
}

func newIcebergGoCommitTable(ctx context.Context, dir string, merge bool, fx *commitFixture) (*icebergGoCommitTable, error) {
	cat, err := hadoop.NewCatalog("bench", dir, goiceberg.Properties{})
	if err != nil {
		return nil, err
	}
	if err := cat.CreateNamespace(ctx, icebergtable.Identifier{"bench"}, nil); err != nil {
		cat.Close()
		return nil, err
	}
	schema, err := icebergGoCommitSchema()
	if err != nil {
		cat.Close()
		return nil, err
	}
	// iceberg-go's merging is off by default: set it both ways.
	props := goiceberg.Properties{"format-version": "2", table.PropManifestMergeEnabled: strconv.FormatBool(merge)}
	tbl, err := cat.CreateTable(ctx, icebergtable.Identifier{"bench", "commits"}, schema, catalog.WithProperties(props))
	if err != nil {
		cat.Close()
		return nil, err
	}
	return &icebergGoCommitTable{cat: cat, tbl: tbl, fx: fx}, nil
}

func (g *icebergGoCommitTable) appendBatch(ctx context.Context, n int) error {
	tx := g.tbl.NewTransaction()
	if err := tx.AppendTable(ctx, g.fx.tables[n], commitRows, nil); err != nil {
		return err
	}
	tbl, err := tx.Commit(ctx)
	if err != nil {
		return err
	}
	g.tbl = tbl
	return nil
}

// appendFile skips AddDataFiles' scan of the whole table for duplicates:
// floe's Append does not make that check, and it would make each commit
// read every manifest.
func (g *icebergGoCommitTable) appendFile(ctx context.Context, n int) error {
	tx := g.tbl.NewTransaction()
	if err := tx.AddDataFiles(ctx, []goiceberg.DataFile{g.fx.stagedGo[n]}, nil, icebergtable.WithoutDuplicateCheck()); err != nil {
		return err
	}
	tbl, err := tx.Commit(ctx)
	if err != nil {
		return err
	}
	g.tbl = tbl
	return nil
}

func (g *icebergGoCommitTable) state(ctx context.Context) (tableState, error) {
	location := g.tbl.MetadataLocation()
	t, err := icebergtable.NewFromLocation(ctx, g.tbl.Identifier(), location, icebergio.LoadFSFunc(nil, location), nil)
	if err != nil {
		return tableState{}, err
	}
	tasks, err := t.Scan(icebergtable.WithMaxConcurrency(1)).PlanFiles(ctx)
	if err != nil {
		return tableState{}, err
	}
	st := tableState{Files: len(tasks), MetadataLocation: location}
	for _, task := range tasks {
		st.Rows += task.File.Count()
	}
	if snap := t.CurrentSnapshot(); snap != nil {
		fs, err := t.FS(ctx)
		if err != nil {
			return tableState{}, err
		}
		manifests, err := snap.Manifests(fs)
		if err != nil {
			return tableState{}, err
		}
		st.Manifests = len(manifests)
	}
	if st.MetadataBytes, err = fileSize(location); err != nil {
		return tableState{}, err
	}
	return st, nil
}

// plan loads the table from its metadata file and plans a full scan with
// a concurrency of 1, as the scan benchmarks run it.
func (g *icebergGoCommitTable) plan() func() (checksum, error) {
	location, ident := g.tbl.MetadataLocation(), g.tbl.Identifier()
	return func() (checksum, error) {
		ctx := context.Background()
		t, err := icebergtable.NewFromLocation(ctx, ident, location, icebergio.LoadFSFunc(nil, location), nil)
		if err != nil {
			return checksum{}, err
		}
		tasks, err := t.Scan(icebergtable.WithMaxConcurrency(1)).PlanFiles(ctx)
		if err != nil {
			return checksum{}, err
		}
		return checksum{Rows: int64(len(tasks))}, nil
	}
}

func (g *icebergGoCommitTable) close() { g.cat.Close() }

// fileSize stats a local path or file:// URI.
func fileSize(location string) (int64, error) {
	info, err := os.Stat(filepath.FromSlash(strings.TrimPrefix(location, "file://")))
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}
