package action

import (
	"errors"
	"slices"
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

// UpdateSchema evolves the table's current schema (Java's UpdateSchema,
// pyiceberg's update_schema). Columns are named by their dotted full name
// at any depth, with list elements and map keys and values spelt
// "element", "key" and "value" (Schema.FindFieldByName); as in Java, a
// name means the column of the table's schema the update starts from
// (renames take effect when the schema is built), or a column this update
// added. The zero value is an empty update; each method records its
// operation and returns the update for chaining. Build applies the
// operations in order to the current schema of the metadata it is given,
// so the same update may be built again on newer metadata; the first
// refusal wins. Refusals are *SchemaUpdateError, errkind.InvalidArgument.
//
//	u := new(action.UpdateSchema).
//		AddColumn("address.zip", iceberg.StringType{}).
//		RenameColumn("name", "full_name").
//		UpdateColumn("id", iceberg.LongType{}).
//		DeleteColumn("legacy")
//	tx.Add(u)
type UpdateSchema struct {
	ops []schemaOp
	// err is the first refusal found while recording (an empty name).
	err error
	// pinned is set by any operation but a union by name and the
	// settings: what it asks for depends on the schema it was asked on
	// (see Rebasable).
	pinned bool
}

// schemaOp is one recorded operation, applied to the edit of one build.
type schemaOp func(e *schemaEdit) error

// ColumnOptions are the optional properties of an added column. Default
// values are in the canonical Go form of iceberg values (int32 for int,
// []any for a struct, …) and need format version 3. A required column
// needs an InitialDefault (the value rows written before it read as)
// unless AllowIncompatibleChanges is set; WriteDefault is the value
// writers use when none is given, and is InitialDefault when not set.
type ColumnOptions struct {
	Doc            string
	Required       bool
	InitialDefault any
	WriteDefault   any
}

func (*UpdateSchema) Name() string { return "update-schema" }

func (u *UpdateSchema) add(op schemaOp) *UpdateSchema {
	u.ops = append(u.ops, op)
	u.pinned = true
	return u
}

// addRebasable records an operation that means the same on any version
// of the table.
func (u *UpdateSchema) addRebasable(op schemaOp) *UpdateSchema {
	u.ops = append(u.ops, op)
	return u
}

// Rebasable (action.Rebasable) is true for an update that only unions by
// name: it asks for the wanted columns whatever the schema is by then, so
// a transaction rebuilds it on a table another writer changed meanwhile.
// Any other operation names columns of the schema it was asked on, and
// the transaction conflicts when that schema is no longer current.
func (u *UpdateSchema) Rebasable() bool { return len(u.ops) > 0 && !u.pinned }

func (u *UpdateSchema) fail(column, reason string) *UpdateSchema {
	if u.err == nil {
		u.err = &SchemaUpdateError{Column: column, Reason: reason}
	}
	return u
}

// AddColumn adds a column by its dotted path: "zip" at the top level,
// "address.zip" inside the struct address (inside a list's element struct
// or a map's value struct, "points.x" adds to the element of the list
// points). Nested types get fresh field ids after the column's own, as
// Java numbers them. At most one ColumnOptions is given.
func (u *UpdateSchema) AddColumn(path string, t iceberg.Type, opts ...ColumnOptions) *UpdateSchema {
	if path == "" || path[len(path)-1] == '.' {
		return u.fail(path, "a new column needs a name")
	}
	parent, name := "", path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		parent, name = path[:i], path[i+1:]
	}
	return u.AddColumnTo(parent, name, t, opts...)
}

// AddColumnTo adds a column named name to the struct parent ("" for the
// top level), for names that hold a dot, which AddColumn's path cannot
// spell (Java's addColumn(parent, name, type)).
func (u *UpdateSchema) AddColumnTo(parent, name string, t iceberg.Type, opts ...ColumnOptions) *UpdateSchema {
	if len(opts) > 1 {
		return u.fail(joinName(parent, name), "give at most one ColumnOptions")
	}
	var o ColumnOptions
	if len(opts) == 1 {
		o = opts[0]
	}
	if name == "" {
		return u.fail(joinName(parent, name), "a new column needs a name")
	}
	return u.add(func(e *schemaEdit) error { return e.addColumn(parent, name, t, o) })
}

// DeleteColumn drops a column (and everything inside it).
func (u *UpdateSchema) DeleteColumn(name string) *UpdateSchema {
	return u.add(func(e *schemaEdit) error { return e.deleteColumn(name) })
}

// RenameColumn renames a column; its id, and so its data, stays.
func (u *UpdateSchema) RenameColumn(name, newName string) *UpdateSchema {
	if newName == "" {
		return u.fail(name, "cannot rename a column to the empty name")
	}
	return u.add(func(e *schemaEdit) error { return e.renameColumn(name, newName) })
}

// UpdateColumn changes a primitive column's type by one of the spec's
// promotions: int→long, float→double, decimal(P,S)→decimal(P',S) with
// P'>P and, on format version 3, date→timestamp or timestamp_ns and
// unknown→any type. The same type changes nothing.
func (u *UpdateSchema) UpdateColumn(name string, t iceberg.PrimitiveType) *UpdateSchema {
	return u.add(func(e *schemaEdit) error { return e.updateType(name, t) })
}

