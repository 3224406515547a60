package sql

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/crashtest"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/writer"
)

// crashEnv hands the child process its job: "<catalog URI>|<warehouse>|<data dir>|<step>".
const crashEnv = "FLOE_SQL_CATALOG_CRASH_AT"

const crashToken = "crash-1"

var crashID = catalog.Identifier{Namespace: []string{"db"}, Name: "t"}

// A process appending through the catalog is killed (SIGKILL) at each step
// of its commit: after writing its data files, its manifests, its manifest
// list, its metadata file (the row not yet swapped), and after the swap.
// Whatever the step, the table loads through the catalog and plans a
// snapshot whose files all exist, and retrying with the same token leaves
// the rows in the table exactly once.
func TestCrashAtEachCatalogCommitStep(t *testing.T) { onBoth(t, testCrashAtEachCatalogCommitStep) }

func testCrashAtEachCatalogCommitStep(t *testing.T, handle func() *Catalog, dir string) {
	ctx := context.Background()
	c := handle()
	if err := c.CreateNamespace(ctx, crashID.Namespace, nil); err != nil {
		t.Fatal(err)
	}
	for i, step := range []string{"data", "manifests", "manifest-list", "metadata-file", "published"} {
		t.Run(step, func(t *testing.T) {
			id := catalog.Identifier{Namespace: crashID.Namespace, Name: fmt.Sprintf("t%d", i)}
			tbl, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			appendRows(t, tbl, [][]any{{int64(1), "base"}}, "")
			dataDir := t.TempDir()
			crashtest.RunKilled(t, "TestCrashChild", fmt.Sprintf("%s=%s|%s|%s|%s", crashEnv, c.uri, c.warehouse, dataDir, step), "FLOE_CRASH_TABLE="+id.Name)

			after, err := handle().LoadTable(ctx, id)
			if err != nil {
				t.Fatalf("load after a crash at %s: %v", step, err)
			}
			plan, err := after.PlanFiles(ctx, table.SnapshotSelector{})
			if err != nil {
				t.Fatalf("plan after a crash at %s: %v", step, err)
			}
			for _, task := range plan.Tasks {
				if _, err := os.Stat(filepath.FromSlash(task.Path)); err != nil {
					t.Fatalf("crash at %s: the table lists missing file %s", step, task.Path)
				}
			}
			committed := step == "published"
			if n := len(after.Metadata.Snapshots); n != 1 && !committed || n != 2 && committed {
				t.Fatalf("crash at %s: %d snapshots", step, n)
			}

			// The retry, with the files the killed process wrote.
			encoded, err := os.ReadFile(filepath.Join(dataDir, "files.bin"))
			if err != nil {
				t.Fatal(err)
			}
			added, err := writer.DecodeDataFiles(encoded)
			if err != nil {
				t.Fatal(err)
			}
			res, err := after.Append(ctx, added, table.CommitOptions{Token: crashToken})
			if err != nil {
				t.Fatal(err)
			}
			if res.TokenFound != committed {
				t.Fatalf("crash at %s: the retry found the token: %v, want %v", step, res.TokenFound, committed)
			}
			final, err := handle().LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(t, final); !slices.Equal(got, []int64{1, 2, 3}) {
				t.Fatalf("crash at %s: rows %v after the retry", step, got)
			}
		})
	}
}

// TestCrashChild is the process TestCrashAtEachCatalogCommitStep kills.
func TestCrashChild(t *testing.T) {
	job := os.Getenv(crashEnv)
	if job == "" {
		t.Skip("run by TestCrashAtEachCatalogCommitStep")
	}
	parts := strings.SplitN(job, "|", 4)
	uri, warehouse, dataDir, step := parts[0], parts[1], parts[2], parts[3]
	ctx := context.Background()
	c := openURI(t, uri, warehouse)
	tbl, err := c.LoadTable(ctx, catalog.Identifier{Namespace: crashID.Namespace, Name: os.Getenv("FLOE_CRASH_TABLE")})
	if err != nil {
		t.Fatal(err)
	}
	w, err := writer.New(ctx, tbl.IO, dataDir, tbl.Metadata.CurrentSchema(), nil, writer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	rec := rowstest.BuildRecord(t, tbl.Metadata.CurrentSchema(), [][]any{{int64(2), "child"}, {int64(3), "child"}})
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := writer.EncodeDataFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "files.bin"), encoded, 0o644); err != nil {
		t.Fatal(err)
	}
	if step == "data" {
		crashtest.Kill()
	}
	crashtest.KillAt(step)
	if _, err := tbl.Append(ctx, files, table.CommitOptions{Token: crashToken}); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("the commit passed step %s without stopping", step)
}
