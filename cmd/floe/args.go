package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/floedb/floe/iceberg/table"
)

// args holds a command's positional arguments and its --flags, which may
// come before or after the positionals (users type `floe info T --map …`).
type args struct {
	positional []string
	values     map[string][]string
	bools      map[string]bool
}

// parseArgs splits raw arguments; valueFlags take a value (as the next
// argument or after "="), boolFlags take none.
func parseArgs(raw []string, valueFlags, boolFlags []string) (*args, error) {
	a := &args{values: map[string][]string{}, bools: map[string]bool{}}
	isValue := map[string]bool{}
	for _, f := range valueFlags {
		isValue[f] = true
	}
	isBool := map[string]bool{}
	for _, f := range boolFlags {
		isBool[f] = true
	}
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
	opts, err := a.tableOptions()
	if err != nil {
		return nil, table.SnapshotSelector{}, err
	}
	sel, err := a.snapshotSelector()
	if err != nil {
		return nil, sel, err
	}
	t, err := table.Open(ctx, a.positional[0], opts)
	return t, sel, err
}
