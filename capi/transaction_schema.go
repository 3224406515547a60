package main

import (
	"bytes"
	"encoding/json"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
)

// The schema actions of an action list: consecutive ones are one
// action.UpdateSchema, one new schema, as the calls of one pyiceberg
// update_schema() block.

// txSchema is the UpdateSchema the schema actions join, with the
// settings its operations were last recorded under.
type txSchema struct {
	*action.UpdateSchema
	insensitive, incompatible bool
}

// txSchemaFields are the fields every schema action may carry.
type txSchemaFields struct {
	Action string `json:"action"`
	txCaseSensitive
	AllowIncompatibleChanges bool `json:"allow-incompatible-changes"`
}

// schema is the UpdateSchema the action joins, its settings brought to
// the action's.
func schema(into *txActions, f txSchemaFields) *action.UpdateSchema {
	s := group(into, "schema", func() *txSchema { return &txSchema{UpdateSchema: new(action.UpdateSchema)} })
	if f.insensitive() != s.insensitive {
		s.insensitive = f.insensitive()
		s.CaseSensitive(!s.insensitive)
	}
	if f.AllowIncompatibleChanges && !s.incompatible {
		s.incompatible = true
		s.AllowIncompatibleChanges()
	}
	return s.UpdateSchema
}

// txPosition is where add-column and move-column put a column.
type txPosition struct {
	First  bool   `json:"first"`
	Before txPath `json:"before"`
	After  txPath `json:"after"`
}

func (p txPosition) given() int {
	n := 0
	for _, set := range []bool{p.First, p.Before != "", p.After != ""} {
		if set {
			n++
		}
	}
	return n
}

func (p txPosition) move(u *action.UpdateSchema, path string) {
	switch {
	case p.First:
		u.MoveFirst(path)
	case p.Before != "":
		u.MoveBefore(path, string(p.Before))
	case p.After != "":
		u.MoveAfter(path, string(p.After))
	}
}

// txType reads a column type in the metadata JSON's form.
func txType(a txAction, raw json.RawMessage) (iceberg.Type, error) {
	t, err := iceberg.ParseTypeJSON(raw)
	if err != nil {
		return nil, a.invalid("type %s: %v", raw, err)
	}
	return t, nil
}

// txDefault reads a default in the single-value JSON form of type t.
func txDefault(a txAction, which string, t iceberg.Type, raw json.RawMessage) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	v, err := iceberg.ValueFromJSON(t, raw)
	if err != nil {
		return nil, a.invalid("%s %s is not a %s: %v", which, raw, t, err)
	}
	return v, nil
}

// pathOnly reads a schema action whose one field is "path".
func pathOnly(run func(u *action.UpdateSchema, path string)) func(txAction, *txActions) error {
	return func(a txAction, into *txActions) error {
		var v struct {
			txSchemaFields
			Path txPath `json:"path"`
		}
		if err := a.decode(&v); err != nil {
			return err
		}
		if v.Path == "" {
			return a.invalid("no \"path\" (the column)")
		}
		run(schema(into, v.txSchemaFields), string(v.Path))
		return nil
	}
}

