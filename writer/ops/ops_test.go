package ops

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/writer"
)

// livePaths are the paths of the table's live data and delete files,
// relative to dir, sorted as filesUnderDir lists them.
func livePaths(t *testing.T, tbl *table.Table, dir string) []string {
	t.Helper()
	plan := liveFiles(t, reopened(t, tbl))
	var out []string
	add := func(p string) {
		rel, err := filepath.Rel(dir, strings.TrimPrefix(p, "file://"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rel)
	}
	for _, task := range plan.Tasks {
		add(task.Path)
	}
	for _, d := range plan.DeleteFiles {
		add(d.File.FilePath)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// A handle opened before another attempt committed the token does not see
// it: the operation writes its files, its commit finds the token, and the
// files go. Only the first attempt's files are under the data directory.
func TestTokenFoundRemovesTheFilesWritten(t *testing.T) {
	ctx := context.Background()
	ops := map[string]func(*table.Table, [][]any, table.CommitOptions) (Result, error){
		"append": func(tbl *table.Table, rows [][]any, opts table.CommitOptions) (Result, error) {
			return Append(ctx, tbl, rowsReader(t, tbl, rows), opts)
		},
		"replace partitions": func(tbl *table.Table, rows [][]any, opts table.CommitOptions) (Result, error) {
			return ReplacePartitions(ctx, tbl, rowsReader(t, tbl, rows), opts)
		},
		"overwrite": func(tbl *table.Table, rows [][]any, opts table.CommitOptions) (Result, error) {
			return Overwrite(ctx, tbl, expr.AlwaysTrue{}, rowsReader(t, tbl, rows), opts)
		},
		"overwrite rows": func(tbl *table.Table, rows [][]any, opts table.CommitOptions) (Result, error) {
			return OverwriteRows(ctx, tbl, pred(t, expr.OpLt, "id", int64(10)), rowsReader(t, tbl, rows), RowOptions{Commit: opts})
		},
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			tbl := newTable(t, 2, byBool, nil)
			appendInChunks(t, tbl, testtable.RandomRows(1, 50), 50)
			stale := reopened(t, tbl)
			opts := table.CommitOptions{Token: "step-1"}
			first, err := op(tbl, testtable.RandomRows(2, 20), opts)
			if err != nil || !first.Committed || first.TokenFound || len(first.Files) == 0 {
				t.Fatalf("first attempt: %+v, %v", first, err)
			}
			dataDir := writer.DataLocation(tbl.Metadata)
			before, live := filesUnderDir(t, dataDir), livePaths(t, tbl, dataDir)
			again, err := op(stale, testtable.RandomRows(3, 20), opts)
			if err != nil || again.Committed || !again.TokenFound || again.SnapshotID != first.SnapshotID || len(again.Files) != 0 {
				t.Fatalf("second attempt: %+v, %v; want the token found in snapshot %d", again, err, first.SnapshotID)
			}
			if after := filesUnderDir(t, dataDir); !slices.Equal(after, before) {
				t.Fatalf("the second attempt left files:\n%v\nbefore it:\n%v", after, before)
			}
			if now := livePaths(t, tbl, dataDir); !slices.Equal(now, live) {
				t.Fatalf("live files %v, after the first attempt %v", now, live)
			}
		})
	}
}

// failingIO fails the publication of metadata files. With unknown set,
// reading the file back fails too, so whether it was published cannot be
// known (table.ErrCommitStateUnknown); otherwise it is absent, and the
// commit failed for certain.
type failingIO struct {
	fileio.FileIO
	unknown bool
}

var errInjected = errors.New("injected: connection reset")

func (f failingIO) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	if strings.HasSuffix(path, ".metadata.json") {
		return errInjected
	}
	return f.FileIO.WriteFileIfAbsent(ctx, path, data)
}

