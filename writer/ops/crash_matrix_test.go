package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/crashtest"
	"github.com/floedb/floe/internal/testtable"
)

// The crash matrix: every operation that commits or deletes files, killed
// (SIGKILL) at every step of its commit. After each kill the table opens
// and reads as it was before or as the operation leaves it, never
// something between; every file any snapshot references exists; and the
// operation retried with the same token commits once.

const crashMatrixEnv = "FLOE_OPS_CRASH_AT" // "<op>|<table location>|<step>"

const crashMatrixToken = "crash-1"

// crashOps are the operations: each runs against the table the matrix
// sets up (crashBaseRows, appended in three commits) with the token.
var crashOps = map[string]func(ctx context.Context, t testing.TB, tbl *table.Table) (Result, error){
	"append": func(ctx context.Context, t testing.TB, tbl *table.Table) (Result, error) {
		rr := rowsReader(t, tbl, crashNewRows())
		defer rr.Release()
		return Append(ctx, tbl, rr, table.CommitOptions{Token: crashMatrixToken})
	},
	"replace-partitions": func(ctx context.Context, t testing.TB, tbl *table.Table) (Result, error) {
		rr := rowsReader(t, tbl, crashNewRows())
		defer rr.Release()
		return ReplacePartitions(ctx, tbl, rr, table.CommitOptions{Token: crashMatrixToken})
	},
	"overwrite": func(ctx context.Context, t testing.TB, tbl *table.Table) (Result, error) {
		rr := rowsReader(t, tbl, crashNewRows())
		defer rr.Release()
		return OverwriteRows(ctx, tbl, crashFilter(t), rr, RowOptions{Commit: table.CommitOptions{Token: crashMatrixToken}})
	},
	"delete-copy-on-write": func(ctx context.Context, t testing.TB, tbl *table.Table) (Result, error) {
		return DeleteRows(ctx, tbl, crashFilter(t), RowOptions{Mode: CopyOnWrite, Commit: table.CommitOptions{Token: crashMatrixToken}})
	},
	"delete-merge-on-read": func(ctx context.Context, t testing.TB, tbl *table.Table) (Result, error) {
		return DeleteRows(ctx, tbl, crashFilter(t), RowOptions{Mode: MergeOnRead, Commit: table.CommitOptions{Token: crashMatrixToken}})
	},
	"expire": func(ctx context.Context, t testing.TB, tbl *table.Table) (Result, error) {
		retain, now := 1, int64(1)<<62
		res, err := tbl.ExpireSnapshots(ctx, &now, &retain, table.ExpireOptions{})
		return Result{}, func() error {
			if err == nil && len(res.ExpiredSnapshots) == 0 && len(tbl.Metadata.Snapshots) > 1 {
				return errors.New("expired nothing")
			}
			return err
		}()
	},
}

// The steps each operation passes: the commit loop's, and expiry's
// deletions after its commit.
var crashSteps = map[string][]string{
	"expire": {"published", "hint", "expire-delete"},
}

var commitSteps = []string{"manifests", "manifest-list", "published", "hint"}

func crashBaseRows() [][]any { return testtable.RandomRows(41, 120) }

func crashNewRows() [][]any {
	rows := testtable.RandomRows(42, 30)
	for i := range rows {
		rows[i][0] = int64(10_000 + i)
	}
	return rows
}

var crashDeleted = []int64{3, 4, 50, 119}

func crashFilter(t testing.TB) expr.Expr {
	filter, _ := ids(t, crashDeleted...)
	return filter
}

// crashWant is the table's rows once the operation is done.
func crashWant(op string) [][]any {
	base := crashBaseRows()
	deleted := func(r []any) bool { return slices.Contains(crashDeleted, r[0].(int64)) }
	schema := testtable.Schema()
	switch op {
	case "append":
		return append(base, crashNewRows()...)
	case "replace-partitions": // an unpartitioned table is one partition
		return crashNewRows()
	case "overwrite":
		return append(keepRows(schema, base, deleted), crashNewRows()...)
	case "delete-copy-on-write", "delete-merge-on-read":
		return keepRows(schema, base, deleted)
	}
	return base
}

