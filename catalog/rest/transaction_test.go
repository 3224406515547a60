package rest_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/rest"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/resttest"
	"github.com/floedb/floe/internal/weedtest"
)

// Two tables committed together through POST /v1/{prefix}/transactions/commit
// (resttest swaps both rows in one database transaction): both move or
// neither does.
func TestMultiTableTransaction(t *testing.T) {
	s := newServer(t)
	s.Prefix = "wh"
	c := open(t, s, nil)
	catalogtest.MultiTable(t, c, []string{"multi"}, func() catalog.Catalog { return open(t, s, nil) })
	var posts int
	for _, r := range s.Requests() {
		if r == "POST /v1/wh/transactions/commit" {
			posts++
		}
	}
	if posts == 0 {
		t.Fatalf("no multi-table commit reached the server: %v", s.Requests())
	}
}

// twoTables makes two tables of one row each and a transaction on each:
// a property on the first, an append on both.
func twoTables(t *testing.T, c catalog.Catalog, ns string) (names [2]catalog.Identifier, txs [2]*table.Transaction, before [2]string) {
	t.Helper()
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, []string{ns}, nil); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"a", "b"} {
		names[i] = catalog.Identifier{Namespace: []string{ns}, Name: name}
		tbl, err := c.CreateTable(ctx, names[i], idSchema, catalog.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mustAppend(t, tbl, [][]any{{int64(1), "base"}}, "")
		tbl = reload(t, c, names[i])
		before[i] = tbl.MetadataLocation
		txs[i] = tbl.Transaction()
		if err := txs[i].Append(catalogtest.WriteFiles(t, tbl, [][]any{{int64(2), "tx"}}), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	txs[0].SetProperties(map[string]string{"batch": "1"}, nil)
	return names, txs, before
}

// unchanged fails t unless both tables are where they were.
func unchanged(t *testing.T, c catalog.Catalog, names [2]catalog.Identifier, before [2]string) {
	t.Helper()
	for i, id := range names {
		if got := reload(t, c, id); got.MetadataLocation != before[i] || !slices.Equal(ids(t, got), []int64{1}) {
			t.Errorf("table %s moved to %s (was %s)", id, got.MetadataLocation, before[i])
		}
	}
}

// A server without the route: one that lists its endpoints is not asked;
// one that lists none is, and its 404, 405 or 501 says the same. Either
// way the caller gets UNSUPPORTED, nothing is committed, and the
// manifests written for it are deleted.
func TestMultiTableTransactionUnsupported(t *testing.T) {
	ctx := context.Background()
	t.Run("listed", func(t *testing.T) {
		s := newServer(t)
		s.NoTransactions, s.AnnounceEndpoints = true, true
		c := open(t, s, nil)
		names, txs, before := twoTables(t, c, "listed")
		_, err := catalog.CommitTransaction(ctx, c, txs[0], txs[1])
		if !errors.Is(err, errkind.Unsupported) || !errors.Is(err, rest.ErrNoTransactions) {
			t.Fatalf("a server whose endpoints leave it out: %v, want UNSUPPORTED", err)
		}
		if !strings.Contains(err.Error(), "transactions/commit") {
			t.Errorf("the message does not name the route: %v", err)
		}
		for _, r := range s.Requests() {
			if strings.Contains(r, "transactions") {
				t.Errorf("the server was asked: %s", r)
			}
		}
		unchanged(t, c, names, before)
	})
	for _, tc := range []struct {
		name   string
		status int
	}{{"absent", 0}, {"405", http.StatusMethodNotAllowed}, {"501", http.StatusNotImplemented}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			if tc.status == 0 {
				s.NoTransactions = true
			} else {
				s.Inject(resttest.Fault{Method: http.MethodPost, PathSuffix: "/transactions/commit", Status: tc.status})
			}
			c := open(t, s, nil)
			names, txs, before := twoTables(t, c, "ns_"+tc.name)
			metaA := listDir(t, txs[0].Table())
			_, err := catalog.CommitTransaction(ctx, c, txs[0], txs[1])
			if !errors.Is(err, errkind.Unsupported) || !errors.Is(err, rest.ErrNoTransactions) {
				t.Fatalf("%v, want UNSUPPORTED", err)
			}
			unchanged(t, c, names, before)
			if got := listDir(t, txs[0].Table()); !slices.Equal(got, metaA) {
				t.Errorf("the refused commit left files: %v, before %v", got, metaA)
			}
		})
	}
	t.Run("missing table", func(t *testing.T) {
		s := newServer(t)
		c := open(t, s, nil)
		names, txs, before := twoTables(t, c, "gone")
		if err := c.DropTable(ctx, names[1], false); err != nil {
			t.Fatal(err)
		}
		_, err := catalog.CommitTransaction(ctx, c, txs[0], txs[1])
		if !errors.Is(err, catalog.ErrNoSuchTable) || errors.Is(err, errkind.Unsupported) {
			t.Fatalf("a dropped table: %v, want not found", err)
		}
		if got := reload(t, c, names[0]); got.MetadataLocation != before[0] {
			t.Errorf("the other table moved")
		}
	})
}

// A 500 leaves the outcome unknown: the files stay (a retry with a token
// settles it); a 409 is a lost race, retried on fresh versions.
func TestMultiTableTransactionAnswers(t *testing.T) {
	ctx := context.Background()
	t.Run("500", func(t *testing.T) {
		s := newServer(t)
		s.Inject(resttest.Fault{Method: http.MethodPost, PathSuffix: "/transactions/commit", Status: http.StatusInternalServerError})
		c := open(t, s, nil)
		_, txs, _ := twoTables(t, c, "unknown")
		_, err := catalog.CommitTransaction(ctx, c, txs[0], txs[1])
		if !errors.Is(err, errkind.CommitStateUnknown) {
			t.Fatalf("a 500: %v, want COMMIT_STATE_UNKNOWN", err)
		}
	})
	t.Run("409", func(t *testing.T) {
		s := newServer(t)
		s.Inject(resttest.Fault{Method: http.MethodPost, PathSuffix: "/transactions/commit", Status: http.StatusConflict})
		c := open(t, s, nil)
		names, txs, _ := twoTables(t, c, "raced")
		res, err := catalog.CommitTransaction(ctx, c, txs[0], txs[1])
		if err != nil {
			t.Fatal(err)
		}
		if !res[0].Committed || !res[1].Committed {
			t.Fatalf("%+v", res)
		}
		for _, id := range names {
			if got := ids(t, reload(t, c, id)); !slices.Equal(got, []int64{1, 2}) {
				t.Errorf("%s rows %v", id, got)
			}
		}
	})
}

// SeaweedFS offers the route without listing endpoints: two tables
// committed together there, and a conflict on one commits neither.
func TestWeedMultiTableTransaction(t *testing.T) {
	w := weedtest.Shared(t)
	c := openWeed(t, w.CatalogURL, w)
	catalogtest.MultiTable(t, c, []string{w.Namespace("multi")}, func() catalog.Catalog { return openWeed(t, w.CatalogURL, w) })
}

func listDir(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	infos, err := tbl.IO.List(context.Background(), tbl.Metadata.Location+"/metadata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fi := range infos {
		out = append(out, fi.Path)
	}
	return out
}
