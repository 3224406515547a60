package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/floedb/floe/catalog"
)

const catalogUsage = `usage: floe catalog namespaces [PARENT] | tables NS | create-namespace NS | drop-namespace NS
                    | drop-table NS.T [--purge] | rename NS.T NS.U | register NS.T METADATA_LOCATION
       with --catalog URI|NAME (or $FLOE_CATALOG) [--catalog-prop KEY=VALUE]…`

// runCatalog runs one catalog operation; lists print one name a line.
func runCatalog(ctx context.Context, raw []string, out, _ io.Writer) error {
	a, err := parseArgs(raw, []string{"map"}, []string{"purge", "no-relocate"})
	if err != nil {
		return err
	}
	if len(a.positional) == 0 {
		return errors.New(catalogUsage)
	}
	// Only the operations that add to a catalog may create its database.
	a.creates = a.positional[0] == "create-namespace" || a.positional[0] == "register"
	opts, err := a.tableOptions()
	if err != nil {
		return err
	}
	cat, err := a.catalog(ctx, opts)
	if err != nil {
		return err
	}
	if cat == nil {
		return errors.New("floe catalog needs --catalog URI|NAME or $FLOE_CATALOG")
	}
	defer cat.Close()
	op, rest := a.positional[0], a.positional[1:]
	want := func(n int) error {
		if len(rest) != n {
			return errors.New(catalogUsage)
		}
		return nil
	}
	switch op {
	case "namespaces":
		if len(rest) > 1 {
			return errors.New(catalogUsage)
		}
		var parent []string
		if len(rest) == 1 {
			parent = catalog.SplitNamespace(rest[0])
		}
		list, err := cat.ListNamespaces(ctx, parent)
		if err != nil {
			return err
		}
		for _, ns := range list {
			fmt.Fprintln(out, catalog.JoinNamespace(ns))
		}
	case "tables":
		if err := want(1); err != nil {
			return err
		}
		list, err := cat.ListTables(ctx, catalog.SplitNamespace(rest[0]))
		if err != nil {
			return err
		}
		for _, id := range list {
			fmt.Fprintln(out, id)
		}
	case "create-namespace":
		if err := want(1); err != nil {
			return err
		}
		if err := cat.CreateNamespace(ctx, catalog.SplitNamespace(rest[0]), nil); err != nil {
			return err
		}
		fmt.Fprintf(out, "created namespace %s\n", rest[0])
	case "drop-namespace":
		if err := want(1); err != nil {
			return err
		}
		if err := cat.DropNamespace(ctx, catalog.SplitNamespace(rest[0])); err != nil {
			return err
		}
		fmt.Fprintf(out, "dropped namespace %s\n", rest[0])
	case "drop-table":
		if err := want(1); err != nil {
			return err
		}
		id, err := catalog.ParseIdentifier(rest[0])
		if err != nil {
			return err
		}
		if err := cat.DropTable(ctx, id, a.bools["purge"]); err != nil {
			return err
		}
		fmt.Fprintf(out, "dropped %s\n", id)
	case "rename":
		if err := want(2); err != nil {
			return err
		}
		from, err := catalog.ParseIdentifier(rest[0])
		if err != nil {
			return err
		}
		to, err := catalog.ParseIdentifier(rest[1])
		if err != nil {
			return err
		}
		if err := cat.RenameTable(ctx, from, to); err != nil {
			return err
		}
		fmt.Fprintf(out, "renamed %s to %s\n", from, to)
	case "register":
		if err := want(2); err != nil {
			return err
		}
		id, err := catalog.ParseIdentifier(rest[0])
		if err != nil {
			return err
		}
		t, err := cat.RegisterTable(ctx, id, rest[1])
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "registered %s at %s\n", id, t.MetadataLocation)
	default:
		return fmt.Errorf("unknown catalog operation %q\n%s", op, catalogUsage)
	}
	return nil
}