func TestCrashMatrix(t *testing.T) {
	ctx := context.Background()
	for _, op := range []string{"append", "replace-partitions", "overwrite", "delete-copy-on-write", "delete-merge-on-read", "expire"} {
		steps := commitSteps
		if s, ok := crashSteps[op]; ok {
			steps = s
		}
		for _, step := range steps {
			t.Run(op+"/"+step, func(t *testing.T) {
				tbl := newTable(t, 2, nil, nil)
				appendInChunks(t, tbl, crashBaseRows(), 40)
				schema := tbl.Metadata.CurrentSchema()
				before := crashBaseRows()
				crashtest.RunKilled(t, "TestCrashMatrixChild", fmt.Sprintf("%s=%s|%s|%s", crashMatrixEnv, op, tbl.Metadata.Location, step))

				after := reopened(t, tbl)
				everyReferencedFileExists(t, after)
				got := tableRows(t, after.MetadataLocation, table.Options{})
				want := crashWant(op)
				sortRows(schema, got)
				sortRows(schema, want)
				sortRows(schema, before)
				if !sameRows(got, before) && !sameRows(got, want) {
					t.Fatalf("after a kill at %s the table holds %d rows: neither the %d before nor the %d after", step, len(got), len(before), len(want))
				}

				// The retry: the operation again, same token.
				if _, err := crashOps[op](ctx, t, after); err != nil && !(op == "expire" && err.Error() == "expired nothing") {
					t.Fatalf("retry after a kill at %s: %v", step, err)
				}
				final := reopened(t, tbl)
				everyReferencedFileExists(t, final)
				checkRows(t, "after the retry", final, want)
				if op != "expire" {
					tokens := 0
					for _, s := range final.Metadata.Snapshots {
						if s.Summary[table.SummaryToken] == crashMatrixToken {
							tokens++
						}
					}
					if tokens != 1 {
						t.Fatalf("after a kill at %s and a retry, %d snapshots carry the token", step, tokens)
					}
				}
			})
		}
	}
}

// everyReferencedFileExists plans every snapshot of tbl and checks that
// each data and delete file it names is on disk.
func everyReferencedFileExists(t *testing.T, tbl *table.Table) {
	t.Helper()
	for _, s := range tbl.Metadata.Snapshots {
		plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{SnapshotID: &s.SnapshotID})
		if err != nil {
			t.Fatalf("snapshot %d does not plan: %v", s.SnapshotID, err)
		}
		for _, task := range plan.Tasks {
			paths := []string{task.Path}
			for _, d := range task.Deletes {
				paths = append(paths, d.Path)
			}
			for _, p := range paths {
				if _, err := os.Stat(strings.TrimPrefix(p, "file://")); err != nil {
					t.Fatalf("snapshot %d names %s, which is gone: %v", s.SnapshotID, p, err)
				}
			}
		}
	}
}

func sameRows(a, b [][]any) bool {
	return len(a) == len(b) && fmt.Sprint(a) == fmt.Sprint(b)
}

// TestCrashMatrixChild is the child side of TestCrashMatrix: it runs the
// operation and kills itself at the step it was given. It does nothing in
// a normal run.
func TestCrashMatrixChild(t *testing.T) {
	job := os.Getenv(crashMatrixEnv)
	if job == "" {
		t.Skip("only run as a child process")
	}
	parts := strings.Split(job, "|")
	op, location, step := parts[0], parts[1], parts[2]
	tbl, err := table.Open(context.Background(), location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	crashtest.KillAt(step)
	if _, err := crashOps[op](context.Background(), t, tbl); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("%s passed step %s without stopping", op, step)
}
