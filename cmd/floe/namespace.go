package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg"
)

// ensureNamespace makes sure a table can be created in namespace ns of
// cat. A missing namespace is created only when the user asked
// (--create-namespace): a mistyped one ("defualt") must not quietly
// become a second namespace holding the table. The refusal names the
// nearest namespace that exists and the flag.
func ensureNamespace(ctx context.Context, cat catalog.Catalog, ns []string, create bool) error {
	if create {
		if err := cat.CreateNamespace(ctx, ns, nil); err != nil && !errors.Is(err, catalog.ErrNamespaceExists) {
			return err
		}
		return nil
	}
	exists, err := cat.NamespaceExists(ctx, ns)
	if err != nil || exists {
		return err
	}
	name := catalog.JoinNamespace(ns)
	hint := ""
	// Siblings under the same parent: the level most likely mistyped.
	if siblings, err := cat.ListNamespaces(ctx, ns[:len(ns)-1]); err == nil && len(siblings) > 0 {
		names := make([]string, len(siblings))
		for i, s := range siblings {
			names[i] = catalog.JoinNamespace(s)
		}
		hint = fmt.Sprintf(" (did you mean %q?)", iceberg.ClosestName(name, names))
	}
	return fmt.Errorf("namespace %q%s: %w; pass --create-namespace to create it", name, hint, catalog.ErrNoSuchNamespace)
}