func init() {
	registerTx(map[string]func(txAction, *txActions) error{
		"add-column": func(a txAction, into *txActions) error {
			var v struct {
				txSchemaFields
				txPosition
				Path           txPath          `json:"path"`
				Type           json.RawMessage `json:"type"`
				Doc            string          `json:"doc"`
				Required       bool            `json:"required"`
				InitialDefault json.RawMessage `json:"initial-default"`
				WriteDefault   json.RawMessage `json:"write-default"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.Path == "" {
				return a.invalid("no \"path\" (the new column's name)")
			}
			if len(v.Type) == 0 {
				return a.invalid("no \"type\" for column %q", v.Path)
			}
			if v.given() > 1 {
				return a.invalid("give at most one of \"first\", \"before\" and \"after\"")
			}
			t, err := txType(a, v.Type)
			if err != nil {
				return err
			}
			opts := action.ColumnOptions{Doc: v.Doc, Required: v.Required}
			if opts.InitialDefault, err = txDefault(a, "initial-default", t, v.InitialDefault); err != nil {
				return err
			}
			if opts.WriteDefault, err = txDefault(a, "write-default", t, v.WriteDefault); err != nil {
				return err
			}
			u := schema(into, v.txSchemaFields)
			u.AddColumn(string(v.Path), t, opts)
			v.move(u, string(v.Path))
			return nil
		},
		"rename-column": func(a txAction, into *txActions) error {
			var v struct {
				txSchemaFields
				Path    txPath `json:"path"`
				NewName string `json:"new-name"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.Path == "" || v.NewName == "" {
				return a.invalid("give \"path\" (the column) and \"new-name\"")
			}
			schema(into, v.txSchemaFields).RenameColumn(string(v.Path), v.NewName)
			return nil
		},
		"move-column": func(a txAction, into *txActions) error {
			var v struct {
				txSchemaFields
				txPosition
				Path txPath `json:"path"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.Path == "" {
				return a.invalid("no \"path\" (the column)")
			}
			if v.given() != 1 {
				return a.invalid("give one of \"first\": true, \"before\" and \"after\"")
			}
			v.move(schema(into, v.txSchemaFields), string(v.Path))
			return nil
		},
		"update-column": func(a txAction, into *txActions) error {
			var v struct {
				txSchemaFields
				Path     txPath          `json:"path"`
				Type     json.RawMessage `json:"type"`
				Doc      *string         `json:"doc"`
				Required *bool           `json:"required"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.Path == "" {
				return a.invalid("no \"path\" (the column)")
			}
			if len(v.Type) == 0 && v.Doc == nil && v.Required == nil {
				return a.invalid("give \"type\", \"doc\" or \"required\" for column %q", v.Path)
			}
			var prim iceberg.PrimitiveType
			if len(v.Type) > 0 {
				t, err := txType(a, v.Type)
				if err != nil {
					return err
				}
				p, ok := t.(iceberg.PrimitiveType)
				if !ok {
					return a.invalid("column %q: only a primitive type can be changed to, not %s", v.Path, v.Type)
				}
				prim = p
			}
			u, path := schema(into, v.txSchemaFields), string(v.Path)
			if prim != nil {
				u.UpdateColumn(path, prim)
			}
			if v.Doc != nil {
				u.UpdateColumnDoc(path, *v.Doc)
			}
			switch {
			case v.Required == nil:
			case *v.Required:
				u.RequireColumn(path)
			default:
				u.MakeColumnOptional(path)
			}
			return nil
		},
		"make-column-optional": pathOnly(func(u *action.UpdateSchema, path string) { u.MakeColumnOptional(path) }),
		"require-column":       pathOnly(func(u *action.UpdateSchema, path string) { u.RequireColumn(path) }),
		"delete-column":        pathOnly(func(u *action.UpdateSchema, path string) { u.DeleteColumn(path) }),
		"union-by-name": func(a txAction, into *txActions) error {
			var v struct {
				txSchemaFields
				Schema json.RawMessage `json:"schema"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if len(v.Schema) == 0 {
				return a.invalid("no \"schema\" (a schema in the metadata JSON's form)")
			}
			raw, err := withoutFieldIDs(v.Schema)
			if err != nil {
				return a.invalid("schema: %v", err)
			}
			var s iceberg.Schema
			if err := json.Unmarshal(raw, &s); err != nil {
				return a.invalid("schema: %v", err)
			}
			schema(into, v.txSchemaFields).UnionByName(&s)
			return nil
		},
		"set-identifier-fields": func(a txAction, into *txActions) error {
			var v struct {
				txSchemaFields
				Fields *[]txPath `json:"fields"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.Fields == nil {
				return a.invalid("no \"fields\" (an array of columns; [] clears them)")
			}
			names := make([]string, len(*v.Fields))
			for i, f := range *v.Fields {
				names[i] = string(f)
			}
			schema(into, v.txSchemaFields).SetIdentifierFields(names...)
			return nil
		},
	})
}

// withoutFieldIDs zeroes the field ids of a schema in the metadata JSON's
// form (and drops its identifier field ids): union-by-name matches
// columns by name, as pyiceberg's does, so the ids of a schema built
// elsewhere mean nothing here, and new columns get fresh ones.
func withoutFieldIDs(raw json.RawMessage) (json.RawMessage, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var walk func(t any)
	walk = func(t any) {
		m, ok := t.(map[string]any)
		if !ok {
			return
		}
		switch m["type"] {
		case "struct":
			delete(m, "identifier-field-ids")
			fields, _ := m["fields"].([]any)
			for _, f := range fields {
				if fm, ok := f.(map[string]any); ok {
					fm["id"] = 0
					walk(fm["type"])
				}
			}
		case "list":
			m["element-id"] = 0
			walk(m["element"])
		case "map":
			m["key-id"], m["value-id"] = 0, 0
			walk(m["key"])
			walk(m["value"])
		}
	}
	walk(v)
	return json.Marshal(v)
}