func (f failingIO) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if strings.HasSuffix(path, ".metadata.json") && !strings.HasSuffix(path, "/v1.metadata.json") {
		if f.unknown {
			return nil, errInjected
		}
		return nil, fs.ErrNotExist
	}
	return f.FileIO.ReadFile(ctx, path)
}

// A commit that failed for certain removes the data files the operation
// wrote; one whose outcome is unknown keeps them, since the table may
// reference them.
func TestFailedCommitRemovesItsFilesUnlessTheOutcomeIsUnknown(t *testing.T) {
	ctx := context.Background()
	for _, unknown := range []bool{false, true} {
		tbl := newTable(t, 2, nil, nil)
		dataDir := writer.DataLocation(tbl.Metadata)
		tbl.IO = failingIO{FileIO: tbl.IO, unknown: unknown}
		_, err := Append(ctx, tbl, rowsReader(t, tbl, testtable.RandomRows(4, 30)), table.CommitOptions{})
		if err == nil || !errors.Is(err, errInjected) || errors.Is(err, table.ErrCommitStateUnknown) != unknown {
			t.Fatalf("unknown=%v: append gave %v", unknown, err)
		}
		left := filesUnderDir(t, dataDir)
		if unknown && len(left) == 0 {
			t.Errorf("an unknown outcome removed the data files the table may reference")
		}
		if !unknown && len(left) != 0 {
			t.Errorf("a failed commit left %v", left)
		}
	}
}

// Files given to AppendFiles (written elsewhere) stay whatever happens: a
// found token or a failed commit removes nothing.
func TestAppendFilesNeverDeletesTheFilesGiven(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, nil, nil)
	stale := reopened(t, tbl)
	opts := table.CommitOptions{Token: "load-1"}
	committed := writeTableFiles(t, tbl, testtable.RandomRows(5, 10))
	if res, err := AppendFiles(ctx, tbl, committed, opts); err != nil || !res.Committed || len(res.Files) != len(committed) {
		t.Fatalf("append files: %+v, %v", res, err)
	}
	given := writeTableFiles(t, tbl, testtable.RandomRows(6, 10))
	if res, err := AppendFiles(ctx, stale, given, opts); err != nil || !res.TokenFound {
		t.Fatalf("append files again with the token: %+v, %v", res, err)
	}
	failing := reopened(t, tbl)
	failing.IO = failingIO{FileIO: failing.IO}
	if _, err := AppendFiles(ctx, failing, given, table.CommitOptions{}); !errors.Is(err, errInjected) {
		t.Fatalf("append files through a failing store: %v", err)
	}
	if _, err := CommitFiles(ctx, failing, given, nil, table.CommitOptions{}); !errors.Is(err, errInjected) {
		t.Fatalf("commit files through a failing store: %v", err)
	}
	for _, f := range append(slices.Clone(committed), given...) {
		if ok, err := tbl.IO.Exists(ctx, f.FilePath); err != nil || !ok {
			t.Errorf("%s is gone (%v)", f.FilePath, err)
		}
	}
}

// WriteFiles places data files where the table's properties say.
func TestWriteFilesHonoursTheDataLocation(t *testing.T) {
	for _, key := range []string{"write.data.path", "write.folder-storage.path", ""} {
		elsewhere := filepath.Join(t.TempDir(), "files")
		props := map[string]string{}
		if key != "" {
			props[key] = elsewhere
		}
		tbl := newTable(t, 2, nil, props)
		want := elsewhere
		if key == "" {
			want = filepath.Join(tbl.Metadata.Location, "data")
		}
		files := writeTableFiles(t, tbl, testtable.RandomRows(7, 10))
		for _, f := range files {
			if !strings.HasPrefix(f.FilePath, want+"/") {
				t.Errorf("%q: %s is not under %s", key, f.FilePath, want)
			}
		}
		if got := filesUnderDir(t, want); len(got) != len(files) {
			t.Errorf("%q: %d files under %s, %d written", key, len(got), want, len(files))
		}
	}
}
