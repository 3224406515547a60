package interop

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	goiceberg "github.com/apache/iceberg-go"
	gorest "github.com/apache/iceberg-go/catalog/rest"
	_ "github.com/apache/iceberg-go/io/gocloud/s3"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/rest"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/weedtest"
	"github.com/floedb/floe/writer/ops"
)

// The REST interop tests run both clients against one SeaweedFS REST
// catalog (weed mini, with its own S3 for the table files): iceberg-go's
// catalog/rest on one side, floe's catalog/rest on the other.

func floeREST(t *testing.T, w *weedtest.Server) *rest.Catalog {
	t.Helper()
	cat, err := rest.Open(context.Background(), w.CatalogURL, w.Properties(), table.Options{})
	if err != nil {
		t.Fatalf("floe: open the REST catalog: %v", err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

func icebergGoREST(t *testing.T, w *weedtest.Server) *gorest.Catalog {
	t.Helper()
	props := goiceberg.Properties{}
	for k, v := range w.Properties() {
		if strings.HasPrefix(k, "s3.") {
			props[k] = v
		}
	}
	cat, err := gorest.NewCatalog(context.Background(), "interop", w.CatalogURL,
		gorest.WithCredential(weedtest.AccessKey+":"+weedtest.SecretKey),
		gorest.WithWarehouseLocation("s3://"+weedtest.Bucket),
		gorest.WithAdditionalProps(props))
	if err != nil {
		t.Fatalf("iceberg-go: open the REST catalog: %v", err)
	}
	return cat
}

// appendFloe appends rows through floe's own write path (ops.Append),
// which writes with the table's schema and spec.
func appendFloe(t *testing.T, tbl *table.Table, rows []row) ops.Result {
	t.Helper()
	rec := batch(t, rows)
	defer rec.Release()
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	res, err := ops.Append(context.Background(), tbl, rr, table.CommitOptions{})
	if err != nil {
		t.Fatalf("floe Append: %v", err)
	}
	return res
}

func loadFloe(t *testing.T, cat *rest.Catalog, id catalog.Identifier) *table.Table {
	t.Helper()
	tbl, err := cat.LoadTable(context.Background(), id)
	if err != nil {
		t.Fatalf("floe LoadTable: %v", err)
	}
	return tbl
}

// iceberg-go creates a partitioned table through the REST catalog and
// appends; floe loads it, reads every row and appends; iceberg-go reads
// both appends.
func TestRESTCatalogIcebergGoToFloeAndBack(t *testing.T) {
	w := weedtest.Shared(t)
	ctx := context.Background()
	ns := w.Namespace("gotofloe")
	theirs := makeRows(11, 0, 400)
	ident := icebergGoCreateAndAppend(t, icebergGoREST(t, w), ns, theirs)

	floeCat := floeREST(t, w)
	if list, err := floeCat.ListTables(ctx, []string{ns}); err != nil || len(list) != 1 || list[0].Name != "t" {
		t.Fatalf("floe lists %v (%v)", list, err)
	}
	id := catalog.Identifier{Namespace: []string{ns}, Name: "t"}
	tbl := loadFloe(t, floeCat, id)
	assertSameRows(t, expectedKeys(theirs), floeRows(t, tbl))
	ours := makeRows(12, 10_000, 300)
	appendFloe(t, tbl, ours)
	assertSameRows(t, expectedKeys(append(slices.Clone(theirs), ours...)), icebergGoRows(t, icebergGoREST(t, w), ident))
}

// floe creates a table through the REST catalog and appends twice, then
// replaces one partition and deletes rows by a filter; iceberg-go lists
// the table, loads it and reads exactly the rows floe's changes left.
func TestRESTCatalogFloeToIcebergGo(t *testing.T) {
	w := weedtest.Shared(t)
	ctx := context.Background()
	ns := w.Namespace("floetogo")
	floeCat := floeREST(t, w)
	if err := floeCat.CreateNamespace(ctx, []string{ns}, nil); err != nil {
		t.Fatal(err)
	}
	// Identity on b: replace_partitions of b=true rows replaces exactly
	// the rows whose b is true.
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 8, FieldID: 1000, Name: "b", Transform: iceberg.IdentityTransform{}}}}
	id := catalog.Identifier{Namespace: []string{ns}, Name: "made_by_floe"}
	tbl, err := floeCat.CreateTable(ctx, id, testSchema(), catalog.CreateOptions{Spec: spec, FormatVersion: 2})
	if err != nil {
		t.Fatalf("floe CreateTable: %v", err)
	}
	rows := makeRows(13, 0, 600)
	appendFloe(t, tbl, rows[:250])
	appendFloe(t, loadFloe(t, floeCat, id), rows[250:])

	// replace_partitions: new rows, all with b = true.
	replacement := makeRows(14, 50_000, 120)
	for k := range replacement {
		replacement[k].b = ptr(true)
	}
	rec := batch(t, replacement)
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.ReplacePartitions(ctx, loadFloe(t, floeCat, id), rr, table.CommitOptions{}); err != nil {
		t.Fatalf("floe ReplacePartitions: %v", err)
	}
	rr.Release()
	rec.Release()
	var kept []row
	for _, r := range rows {
		if r.b == nil || !*r.b {
			kept = append(kept, r)
		}
	}
	kept = append(kept, replacement...)

	// delete_rows, merge-on-read: position deletes the peer must apply.
	low, err := expr.NewPredicate(expr.OpLt, "i", int64(-500_000))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ops.DeleteRows(ctx, loadFloe(t, floeCat, id), low, ops.RowOptions{Mode: ops.MergeOnRead})
	if err != nil {
		t.Fatalf("floe DeleteRows: %v", err)
	}
	after := loadFloe(t, floeCat, id)
	if s := after.Metadata.SnapshotByID(res.SnapshotID); s == nil || s.Summary["added-position-deletes"] == "" {
		t.Fatalf("delete_rows wrote no position deletes: %+v", s)
	}
	var want []row
	for _, r := range kept {
		if r.i != nil && *r.i < -500_000 {
			continue
		}
		want = append(want, r)
	}
	if len(want) == len(kept) || len(kept) == len(rows)+len(replacement) {
		t.Fatal("the replace or the delete changed nothing: not a useful test")
	}

	goCat := icebergGoREST(t, w)
	var names []string
	for ident, err := range goCat.ListTables(ctx, icebergtable.Identifier{ns}) {
		if err != nil {
			t.Fatalf("iceberg-go ListTables: %v", err)
		}
		names = append(names, ident[len(ident)-1])
	}
	if !slices.Equal(names, []string{"made_by_floe"}) {
		t.Fatalf("iceberg-go lists %v", names)
	}
	assertSameRows(t, expectedKeys(want), icebergGoRows(t, goCat, icebergtable.Identifier{ns, "made_by_floe"}))
	assertSameRows(t, expectedKeys(want), floeRows(t, after))
}
