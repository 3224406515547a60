package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/table"
)

const alterUsage = "usage: floe alter TABLE ACTION [ARGS] [ACTION [ARGS]]…"

// runAlter changes a table's schema, partition spec, sort order,
// properties or format version: every action given, in order, in one
// transaction, so one new metadata version or, when any is refused,
// nothing.
func runAlter(ctx context.Context, raw []string, out, _ io.Writer) error {
	common, name, steps, err := parseAlter(raw)
	if err != nil {
		return err
	}
	if name == "" || len(steps) == 0 {
		return errors.New(alterUsage)
	}
	a, err := parseArgs(common, []string{"warehouse", "map"}, []string{"no-relocate"})
	if err != nil {
		return err
	}
	// Every argument is read before the table is opened: a mistyped one
	// costs no catalog round trip and can commit nothing.
	build, err := alterBuilders(steps)
	if err != nil {
		return err
	}
	t, err := a.loadTable(ctx, name)
	if err != nil {
		return err
	}
	tx := t.Transaction()
	for _, b := range build {
		if err := b(tx); err != nil {
			return err
		}
	}
	before := t.Metadata
	res, err := tx.Commit(ctx)
	if err != nil {
		return err
	}
	verbs := make([]string, len(steps))
	for i, s := range steps {
		verbs[i] = s.verb
	}
	return writeJSON(out, newChangeResult("alter", verbs, before, t, res.Committed, res.SnapshotIDs))
}

// alterBuild adds one builder's change to a transaction.
type alterBuild func(tx *table.Transaction) error

// alterBuilders turns the actions into transaction steps: each run of
// consecutive actions of one group is one builder (two added columns are
// one new schema), applied in the order given.
func alterBuilders(steps []alterStep) ([]alterBuild, error) {
	var out []alterBuild
	for i := 0; i < len(steps); {
		group := alterVerbs[steps[i].verb].group
		j := i + 1
		for j < len(steps) && alterVerbs[steps[j].verb].group == group {
			j++
		}
		run := steps[i:j]
		var b []alterBuild
		var err error
		switch group {
		case "schema":
			b, err = schemaBuild(run)
		case "spec":
			b, err = specBuild(run)
		case "sort":
			b, err = sortBuild(run)
		case "properties":
			b, err = propertiesBuild(run)
		case "format":
			b, err = formatBuild(run)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
		i = j
	}
	return out, nil
}

// addAction is the step that adds metadata actions.
func addAction(actions ...action.Action) alterBuild {
	return func(tx *table.Transaction) error { tx.Add(actions...); return nil }
}

func specBuild(run []alterStep) ([]alterBuild, error) {
	u := &action.UpdateSpec{}
	for _, s := range run {
		switch s.verb {
		case "add-partition-field":
			column, tr, err := columnTransform(s.args[0])
			if err != nil {
				return nil, fmt.Errorf("add-partition-field %s: %w", s.args[0], err)
			}
			name, _ := s.flag("name")
			u.AddField(column, tr, name)
		case "drop-partition-field":
			// COL:TRANSFORM names a field by what it partitions by.
			if column, transform, ok := strings.Cut(s.args[0], ":"); ok {
				tr, err := parseTransform(transform)
				if err != nil {
					return nil, fmt.Errorf("drop-partition-field %s: %w", s.args[0], err)
				}
				u.RemoveFieldBySource(column, tr)
				continue
			}
			u.RemoveField(s.args[0])
		case "rename-partition-field":
			u.RenameField(s.args[0], s.args[1])
		}
	}
	return []alterBuild{addAction(u)}, nil
}

// columnTransform reads COL[:TRANSFORM], identity by default.
func columnTransform(arg string) (string, iceberg.Transform, error) {
	column, transform, _ := strings.Cut(arg, ":")
	if column == "" {
		return "", nil, errors.New("no column")
	}
	if transform == "" {
		transform = "identity"
	}
	tr, err := parseTransform(transform)
	return column, tr, err
}

// sortBuild makes each set-sort-order a new sort order: its fields are
// COL[:TRANSFORM][:asc|desc][:nulls-first|nulls-last] (ascending,
// identity and the direction's default null order unless given); none
// at all is the unsorted order.
func sortBuild(run []alterStep) ([]alterBuild, error) {
	var out []alterBuild
	for _, s := range run {
		r := &action.ReplaceSortOrder{}
		for _, f := range s.args {
			parts := strings.Split(f, ":")
			column, dir, nulls := parts[0], "asc", ""
			var tr iceberg.Transform
			if column == "" {
				return nil, fmt.Errorf("set-sort-order %s: no column", f)
			}
			for _, p := range parts[1:] {
				switch {
				case p == "asc" || p == "desc":
					dir = p
				case p == action.NullsFirst || p == action.NullsLast:
					nulls = p
				case tr == nil:
					var err error
					if tr, err = parseTransform(p); err != nil {
						return nil, fmt.Errorf("set-sort-order %s: %w (or asc, desc, nulls-first, nulls-last)", f, err)
					}
				default:
					return nil, fmt.Errorf("set-sort-order %s: %q is not asc, desc, nulls-first or nulls-last", f, p)
				}
			}
			if dir == "asc" {
				r.Asc(column, tr, nulls)
			} else {
				r.Desc(column, tr, nulls)
			}
		}
		out = append(out, addAction(r))
	}
	return out, nil
}

// propertiesBuild sets and removes properties through the transaction,
// which protects the properties floe maintains.
func propertiesBuild(run []alterStep) ([]alterBuild, error) {
	set := map[string]string{}
	var remove []string
	for _, s := range run {
		switch s.verb {
		case "set-property":
			k, v, ok := strings.Cut(s.args[0], "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("set-property wants KEY=VALUE, got %q", s.args[0])
			}
			set[k] = v
		case "unset-property":
			remove = append(remove, s.args[0])
		}
	}
	return []alterBuild{func(tx *table.Transaction) error { tx.SetProperties(set, remove); return nil }}, nil
}

func formatBuild(run []alterStep) ([]alterBuild, error) {
	var out []alterBuild
	for _, s := range run {
		v, ok := s.flag("format-version")
		if !ok {
			return nil, fmt.Errorf("upgrade: wants %s", alterVerbs["upgrade"].usage)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("upgrade: --format-version wants 1, 2 or 3, got %q", v)
		}
		out = append(out, func(tx *table.Transaction) error { tx.UpgradeFormatVersion(n); return nil })
	}
	return out, nil
}
