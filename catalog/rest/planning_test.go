package rest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/rest"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// A scan planned on the server (at once, or submitted and fetched by
// plan tasks) reads exactly the rows a scan planned here reads, deletes
// and residual filters included; with scan-planning=client no plan is
// asked for.
func TestServerSidePlanning(t *testing.T) {
	for _, mode := range []string{"completed", "async"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			s := newServer(t)
			s.Planning = mode
			c := open(t, s, nil)
			if err := c.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
				t.Fatal(err)
			}
			spec := iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 2, FieldID: 1000, Name: "writer", Transform: iceberg.IdentityTransform{}}}}
			id := catalog.Identifier{Namespace: []string{"db"}, Name: "p"}
			if _, err := c.CreateTable(ctx, id, idSchema, catalog.CreateOptions{Spec: &spec, FormatVersion: 2}); err != nil {
				t.Fatal(err)
			}
			for k := range 3 {
				var rows [][]any
				for i := range 20 {
					rows = append(rows, []any{int64(k*100 + i), []string{"x", "y", "z"}[i%3]})
				}
				mustAppend(t, reload(t, c, id), rows, "")
			}
			low, _ := expr.NewPredicate(expr.OpLt, "id", int64(5))
			if _, err := ops.DeleteRows(ctx, reload(t, c, id), low, ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
				t.Fatal(err)
			}
			isX, _ := expr.NewPredicate(expr.OpEq, "writer", "x")
			above, _ := expr.NewPredicate(expr.OpGt, "id", int64(50))
			filter := expr.NewAnd(isX, above)

			local := open(t, s, map[string]string{rest.PropScanPlanning: "client"})
			before := len(s.Requests())
			want := rowstest.ScanRows(t, reload(t, local, id), scan.Options{Filter: filter})
			for _, r := range s.Requests()[before:] {
				if strings.Contains(r, "/plan") {
					t.Fatalf("scan-planning=client asked the server: %s", r)
				}
			}
			before = len(s.Requests())
			got := rowstest.ScanRows(t, reload(t, c, id), scan.Options{Filter: filter})
			asked := strings.Join(s.Requests()[before:], "\n")
			if !strings.Contains(asked, "POST /v1/namespaces/db/tables/p/plan") {
				t.Fatalf("the scan was not planned on the server:\n%s", asked)
			}
			if mode == "async" && (!strings.Contains(asked, "GET /v1/namespaces/db/tables/p/plan/plan-") || !strings.Contains(asked, "/tasks")) {
				t.Fatalf("a submitted plan was not polled and fetched by tasks:\n%s", asked)
			}
			if len(want) == 0 || len(want) >= 20 {
				t.Fatalf("%d rows: not a useful test", len(want))
			}
			rowstest.SortRows(idSchema, want)
			rowstest.SortRows(idSchema, got)
			rowstest.CompareRows(t, "server planning against client planning", idSchema, want, got)
			// The deletes came with the server's plan: everything, no filter.
			all := rowstest.ScanRows(t, reload(t, c, id), scan.Options{})
			if len(all) != 60-5 {
				t.Fatalf("%d rows, want 55 (5 deleted): %v", len(all), fmt.Sprint(all[:3]))
			}
		})
	}
}

func TestServerPlanningRequired(t *testing.T) {
	s := newServer(t)
	c := open(t, s, map[string]string{rest.PropScanPlanning: "server"})
	id, tbl := newTable(t, c)
	mustAppend(t, tbl, [][]any{{int64(1), "a"}}, "")
	_, err := scan.New(context.Background(), reload(t, c, id), scan.Options{})
	if !errors.Is(err, errkind.Unsupported) {
		t.Fatalf("scan-planning=server on a server without planning: %v", err)
	}
	if _, err := rest.Open(context.Background(), s.URL, map[string]string{rest.PropScanPlanning: "sometimes"}, table.Options{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a bad scan-planning: %v", err)
	}
}

// A table whose LoadTable config says scan-planning-mode=server is
// planned on the server under the default auto; a client that insists on
// client planning is told why it cannot.
func TestTableDirectiveDecidesPlanning(t *testing.T) {
	s := newServer(t)
	s.Planning = "completed"
	s.Config = map[string]string{"scan-planning-mode": "client"}
	c := open(t, s, nil)
	id, tbl := newTable(t, c)
	mustAppend(t, tbl, [][]any{{int64(1), "a"}}, "")
	before := len(s.Requests())
	if rows := rowstest.ScanRows(t, reload(t, c, id), scan.Options{}); len(rows) != 1 {
		t.Fatalf("rows %v", rows)
	}
	for _, r := range s.Requests()[before:] {
		if strings.Contains(r, "/plan") {
			t.Fatalf("the table says client planning, yet: %s", r)
		}
	}
	forced := open(t, s, map[string]string{rest.PropScanPlanning: "server"})
	if _, err := scan.New(context.Background(), reload(t, forced, id), scan.Options{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("scan-planning=server against the table's client directive: %v", err)
	}
}
