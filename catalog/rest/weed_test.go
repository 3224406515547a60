package rest_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/rest"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/resttest"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/weedtest"
	"github.com/floedb/floe/writer/ops"
)

func TestMain(m *testing.M) {
	code := m.Run()
	weedtest.StopShared()
	os.Exit(code)
}

func openWeed(t testing.TB, uri string, w *weedtest.Server) *rest.Catalog {
	t.Helper()
	c, err := rest.Open(context.Background(), uri, w.Properties(), table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestWeedCreateAppendRead(t *testing.T) {
	w := weedtest.Shared(t)
	c := openWeed(t, w.CatalogURL, w)
	id, tbl := createIn(t, c, w.Namespace("smoke"), "events", catalog.CreateOptions{})
	t.Logf("location %s metadata %s", tbl.Metadata.Location, tbl.MetadataLocation)
	mustAppend(t, tbl, [][]any{{int64(1), "floe"}, {int64(2), "floe"}}, "")
	mustAppend(t, reload(t, c, id), [][]any{{int64(3), "floe"}}, "")
	if got := ids(t, reload(t, c, id)); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("rows %v", got)
	}
}

// TestWeedFaults puts a fault-injecting proxy in front of weed: 503s on
// reads are retried; a 503 on a commit, or a connection cut after weed
// committed, leave the outcome unknown and the retry with the same token
// settles it; a 409 makes the commit loop refresh and try again.
func TestWeedFaults(t *testing.T) {
	w := weedtest.Shared(t)
	proxy := resttest.NewProxy(t, w.CatalogURL)
	c := openWeed(t, proxy.URL, w)
	id, tbl := createIn(t, c, w.Namespace("faults"), "t", catalog.CreateOptions{})
	tablePath := "/namespaces/" + id.Namespace[0] + "/tables/t"
	mustAppend(t, tbl, [][]any{{int64(1), "plain"}}, "")

	proxy.Inject(resttest.Fault{Method: http.MethodGet, PathSuffix: tablePath, Status: http.StatusServiceUnavailable, Times: 2, RetryAfter: "0"})
	tbl = reload(t, c, id)

	settledByToken(t, proxy, resttest.Fault{Method: http.MethodPost, PathSuffix: tablePath, Status: http.StatusServiceUnavailable},
		c, id, []any{int64(2), "503"}, "weed-503", false)
	settledByToken(t, proxy, resttest.Fault{Method: http.MethodPost, PathSuffix: tablePath, CutAfter: true},
		c, id, []any{int64(3), "cut"}, "weed-cut", true)

	proxy.Inject(resttest.Fault{Method: http.MethodPost, PathSuffix: tablePath, Status: http.StatusConflict})
	if res := mustAppend(t, reload(t, c, id), [][]any{{int64(4), "409"}}, ""); !res.Committed {
		t.Fatalf("after a 409: %+v", res)
	}
	final := reload(t, c, id)
	if got := ids(t, final); !slices.Equal(got, []int64{1, 2, 3, 4}) {
		t.Fatalf("rows %v: every row once", got)
	}
	if n := len(final.Metadata.Snapshots); n != 4 {
		t.Fatalf("%d snapshots, want 4", n)
	}
}

func TestWeedConcurrentReplacePartitions(t *testing.T) {
	w := weedtest.Shared(t)
	c := openWeed(t, w.CatalogURL, w)
	ctx := context.Background()
	spec := iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 2, FieldID: 1000, Name: "writer", Transform: iceberg.IdentityTransform{}}}}
	id, tbl := createIn(t, c, w.Namespace("replace"), "p", catalog.CreateOptions{Spec: &spec})
	mustAppend(t, tbl, [][]any{{int64(1), "x"}, {int64(2), "y"}}, "")
	a, b := reload(t, c, id), reload(t, c, id)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, tb := range []*table.Table{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := rowstest.Reader(t, tb.Metadata.CurrentSchema(), [][]any{{int64(10 * (i + 1)), "x"}})
			defer rr.Release()
			_, errs[i] = ops.ReplacePartitions(ctx, tb, rr, table.CommitOptions{})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, errkind.Conflict):
			t.Fatalf("the loser failed with %v, want a conflict", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d replace_partitions succeeded, want 1 (%v)", won, errs)
	}
	got := ids(t, reload(t, c, id))
	if len(got) != 2 || got[0] != 2 || (got[1] != 10 && got[1] != 20) {
		t.Fatalf("rows %v: y's row and one winner's row", got)
	}
}

// Every kind of commit goes through weed as updates its own builder
// (iceberg-go's) accepts: properties set and removed, a schema change
// (add-schema, set-current-schema), and an expiry (remove-snapshots).
func TestWeedMetadataCommits(t *testing.T) {
	w := weedtest.Shared(t)
	c := openWeed(t, w.CatalogURL, w)
	ctx := context.Background()
	id, tbl := createIn(t, c, w.Namespace("meta"), "t", catalog.CreateOptions{})
	for i := range 3 {
		mustAppend(t, reload(t, c, id), [][]any{{int64(i), "w"}}, "")
	}
	tbl = reload(t, c, id)
	if err := tbl.SetProperties(ctx, map[string]string{"owner": "floe", "commit.retry.num-retries": "9"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := reload(t, c, id).SetProperties(ctx, nil, []string{"owner"}); err != nil {
		t.Fatal(err)
	}
	wider := iceberg.NewSchema(0, append(append([]iceberg.NestedField(nil), idSchema.Fields...),
		iceberg.NestedField{ID: 3, Name: "note", Type: iceberg.StringType{}}))
	if err := reload(t, c, id).UpdateSchemaByName(ctx, wider); err != nil {
		t.Fatal(err)
	}
	keep := 1
	now := time.Now().UnixMilli() + 1
	res, err := reload(t, c, id).ExpireSnapshots(ctx, &now, &keep, table.ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	final := reload(t, c, id)
	md := final.Metadata
	if md.Properties["owner"] != "" || md.Properties["commit.retry.num-retries"] != "9" {
		t.Errorf("properties %v", md.Properties)
	}
	if _, ok := md.CurrentSchema().FindFieldByName("note"); !ok || len(md.Schemas) != 2 {
		t.Errorf("schema %v (%d schemas)", md.CurrentSchema(), len(md.Schemas))
	}
	if len(md.Snapshots) != 1 || len(res.ExpiredSnapshots) != 2 {
		t.Errorf("%d snapshots left, %v expired; want 1 and 2", len(md.Snapshots), res.ExpiredSnapshots)
	}
	if got := ids(t, final); !slices.Equal(got, []int64{0, 1, 2}) {
		t.Fatalf("rows %v", got)
	}
	mustAppend(t, final, [][]any{{int64(9), "after", "a note"}}, "")
	if got := ids(t, reload(t, c, id)); !slices.Equal(got, []int64{0, 1, 2, 9}) {
		t.Fatalf("rows after the append with the new column: %v", got)
	}
}
