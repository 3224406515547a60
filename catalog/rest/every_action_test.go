package rest_test

import (
	"context"
	"testing"

	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/weedtest"
)

// Every kind of change a transaction makes reaches a REST server as the
// protocol's updates and requirements and commits there: the test server
// and SeaweedFS's weed mini.
func TestEveryActionCommits(t *testing.T) {
	c := open(t, newServer(t), nil)
	if err := c.CreateNamespace(context.Background(), []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	catalogtest.EveryAction(t, c, []string{"db"})
}

func TestWeedEveryActionCommits(t *testing.T) {
	w := weedtest.Shared(t)
	c := openWeed(t, w.CatalogURL, w)
	ns := []string{w.Namespace("every_action")}
	if err := c.CreateNamespace(context.Background(), ns, nil); err != nil {
		t.Fatal(err)
	}
	catalogtest.EveryAction(t, c, ns)
}
