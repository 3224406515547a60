package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/table"
)

// schemaBuild makes one run of schema actions one UpdateSchema, so one
// new schema: as in Java, names are those of the schema the run starts
// from, or of columns the run added.
func schemaBuild(run []alterStep) ([]alterBuild, error) {
	u := &action.UpdateSchema{}
	var defaults []columnDefault
	for _, s := range run {
		if s.verb == "set-identifier-fields" {
			u.SetIdentifierFields(s.args...)
			continue
		}
		name := s.args[0]
		switch s.verb {
		case "add-column":
			t, err := parseColumnType(s.args[1])
			if err != nil {
				return nil, fmt.Errorf("add-column %s: %w", name, err)
			}
			opts := action.ColumnOptions{Required: hasFlag(s, "required")}
			opts.Doc, _ = s.flag("doc")
			if v, ok := s.flag("default"); ok {
				if opts.InitialDefault, err = iceberg.ValueFromJSON(t, json.RawMessage(v)); err != nil {
					return nil, fmt.Errorf("add-column %s --default %s: %w", name, v, err)
				}
			}
			u.AddColumn(name, t, opts)
			if err := moveColumn(u, s, false); err != nil {
				return nil, err
			}
		case "rename-column":
			u.RenameColumn(name, s.args[1])
		case "drop-column":
			u.DeleteColumn(name)
		case "update-column":
			_, hasDoc := s.flag("doc")
			_, hasDefault := s.flag("default")
			if len(s.args) < 2 && !hasDoc && !hasDefault {
				return nil, fmt.Errorf("update-column %s: give a TYPE, --doc or --default (%s)", name, alterVerbs[s.verb].usage)
			}
			var t iceberg.PrimitiveType
			if len(s.args) == 2 {
				p, err := iceberg.ParsePrimitiveType(s.args[1])
				if err != nil {
					return nil, fmt.Errorf("update-column %s: %w (a type changes only to a wider primitive)", name, err)
				}
				t = p
				u.UpdateColumn(name, p)
			}
			if doc, ok := s.flag("doc"); ok {
				u.UpdateColumnDoc(name, doc)
			}
			if v, ok := s.flag("default"); ok {
				defaults = append(defaults, columnDefault{name: name, value: v, t: t})
			}
		case "make-optional":
			u.MakeColumnOptional(name)
		case "make-required":
			u.RequireColumn(name)
		case "move-column":
			if err := moveColumn(u, s, true); err != nil {
				return nil, err
			}
		}
	}
	if len(defaults) == 0 {
		return []alterBuild{addAction(u)}, nil
	}
	// A new write-default is of the column's type: the type given with it,
	// else the column's in the table's current schema.
	return []alterBuild{func(tx *table.Transaction) error {
		schema := tx.Table().Metadata.CurrentSchema()
		for _, d := range defaults {
			t := iceberg.Type(d.t)
			if d.t == nil {
				f, ok := schema.FindFieldByName(d.name)
				if !ok {
					return fmt.Errorf("update-column %s: the table's schema has no column %q", d.name, d.name)
				}
				t = f.Type
			}
			v, err := iceberg.ValueFromJSON(t, json.RawMessage(d.value))
			if err != nil {
				return fmt.Errorf("update-column %s --default %s: %w", d.name, d.value, err)
			}
			u.UpdateColumnDefault(d.name, v)
		}
		tx.Add(u)
		return nil
	}}, nil
}

// columnDefault is an update-column --default, decoded once the column's
// type is known.
type columnDefault struct {
	name, value string
	t           iceberg.PrimitiveType
}

func hasFlag(s alterStep, name string) bool {
	_, ok := s.flags[name]
	return ok
}

// moveColumn records --first, --before COL or --after COL; needed says
// one must be given (move-column), else none is fine (add-column).
func moveColumn(u *action.UpdateSchema, s alterStep, needed bool) error {
	name := s.args[0]
	before, hasBefore := s.flag("before")
	after, hasAfter := s.flag("after")
	first := hasFlag(s, "first")
	n := 0
	for _, b := range []bool{hasBefore, hasAfter, first} {
		if b {
			n++
		}
	}
	switch {
	case n > 1:
		return fmt.Errorf("%s %s: give one of --first, --before and --after", s.verb, name)
	case n == 0 && needed:
		return fmt.Errorf("%s: wants %s", s.verb, alterVerbs[s.verb].usage)
	case first:
		u.MoveFirst(name)
	case hasBefore:
		u.MoveBefore(name, before)
	case hasAfter:
		u.MoveAfter(name, after)
	}
	return nil
}

// parseColumnType reads a column's type: a primitive as metadata spells
// it (long, decimal(10,2)), or an Iceberg JSON type for a struct, list
// or map, whose ids may be left out (the new column's are fresh).
func parseColumnType(s string) (iceberg.Type, error) {
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return iceberg.ParsePrimitiveType(s)
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("type %s: %w", s, err)
	}
	next := 0
	numberNested(v, &next)
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return iceberg.ParseTypeJSON(raw)
}

// numberNested gives the fields, elements, keys and values of a JSON
// type that lack ids placeholder ones, so a user need not number them:
// the added column's nested ids are assigned afresh anyway.
func numberNested(v any, next *int) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	setID := func(m map[string]any, key string) {
		if _, has := m[key]; !has {
			*next++
			m[key] = *next
		}
	}
	switch obj["type"] {
	case "struct":
		fields, _ := obj["fields"].([]any)
		for _, f := range fields {
			if fm, ok := f.(map[string]any); ok {
				setID(fm, "id")
				numberNested(fm["type"], next)
			}
		}
	case "list":
		setID(obj, "element-id")
		numberNested(obj["element"], next)
	case "map":
		setID(obj, "key-id")
		setID(obj, "value-id")
		numberNested(obj["key"], next)
		numberNested(obj["value"], next)
	}
}
