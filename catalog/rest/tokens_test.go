package rest_test

import (
	"context"
	"testing"

	"github.com/floedb/floe/internal/catalogtest"
	"github.com/floedb/floe/internal/weedtest"
)

// A retried token is found after expiry removed its snapshot: the tokens
// expiry keeps reach the server as a set-properties update in the same
// commit as remove-snapshots.
func TestTokensOutliveExpiry(t *testing.T) {
	c := open(t, newServer(t), nil)
	if err := c.CreateNamespace(context.Background(), []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	catalogtest.TokensOutliveExpiry(t, c, []string{"db"})
}

func TestWeedTokensOutliveExpiry(t *testing.T) {
	w := weedtest.Shared(t)
	c := openWeed(t, w.CatalogURL, w)
	ns := []string{w.Namespace("tokens")}
	if err := c.CreateNamespace(context.Background(), ns, nil); err != nil {
		t.Fatal(err)
	}
	catalogtest.TokensOutliveExpiry(t, c, ns)
}
