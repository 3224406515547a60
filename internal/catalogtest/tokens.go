package catalogtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer/ops"
)

// TokensOutliveExpiry checks, on a table of cat, that a commit token is
// recognised after expiry removed the snapshot that carried it: rows are
// appended under tokens, the table expired down to one snapshot, and every
// token retried (one after another, then all at once from fresh loads):
// each retry commits nothing, names the snapshot that committed it, and
// the rows are each there once. ns must exist.
func TokensOutliveExpiry(t *testing.T, cat catalog.Catalog, ns []string) {
	t.Helper()
	ctx := context.Background()
	id := catalog.Identifier{Namespace: ns, Name: "tokens"}
	if _, err := cat.CreateTable(ctx, id, IDSchema, catalog.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	load := func() *table.Table { t.Helper(); return Load(t, cat, id) }
	const n = 5
	committed := map[string]int64{}
	var want []int64
	rowsOf := func(i int) [][]any {
		return [][]any{{int64(2 * i), "tokens"}, {int64(2*i + 1), "tokens"}}
	}
	for i := range n {
		tok := fmt.Sprintf("step-%d", i)
		res := MustAppend(t, load(), rowsOf(i), tok)
		if !res.Committed {
			t.Fatalf("first append under %q: %+v", tok, res)
		}
		committed[tok] = res.SnapshotID
		want = append(want, int64(2*i), int64(2*i+1))
	}

	tbl := load()
	now := time.Now().UnixMilli() + 1
	keep := 1
	exp, err := tbl.ExpireSnapshots(ctx, &now, &keep, table.ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.ExpiredSnapshots) != n-1 {
		t.Fatalf("expired %v, want %d snapshots", exp.ExpiredSnapshots, n-1)
	}
	tbl = load()
	if len(tbl.Metadata.Snapshots) != 1 {
		t.Fatalf("%d snapshots after expiry, want 1", len(tbl.Metadata.Snapshots))
	}
	head := *tbl.Metadata.CurrentSnapshotID

	check := func(what, tok string, res ops.Result) {
		t.Helper()
		if res.Committed || !res.TokenFound || res.SnapshotID != committed[tok] {
			t.Errorf("%s of %q: %+v, want the token found in snapshot %d", what, tok, res, committed[tok])
		}
	}
	for i := range n {
		tok := fmt.Sprintf("step-%d", i)
		res, err := Append(t, load(), rowsOf(i), tok)
		if err != nil {
			t.Fatalf("retry of %q: %v", tok, err)
		}
		check("retry", tok, res)
	}
	// Retries racing each other, each from its own load.
	var wg sync.WaitGroup
	errs := make([]error, n)
	results := make([]ops.Result, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tbl, err := cat.LoadTable(ctx, id)
			if err != nil {
				errs[i] = err
				return
			}
			results[i], errs[i] = Append(t, tbl, rowsOf(i), fmt.Sprintf("step-%d", i))
		}()
	}
	wg.Wait()
	for i := range n {
		tok := fmt.Sprintf("step-%d", i)
		if errs[i] != nil {
			t.Fatalf("concurrent retry of %q: %v", tok, errs[i])
		}
		check("concurrent retry", tok, results[i])
	}

	tbl = load()
	if got := *tbl.Metadata.CurrentSnapshotID; got != head || len(tbl.Metadata.Snapshots) != 1 {
		t.Errorf("the retries committed: head %d (was %d), %d snapshots", got, head, len(tbl.Metadata.Snapshots))
	}
	if got := IDs(t, tbl); !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v (each once)", got, want)
	}
}
