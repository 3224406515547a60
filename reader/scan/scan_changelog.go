package scan

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/table"
)

// ChangelogScan is a planned changelog scan: every row change between two
// snapshots of a table, one group of tasks per snapshot (or per file of a
// snapshot whose changes need no matching), each readable on its own and
// serialisable (ChangeGroup).
//
// A row is reported as Java's changelog view reports it: INSERT for a row
// a snapshot added, DELETE for one it removed (a removed data file, or
// rows of a kept file that position deletes, deletion vectors or equality
// deletes hit), with the snapshot's _change_ordinal (0 for the oldest
// snapshot of the changelog) and _commit_snapshot_id. Within a snapshot,
// a row deleted and added again with every column equal (a copy-on-write
// rewrite carrying it over) is no change; and when the table's schema has
// identifier fields, one DELETE and one INSERT of a snapshot with the
// same identifier become UPDATE_BEFORE and UPDATE_AFTER. Snapshots that
// replace files ("replace": compaction) change no row and are left out.
type ChangelogScan struct {
	Options Options
	schema  *arrow.Schema
	fields  []iceberg.NestedField
	groups  []*ChangeGroup
	table   *table.Table
}

// NewChangelog plans a changelog scan of t: the snapshots after
// opts.FromSnapshotID (exclusive; nil for the oldest the metadata knows)
// up to opts.ToSnapshotID (or the snapshot SnapshotID, Ref or
// AsOfTimestamp select; else the current one), on that snapshot's
// ancestry. Columns select the table's top-level columns and the three
// change columns (nil: all of them, table columns first); the filter
// prunes files and applies to rows on both sides of a change.
func NewChangelog(ctx context.Context, t *table.Table, opts Options) (*ChangelogScan, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	sel := opts.selector()
	tableSchema, err := t.SchemaFor(sel)
	if err != nil {
		return nil, err
	}
	if opts.Filter != nil {
		if _, err := filterFields(opts.Filter, tableSchema, opts.CaseInsensitive); err != nil {
			return nil, err
		}
	}
	out, err := changelogColumns(tableSchema, opts.Columns, opts.CaseInsensitive)
	if err != nil {
		return nil, err
	}
	outFields := make([]iceberg.NestedField, len(out))
	for i, c := range out {
		outFields[i] = c.field
	}
	schema, err := arrowschema.ArrowSchema(outFields)
	if err != nil {
		return nil, err
	}
	partitionType, err := t.UnifiedPartitionType()
	if err != nil {
		return nil, err
	}
	// Every table column is read, whatever is selected: carried-over rows
	// are recognised by all their values.
	rows, err := ProjectColumns(tableSchema, nil, false, partitionType)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(tableSchema.Fields)+1)
	for _, f := range tableSchema.Fields {
		names = append(names, f.Name)
	}
	withPos, err := ProjectColumns(tableSchema, append(names, "_pos"), false, partitionType)
	if err != nil {
		return nil, err
	}
	nameMapping, err := t.Metadata.NameMapping()
	if err != nil {
		return nil, err
	}
	nameMapping = iceberg.EffectiveNameMapping(nameMapping, tableSchema.Fields)
	locations := t.Locations.Prefixes()
	s := &ChangelogScan{Options: opts, schema: schema, fields: outFields, table: t}
	columns := make([]string, len(out))
	for i, c := range out {
		columns[i] = c.field.Name
	}
	keys := identifierColumns(tableSchema)
	var cur *ChangeGroup
	plan, err := t.StreamChanges(ctx, opts.FromSnapshotID, sel, opts.Filter, opts.CaseInsensitive, func(ct table.ChangeTask) error {
		if cur == nil || cur.Ordinal != ct.Ordinal {
			cur = &ChangeGroup{Version: changeGroupVersion, Ordinal: ct.Ordinal, SnapshotID: ct.Snapshot.SnapshotID, Columns: columns, KeyColumns: keys}
			s.groups = append(s.groups, cur)
		}
		dt := ct.DataFileTask
		proj := rows
		switch ct.Kind {
		case table.ChangeRemoved:
			dt.Deletes = ct.Before
		case table.ChangeDeletes:
			dt.Deletes = ct.Before
			proj = withPos
		}
		task, err := newTask(t, tableSchema, &dt, proj, nameMapping, locations, opts)
		if err != nil {
			return err
		}
		task.CaseInsensitive = opts.CaseInsensitive
		task.Filter, task.FilterFields = residualFilter(dt.Residual, tableSchema)
		item := ChangeItem{Kind: changeKindName(ct.Kind), Task: task}
		if ct.Kind == table.ChangeDeletes {
			after, err := newTask(t, tableSchema, &ct.DataFileTask, proj, nameMapping, locations, opts)
			if err != nil {
				return err
			}
			item.After = after.Deletes
			item.Task.EqualityFields = mergeFields(task.EqualityFields, after.EqualityFields)
		}
		cur.Items = append(cur.Items, item)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if plan.IO != nil {
		planned := *t
		planned.IO = plan.IO
		s.table = &planned
	}
	s.groups = splitOneSided(s.groups)
	return s, nil
}

// Schema is the Arrow schema of every batch the changelog returns.
func (s *ChangelogScan) Schema() *arrow.Schema { return s.schema }

// Fields are the Iceberg fields of Schema's columns, in order (what a
// printer of the rows needs to know of their types).
func (s *ChangelogScan) Fields() []iceberg.NestedField { return s.fields }

// Groups are the changelog's task groups in order: reading each and
// concatenating the batches is the changelog.
func (s *ChangelogScan) Groups() []*ChangeGroup { return s.groups }

// changelogColumn is one output column: a table column (its index among
// the table's top-level fields) or a change column (index -1).
type changelogColumn struct {
	field iceberg.NestedField
	index int
}

// changelogColumns resolves the selected columns: the table's top-level
// columns and the change columns.
func changelogColumns(schema *iceberg.Schema, columns []string, caseInsensitive bool) ([]changelogColumn, error) {
	if columns == nil {
		var out []changelogColumn
		for i, f := range schema.Fields {
			out = append(out, changelogColumn{field: f, index: i})
		}
		for _, f := range changeFields {
			out = append(out, changelogColumn{field: f, index: -1})
		}
		return out, nil
	}
	var out []changelogColumn
	seen := map[string]bool{}
	for _, name := range columns {
		col, ok := findChangelogColumn(schema, name, caseInsensitive)
		if !ok {
			if strings.Contains(name, ".") {
				return nil, errkind.Errorf(errkind.Unsupported, "changelog scan: column %q: a changelog selects whole top-level columns", name)
			}
			return nil, errkind.Errorf(errkind.InvalidArgument, "changelog scan: no column %q (the table's columns, _change_type, _change_ordinal, _commit_snapshot_id)", name)
		}
		if !seen[col.field.Name] {
			seen[col.field.Name] = true
			out = append(out, col)
		}
	}
	return out, nil
}

func findChangelogColumn(schema *iceberg.Schema, name string, caseInsensitive bool) (changelogColumn, bool) {
	eq := func(a, b string) bool {
		if caseInsensitive {
			return strings.EqualFold(a, b)
		}
		return a == b
	}
	for i, f := range schema.Fields {
		if eq(f.Name, name) {
			return changelogColumn{field: f, index: i}, true
		}
	}
	for _, f := range changeFields {
		if eq(f.Name, name) {
			return changelogColumn{field: f, index: -1}, true
		}
	}
	return changelogColumn{}, false
}

// identifierColumns are the indexes of the schema's identifier fields
// among its top-level columns; nil when it has none, or one inside a
// struct (updates are then reported as a DELETE and an INSERT).
func identifierColumns(schema *iceberg.Schema) []int {
	if len(schema.IdentifierFieldIDs) == 0 {
		return nil
	}
	out := make([]int, 0, len(schema.IdentifierFieldIDs))
	for _, id := range schema.IdentifierFieldIDs {
		found := false
		for i, f := range schema.Fields {
			if f.ID == id {
				out = append(out, i)
				found = true
			}
		}
		if !found {
			return nil
		}
	}
	return out
}

func changeKindName(k table.ChangeKind) string { return k.String() }

// mergeFields is a and the fields of b it lacks.
func mergeFields(a, b []iceberg.NestedField) []iceberg.NestedField {
	have := map[int]bool{}
	for _, f := range a {
		have[f.ID] = true
	}
	out := append([]iceberg.NestedField(nil), a...)
	for _, f := range b {
		if !have[f.ID] {
			out = append(out, f)
		}
	}
	return out
}

// splitOneSided splits a snapshot's group into one group per item when
// its rows need no matching (only inserts, or only deletes): those read
// in parallel and stream, while a group with both sides is read whole to
// match its carried-over rows and updates.
func splitOneSided(groups []*ChangeGroup) []*ChangeGroup {
	var out []*ChangeGroup
	for _, g := range groups {
		if g.twoSided() || len(g.Items) < 2 {
			out = append(out, g)
			continue
		}
		for _, it := range g.Items {
			one := *g
			one.Items = []ChangeItem{it}
			out = append(out, &one)
		}
	}
	return out
}
