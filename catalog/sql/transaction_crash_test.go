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
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/crashtest"
)

// multiCrashEnv hands the child its job: "<catalog URI>|<warehouse>|<step>|<table a>|<table b>".
const multiCrashEnv = "FLOE_SQL_MULTI_CRASH_AT"

// A process committing a transaction on two tables is killed (SIGKILL)
// at each step of the SQL catalog's multi-table commit: both metadata
// files written, every row swapped inside the database transaction not yet
// committed, the database transaction committed, and the commit loop's
// "published". On SQLite and on PostgreSQL, both tables are afterwards
// at their versions from before or both at their versions after (the
// property, the schema change and the rows of the transaction all there),
// never one of each, and every file they list exists.
func TestCrashMultiTableCommit(t *testing.T) { onBoth(t, testCrashMultiTableCommit) }

func testCrashMultiTableCommit(t *testing.T, handle func() *Catalog, dir string) {
	ctx := context.Background()
	c := handle()
	ns := []string{"crash"}
	if err := c.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		step  string
		after bool
	}{
		{"metadata-file", false},
		{StepTransactionRows, false},
		{StepTransactionCommitted, true},
		{"published", true},
	}
	for i, s := range steps {
		t.Run(s.step, func(t *testing.T) {
			var names [2]catalog.Identifier
			var before [2]string
			for k, name := range []string{"a", "b"} {
				names[k] = catalog.Identifier{Namespace: ns, Name: fmt.Sprintf("%s%d", name, i)}
				tbl, err := c.CreateTable(ctx, names[k], idSchema, catalog.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				appendRows(t, tbl, [][]any{{int64(1), "base"}}, "")
				before[k] = tbl.MetadataLocation
			}
			crashtest.RunKilled(t, "TestCrashMultiChild", fmt.Sprintf("%s=%s|%s|%s|%s|%s", multiCrashEnv, c.uri, c.warehouse, s.step, names[0].Name, names[1].Name))

			other := handle()
			var moved [2]bool
			for k, id := range names {
				tbl, err := other.LoadTable(ctx, id)
				if err != nil {
					t.Fatalf("load %s after a crash at %s: %v", id, s.step, err)
				}
				plan, err := tbl.PlanFiles(ctx, table.SnapshotSelector{})
				if err != nil {
					t.Fatalf("plan %s after a crash at %s: %v", id, s.step, err)
				}
				for _, task := range plan.Tasks {
					if _, err := os.Stat(filepath.FromSlash(task.Path)); err != nil {
						t.Fatalf("crash at %s: %s lists missing file %s", s.step, id, task.Path)
					}
				}
				moved[k] = tbl.MetadataLocation != before[k]
				want := []int64{1}
				if moved[k] {
					want = []int64{1, int64(10 + k)}
				}
				if got := ids(t, tbl); !slices.Equal(got, want) {
					t.Errorf("crash at %s: %s holds %v, want %v", s.step, id, got, want)
				}
				if k == 0 && moved[k] {
					if tbl.Metadata.Properties["batch"] != "crash" {
						t.Errorf("crash at %s: %s moved without its property", s.step, id)
					}
					if _, ok := tbl.Metadata.CurrentSchema().FindFieldByName("note"); !ok {
						t.Errorf("crash at %s: %s moved without its schema change", s.step, id)
					}
				}
			}
			if moved[0] != moved[1] {
				t.Fatalf("crash at %s: one table moved and the other did not (%v)", s.step, moved)
			}
			if moved[0] != s.after {
				t.Fatalf("crash at %s: the tables moved: %v, want %v", s.step, moved[0], s.after)
			}
		})
	}
}

// TestCrashMultiChild is the process TestCrashMultiTableCommit kills.
func TestCrashMultiChild(t *testing.T) {
	job := os.Getenv(multiCrashEnv)
	if job == "" {
		t.Skip("run by TestCrashMultiTableCommit")
	}
	parts := strings.SplitN(job, "|", 5)
	uri, warehouse, step := parts[0], parts[1], parts[2]
	ctx := context.Background()
	c := openURI(t, uri, warehouse)
	var txs []*table.Transaction
	for k, name := range parts[3:] {
		tbl, err := c.LoadTable(ctx, catalog.Identifier{Namespace: []string{"crash"}, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		tx := tbl.Transaction()
		if k == 0 {
			tx.SetProperties(map[string]string{"batch": "crash"}, nil)
			tx.Add(catalogtest.AddColumn{Column: "note"})
		}
		if err := tx.Append(catalogtest.WriteFiles(t, tbl, [][]any{{int64(10 + k), "child"}}), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	crashtest.KillAt(step)
	if _, err := catalog.CommitTransaction(ctx, c, txs...); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("the commit passed step %s without stopping", step)
}
