package sql

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/commitstep"
)

// Two tables committed together through one database transaction, on
// SQLite and PostgreSQL: both move or neither does (catalogtest.MultiTable).
func TestMultiTableTransaction(t *testing.T) {
	onBoth(t, func(t *testing.T, handle func() *Catalog, dir string) {
		catalogtest.MultiTable(t, handle(), []string{"multi"}, func() catalog.Catalog { return handle() })
	})
}

// Writers commit appends to two tables together, half of them naming the
// tables in the other order, on separate connections, each pausing after
// every row it swaps (so two commits hold a row each while they want the
// other's): the rows are locked in name order, so no two commits
// deadlock; every commit lands once in both tables (each writer's rows
// are in both tables, never one).
func TestMultiTableTransactionsConcurrent(t *testing.T) {
	commitstep.SetHook(func(step string) {
		if step == StepTransactionRow {
			time.Sleep(20 * time.Millisecond)
		}
	})
	defer commitstep.SetHook(nil)
	onBoth(t, func(t *testing.T, handle func() *Catalog, dir string) {
		ctx := context.Background()
		c := handle()
		if err := c.CreateNamespace(ctx, []string{"conc"}, nil); err != nil {
			t.Fatal(err)
		}
		names := []catalog.Identifier{{Namespace: []string{"conc"}, Name: "a"}, {Namespace: []string{"conc"}, Name: "b"}}
		for _, id := range names {
			if _, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{Properties: map[string]string{
				table.PropCommitNumRetries: "50", table.PropCommitMinWaitMs: "5", table.PropCommitMaxWaitMs: "50"}}); err != nil {
				t.Fatal(err)
			}
		}
		const writers, commits = 4, 3
		var wg sync.WaitGroup
		errs := make(chan error, writers*commits)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cw := handle()
				for k := range commits {
					id := int64(w*100 + k)
					var txs []*table.Transaction
					for _, name := range names {
						tbl, err := cw.LoadTable(ctx, name)
						if err != nil {
							errs <- err
							return
						}
						tx := tbl.Transaction()
						if err := tx.Append(catalogtest.WriteFiles(t, tbl, [][]any{{id, "w"}}), table.CommitOptions{}); err != nil {
							errs <- err
							return
						}
						txs = append(txs, tx)
					}
					if w%2 == 1 {
						slices.Reverse(txs)
					}
					if _, err := catalog.CommitTransaction(ctx, cw, txs...); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		var want []int64
		for w := range writers {
			for k := range commits {
				want = append(want, int64(w*100+k))
			}
		}
		for _, id := range names {
			tbl, err := handle().LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(t, tbl); !slices.Equal(got, want) {
				t.Errorf("%s holds %v, want %v", id, got, want)
			}
		}
	})
}
