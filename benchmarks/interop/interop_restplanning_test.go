package interop

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	gorest "github.com/apache/iceberg-go/catalog/rest"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/rest"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/resttest"
	"github.com/floedb/floe/writer/ops"
)

// floe's server-side planning answers, as internal/resttest serves them
// (content files, delete references and residuals in the protocol's JSON),
// read by iceberg-go's remote scan planning: at once and as a submitted
// plan fetched by plan tasks. iceberg-go must read exactly the rows floe
// reads, deletes applied.
func TestRESTPlanningAnswersReadByIcebergGo(t *testing.T) {
	for _, mode := range []string{"completed", "async"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			srv := resttest.New(t)
			srv.ClientID, srv.Secret = "interop", "interop-secret"
			srv.Planning = mode
			cat, err := rest.Open(ctx, srv.URL, map[string]string{"credential": "interop:interop-secret", rest.PropScanPlanning: "client"}, table.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			if err := cat.CreateNamespace(ctx, []string{"ns"}, nil); err != nil {
				t.Fatal(err)
			}
			id := catalog.Identifier{Namespace: []string{"ns"}, Name: "planned"}
			tbl, err := cat.CreateTable(ctx, id, testSchema(), catalog.CreateOptions{Spec: bucketDaySpec(), FormatVersion: 2})
			if err != nil {
				t.Fatal(err)
			}
			rows := makeRows(21, 0, 900)
			appendFloe(t, tbl, rows[:500])
			tbl, err = cat.LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			appendFloe(t, tbl, rows[500:])
			low, err := expr.NewPredicate(expr.OpLt, "i", int64(-300_000))
			if err != nil {
				t.Fatal(err)
			}
			tbl, err = cat.LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ops.DeleteRows(ctx, tbl, low, ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
				t.Fatal(err)
			}
			var want []row
			for _, r := range rows {
				if r.i == nil || *r.i >= -300_000 {
					want = append(want, r)
				}
			}
			if len(want) == len(rows) {
				t.Fatal("the delete kept every row: not a useful test")
			}

			goCat, err := gorest.NewCatalog(ctx, "interop", srv.URL, gorest.WithCredential("interop:interop-secret"))
			if err != nil {
				t.Fatalf("iceberg-go: open: %v", err)
			}
			if !goCat.SupportsPlanTableScan() {
				t.Fatal("iceberg-go does not see the plan endpoint announced")
			}
			goTbl, err := goCat.LoadTable(ctx, icebergtable.Identifier{"ns", "planned"})
			if err != nil {
				t.Fatalf("iceberg-go LoadTable: %v", err)
			}
			before := len(srv.Requests())
			_, records, err := goTbl.Scan(icebergtable.WithScanPlanningMode(icebergtable.ScanPlanningRemote)).ToArrowRecords(ctx)
			if err != nil {
				t.Fatalf("iceberg-go remote scan: %v", err)
			}
			var batches []arrow.RecordBatch
			for rec, err := range records {
				if err != nil {
					t.Fatalf("iceberg-go remote scan: %v", err)
				}
				t.Cleanup(rec.Release)
				batches = append(batches, rec)
			}
			planned := false
			for _, r := range srv.Requests()[before:] {
				if r == "POST /v1/namespaces/ns/tables/planned/plan" {
					planned = true
				}
			}
			if !planned {
				t.Fatalf("iceberg-go did not plan on the server: %v", srv.Requests()[before:])
			}
			assertSameRows(t, expectedKeys(want), rowKeys(t, batches))

			// floe planning on the same server reads the same rows.
			serverCat, err := rest.Open(ctx, srv.URL, map[string]string{"credential": "interop:interop-secret"}, table.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer serverCat.Close()
			ours, err := serverCat.LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			assertSameRows(t, expectedKeys(want), floeRows(t, ours))
		})
	}
}
