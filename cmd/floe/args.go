package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/catalog/open"
	"github.com/floedb/floe/iceberg/table"
)

// args holds a command's positional arguments and its --flags, which may
// come before or after the positionals (users type `floe info T --map …`).
type args struct {
	positional []string
	values     map[string][]string
	bools      map[string]bool
	// opened is the catalog the command opened, for its later steps (a
	// REST catalog costs a configuration request and a token to open).
	opened catalog.Catalog
	// creates is set for a command that may make things in its catalog (a
	// table, a namespace): only such a command creates a missing SQLite
	// database; any other finds it not found, leaving no file behind.
	creates bool
}

// parsedFlags, set by a test, is told the flags each parseArgs call
// takes: help_test checks that a command's help names every one.
var parsedFlags func(valueFlags, boolFlags []string)

// parseArgs splits raw arguments; valueFlags take a value (as the next
// argument or after "="), boolFlags take none.
func parseArgs(raw []string, valueFlags, boolFlags []string) (*args, error) {
	if parsedFlags != nil {
		parsedFlags(valueFlags, boolFlags)
	}
	a := &args{values: map[string][]string{}, bools: map[string]bool{}}
	// Every command takes a catalog.
	isValue := map[string]bool{"catalog": true, "catalog-prop": true}
	for _, f := range valueFlags {
		isValue[f] = true
	}
	// And every command takes --quiet and --progress (see startProgress).
	isBool := map[string]bool{"quiet": true, "progress": true}
	for _, f := range boolFlags {
		isBool[f] = true
	}
	// The commands that may create a table's namespace (create, append)
	// are those that may create the catalog itself.
	a.creates = isBool["create-namespace"]
	for i := 0; i < len(raw); i++ {
		arg := raw[i]
		if arg == "--" {
			a.positional = append(a.positional, raw[i+1:]...)
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			a.positional = append(a.positional, arg)
			continue
		}
		name := strings.TrimLeft(arg, "-")
		value, hasValue := "", false
		if eq := strings.IndexByte(name, '='); eq >= 0 {
			name, value, hasValue = name[:eq], name[eq+1:], true
		}
		switch {
		case isBool[name]:
			if hasValue {
				return nil, fmt.Errorf("flag --%s takes no value", name)
			}
			a.bools[name] = true
		case isValue[name]:
			if !hasValue {
				if i+1 >= len(raw) {
					return nil, fmt.Errorf("flag --%s needs a value", name)
				}
				i++
				value = raw[i]
			}
			a.values[name] = append(a.values[name], value)
		default:
			return nil, fmt.Errorf("unknown flag %s", arg)
		}
	}
	return a, nil
}

func (a *args) last(name string) (string, bool) {
	v := a.values[name]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// tableOptions reads --map PREFIX=TARGET (repeatable), --no-relocate and
// --warehouse.
func (a *args) tableOptions() (table.Options, error) {
	opts := table.Options{LocationMap: map[string]string{}}
	for _, m := range a.values["map"] {
		prefix, target, ok := strings.Cut(m, "=")
		if !ok || prefix == "" || target == "" {
			return opts, fmt.Errorf("--map wants PREFIX=TARGET, got %q", m)
		}
		opts.LocationMap[prefix] = target
	}
	opts.NoRelocate = a.bools["no-relocate"]
	opts.Warehouse, _ = a.last("warehouse")
	return opts, nil
}

// snapshotSelector reads --snapshot ID, --as-of MS and --ref NAME.
func (a *args) snapshotSelector() (table.SnapshotSelector, error) {
	var sel table.SnapshotSelector
	if v, ok := a.last("snapshot"); ok {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return sel, fmt.Errorf("--snapshot wants a snapshot id, got %q", v)
		}
		sel.SnapshotID = &id
	}
	if v, ok := a.last("as-of"); ok {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return sel, fmt.Errorf("--as-of wants milliseconds since the epoch, got %q", v)
		}
		sel.AsOfMs = &ms
	}
	sel.Ref, _ = a.last("ref")
	return sel, nil
}

// openTable opens the command's one positional TABLE with the --map and
// --warehouse options and reads --snapshot, --as-of and --ref; usage is
// the error when the positional argument is missing.
func (a *args) openTable(ctx context.Context, usage string) (*table.Table, table.SnapshotSelector, error) {
	if len(a.positional) != 1 {
		return nil, table.SnapshotSelector{}, errors.New(usage)
	}
	sel, err := a.snapshotSelector()
	if err != nil {
		return nil, sel, err
	}
	t, err := a.loadTable(ctx, a.positional[0])
	return t, sel, err
}

// loadTable opens TABLE: through the catalog when there is one (TABLE is
// then ns.table), else as a location or warehouse name.
func (a *args) loadTable(ctx context.Context, name string) (*table.Table, error) {
	opts, err := a.tableOptions()
	if err != nil {
		return nil, err
	}
	cat, err := a.catalog(ctx, opts)
	if err != nil || cat == nil {
		if err != nil {
			return nil, err
		}
		return table.Open(ctx, name, opts)
	}
	// The table commits through the catalog for as long as the command
	// runs, so it stays open; the process's exit closes it.
	id, err := catalog.ParseIdentifier(name)
	if err != nil {
		return nil, err
	}
	return cat.LoadTable(ctx, id)
}

// hasCatalog reports whether the command names a catalog.
func (a *args) hasCatalog() bool {
	_, ok := a.last("catalog")
	return ok || os.Getenv(open.EnvCatalog) != ""
}

// catalog opens --catalog NAME|URI (or $FLOE_CATALOG) with its
// --catalog-prop KEY=VALUE properties, once per command; nil when neither
// names one. A NAME is looked up as pyiceberg would (catalogTarget). The
// command's end closes it.
func (a *args) catalog(ctx context.Context, opts table.Options) (catalog.Catalog, error) {
	if a.opened != nil {
		return a.opened, nil
	}
	value, fromFlag := a.last("catalog")
	if !fromFlag {
		value = os.Getenv(open.EnvCatalog)
	}
	if value == "" {
		return nil, nil
	}
	props, err := keyValues(a.values["catalog-prop"], "--catalog-prop")
	if err != nil {
		return nil, err
	}
	uri, props, err := catalogTarget(value, fromFlag, props)
	if err != nil {
		return nil, err
	}
	openCatalog := open.Existing
	if a.creates {
		openCatalog = open.Catalog
	}
	cat, err := openCatalog(ctx, uri, props, opts)
	if err == nil {
		a.opened = cat
	}
	return cat, err
}