// UpdateColumnDoc sets a column's doc ("" removes it).
func (u *UpdateSchema) UpdateColumnDoc(name, doc string) *UpdateSchema {
	return u.add(func(e *schemaEdit) error { return e.updateDoc(name, doc) })
}

// UpdateColumnDefault sets a column's write-default (nil removes it);
// format version 3 only. The initial-default never changes once the
// column exists.
func (u *UpdateSchema) UpdateColumnDefault(name string, writeDefault any) *UpdateSchema {
	return u.add(func(e *schemaEdit) error { return e.updateDefault(name, writeDefault) })
}

// MakeColumnOptional lets a column hold nulls.
func (u *UpdateSchema) MakeColumnOptional(name string) *UpdateSchema {
	return u.add(func(e *schemaEdit) error { return e.setRequired(name, false) })
}

// RequireColumn makes a column required. The table's data must then hold
// no null in it: the update is a NullFree action, whose transaction
// checks the live files' null counts before committing.
func (u *UpdateSchema) RequireColumn(name string) *UpdateSchema {
	return u.add(func(e *schemaEdit) error { return e.setRequired(name, true) })
}

// MoveFirst moves a column to the start of its struct.
func (u *UpdateSchema) MoveFirst(name string) *UpdateSchema {
	return u.add(func(e *schemaEdit) error { return e.move(name, moveFirst, "") })
}

// MoveBefore moves a column right before another of the same struct.
func (u *UpdateSchema) MoveBefore(name, before string) *UpdateSchema {
	return u.add(func(e *schemaEdit) error { return e.move(name, moveBefore, before) })
}

// MoveAfter moves a column right after another of the same struct.
func (u *UpdateSchema) MoveAfter(name, after string) *UpdateSchema {
	return u.add(func(e *schemaEdit) error { return e.move(name, moveAfter, after) })
}

// UnionByName adds what wanted has and the table lacks, by column name
// (see the function UnionByName for what it changes and refuses).
func (u *UpdateSchema) UnionByName(wanted *iceberg.Schema) *UpdateSchema {
	if wanted == nil {
		return u.fail("", "union by name needs a schema")
	}
	return u.addRebasable(func(e *schemaEdit) error { return e.unionByName(wanted) })
}

// SetIdentifierFields replaces the identifier fields (the row key of
// equality deletes and upserts) by these columns, named as in the
// evolved schema; none clears them. Each must be a required primitive
// column, not a float or double, and not inside a list, a map or an
// optional struct.
func (u *UpdateSchema) SetIdentifierFields(names ...string) *UpdateSchema {
	names = slices.Clone(names)
	return u.add(func(e *schemaEdit) error {
		e.identifierNames, e.identifierSet = names, true
		return nil
	})
}

// CaseSensitive sets whether the names of the operations recorded after
// it match columns exactly (the default) or ignoring case.
func (u *UpdateSchema) CaseSensitive(sensitive bool) *UpdateSchema {
	return u.addRebasable(func(e *schemaEdit) error { e.caseSensitive = sensitive; return nil })
}

// AllowIncompatibleChanges lets the update add a required column without
// an initial-default and require a column it added without one (Java's
// allowIncompatibleChanges): rows written before have no value for it.
// It applies to the operations recorded after it.
func (u *UpdateSchema) AllowIncompatibleChanges() *UpdateSchema {
	return u.addRebasable(func(e *schemaEdit) error { e.allowIncompatible = true; return nil })
}

// Build applies the operations to md's current schema. The result is
// added as a new schema (id one above the highest) and made current; when
// it equals a schema md already has, that one is made current; when it
// equals the current schema, nothing changes.
func (u *UpdateSchema) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	e, err := u.edit(md)
	if err != nil {
		return nil, err
	}
	return e.updates()
}

// NullFreeFields are the columns of md's current schema this update makes
// required (action.NullFree): the transaction refuses the update when
// live data may hold a null in one.
func (u *UpdateSchema) NullFreeFields(md *metadata.Metadata) []int {
	e, err := u.edit(md)
	if err != nil {
		return nil
	}
	var ids []int
	for id := range e.madeRequired {
		if !e.deleted(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// edit runs the recorded operations on md and checks the result.
func (u *UpdateSchema) edit(md *metadata.Metadata) (*schemaEdit, error) {
	table := md.Location
	named := func(err error) error {
		var sue *SchemaUpdateError
		if errors.As(err, &sue) && sue.Table == "" {
			sue.Table = table
		}
		return err
	}
	if u.err != nil {
		err := *u.err.(*SchemaUpdateError)
		return nil, named(&err)
	}
	e, err := newSchemaEdit(md)
	if err != nil {
		return nil, named(err)
	}
	for _, op := range u.ops {
		if err := op(e); err != nil {
			return nil, named(err)
		}
	}
	if err := e.apply(); err != nil {
		return nil, named(err)
	}
	return e, nil
}
