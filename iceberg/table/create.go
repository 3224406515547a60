package table

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/google/uuid"
)

// DefaultFormatVersion is the format version Create uses when given 0, as
// the reference implementation does.
const DefaultFormatVersion = 2

// propFormatVersion is the table property a caller may use to pick the
// format version at creation; like the reference implementation, floe does
// not keep it among the table's properties.
const propFormatVersion = "format-version"

// Create creates a table at location (a directory or URI) with the given
// schema, partition spec (nil: unpartitioned), sort order (nil or no
// fields: unsorted), properties and format version (0: the
// "format-version" property, else DefaultFormatVersion). It writes
// metadata/v1.metadata.json with put-if-absent, then version-hint.text, and
// fails with ErrTableExists when a table is already there. files nil
// means the FileIO for location with default settings (S3 from the AWS_*
// environment); Options.FileIO gives one with a location map or S3
// settings.
//
// Field ids are the caller's: writers put them into data files, so they
// must not change between the schema a file was written with and the
// table's. A schema whose ids are all 0 gets fresh ids, numbered as the
// reference implementation numbers a new table (a struct's fields, then
// what each of them holds). The schema becomes schema 0, the spec spec 0
// (partition field ids left 0 are numbered from 1000) and a non-empty sort
// order order 1.
func Create(ctx context.Context, files fileio.FileIO, location string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, order *iceberg.SortOrder, props map[string]string, formatVersion int) (*Table, error) {
	md, err := newTableMetadata(location, schema, spec, order, props, formatVersion)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", location, err)
	}
	location = md.Location
	if files == nil {
		if files, err = fileio.ForLocation(location, fileio.Options{}); err != nil {
			return nil, fmt.Errorf("create table %s: %w", location, err)
		}
	}
	if existing, err := LocateMetadata(ctx, files, location); err == nil {
		return nil, fmt.Errorf("create table %s: %w (metadata %s)", location, ErrTableExists, existing)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("create table %s: %w", location, err)
	}
	data, err := md.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", location, err)
	}
	path := fileio.JoinPath(location, "metadata", "v1.metadata.json")
	if err := files.WriteFileIfAbsent(ctx, path, data); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create table %s: %w (created concurrently)", location, ErrTableExists)
		}
		return nil, fmt.Errorf("create table %s: %w", location, err)
	}
	t := &Table{Metadata: md, MetadataLocation: path, IO: files}
	t.afterCommit(ctx, t)
	return t, nil
}

func newTableMetadata(location string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, order *iceberg.SortOrder, props map[string]string, formatVersion int) (*metadata.Metadata, error) {
	location, err := tableLocation(location)
	if err != nil {
		return nil, err
	}
	props = maps.Clone(props)
	if props == nil {
		props = map[string]string{}
	}
	if v, ok := props[propFormatVersion]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("property %s=%q is not a number", propFormatVersion, v)
		}
		if formatVersion != 0 && formatVersion != n {
			return nil, fmt.Errorf("format version %d and property %s=%d disagree", formatVersion, propFormatVersion, n)
		}
		formatVersion = n
		delete(props, propFormatVersion)
	}
	if formatVersion == 0 {
		formatVersion = DefaultFormatVersion
	}
	if formatVersion < 1 || formatVersion > metadata.MaxFormatVersion {
		return nil, fmt.Errorf("format version %d: floe writes versions 1 to %d", formatVersion, metadata.MaxFormatVersion)
	}
	if schema == nil {
		return nil, errors.New("no schema")
	}
	fresh, err := newTableSchema(schema, formatVersion)
	if err != nil {
		return nil, err
	}
	if fresh != schema && (spec != nil && len(spec.Fields) > 0 || order != nil && len(order.Fields) > 0) {
		return nil, errors.New("the schema has no field ids, so the partition spec and sort order cannot name their source columns; give the schema field ids")
	}
	newSpec, lastPartitionID, err := newTableSpec(spec, fresh, formatVersion)
	if err != nil {
		return nil, err
	}
	newOrder, err := newTableSortOrder(order, fresh)
	if err != nil {
		return nil, err
	}
	md := &metadata.Metadata{
		FormatVersion:      formatVersion,
		TableUUID:          uuid.NewString(),
		Location:           location,
		LastUpdatedMs:      time.Now().UnixMilli(),
		LastColumnID:       fresh.HighestFieldID(),
		Schemas:            []*iceberg.Schema{fresh},
		CurrentSchemaID:    fresh.ID,
		PartitionSpecs:     []iceberg.PartitionSpec{newSpec},
		DefaultSpecID:      newSpec.ID,
		LastPartitionID:    lastPartitionID,
		Properties:         props,
		SortOrders:         []iceberg.SortOrder{newOrder},
		DefaultSortOrderID: newOrder.OrderID,
		Refs:               map[string]metadata.Ref{},
	}
	if err := md.Validate(); err != nil {
		return nil, err
	}
	return md, nil
}

// tableLocation makes a plain local path absolute, since metadata names
// files by full location.
func tableLocation(location string) (string, error) {
	location = strings.TrimSpace(location)
	if location == "" {
		return "", errors.New("empty location")
	}
	if fileio.Scheme(location) == "" && !filepath.IsAbs(location) {
		abs, err := filepath.Abs(location)
		if err != nil {
			return "", err
		}
		location = filepath.ToSlash(abs)
	}
	if trimmed := strings.TrimRight(location, "/"); trimmed != "" && !strings.HasSuffix(trimmed, ":") {
		location = trimmed
	}
	return location, nil
}

// newTableSchema checks a new table's schema and gives it id 0, with fresh
// field ids when it has none.
func newTableSchema(s *iceberg.Schema, formatVersion int) (*iceberg.Schema, error) {
	ids := map[int]bool{}
	zero, nonZero := 0, 0
	var check func(path string, f iceberg.NestedField) error
	check = func(path string, f iceberg.NestedField) error {
		switch {
		case f.ID == 0:
			zero++
		case f.ID < 0:
			return fmt.Errorf("column %s has negative field id %d", path, f.ID)
		case ids[f.ID]:
			return fmt.Errorf("field id %d is used twice (again by %s)", f.ID, path)
		default:
			nonZero++
			ids[f.ID] = true
		}
		if f.Type == nil {
			return fmt.Errorf("column %s has no type", path)
		}
		return walkChildren(path, f.Type, check)
	}
	names := map[string]bool{}
	for _, f := range s.Fields {
		if f.Name == "" {
			return nil, errors.New("a top-level column has an empty name")
		}
		if names[f.Name] {
			return nil, fmt.Errorf("column name %q is used twice", f.Name)
		}
		names[f.Name] = true
		if err := check(f.Name, f); err != nil {
			return nil, err
		}
	}
	if len(s.Fields) == 0 {
		return nil, errors.New("the schema has no columns")
	}
	// What the format version can hold: the one check schema evolution
	// makes too.
	if err := action.CheckSchemaForVersion(s, formatVersion); err != nil {
		return nil, err
	}
	if zero > 0 && nonZero > 0 {
		return nil, fmt.Errorf("%d fields have ids and %d do not: give every field an id, or none", nonZero, zero)
	}
	if zero > 0 {
		if len(s.IdentifierFieldIDs) > 0 {
			return nil, errors.New("identifier field ids name fields that have no ids")
		}
		next := 0
		return iceberg.NewSchema(0, assignFreshIDs(s.AsStruct(), &next).Fields), nil
	}
	for _, id := range s.IdentifierFieldIDs {
		f, ok := s.FindField(id)
		if !ok {
			return nil, fmt.Errorf("identifier field id %d is not in the schema", id)
		}
		if !f.Required {
			return nil, fmt.Errorf("identifier field %s must be required", f.Name)
		}
	}
	if s.ID == 0 {
		return s, nil
	}
	return iceberg.NewSchema(0, s.Fields, s.IdentifierFieldIDs...), nil
}

// walkChildren calls fn on the fields a type holds.
func walkChildren(path string, t iceberg.Type, fn func(string, iceberg.NestedField) error) error {
	switch t := t.(type) {
	case *iceberg.StructType:
		seen := map[string]bool{}
		for _, f := range t.Fields {
			if f.Name == "" {
				return fmt.Errorf("a field of %s has an empty name", path)
			}
			if seen[f.Name] {
				return fmt.Errorf("%s has two fields named %q", path, f.Name)
			}
			seen[f.Name] = true
			if err := fn(path+"."+f.Name, f); err != nil {
				return err
			}
		}
	case *iceberg.ListType:
		return fn(path+".element", iceberg.NestedField{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired})
	case *iceberg.MapType:
		if err := fn(path+".key", iceberg.NestedField{ID: t.KeyID, Name: "key", Type: t.Key, Required: true}); err != nil {
			return err
		}
		return fn(path+".value", iceberg.NestedField{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired})
	}
	return nil
}

// assignFreshIDs numbers a struct's fields first, then what each holds.
func assignFreshIDs(st *iceberg.StructType, next *int) *iceberg.StructType {
	out := &iceberg.StructType{Fields: make([]iceberg.NestedField, len(st.Fields))}
	for i, f := range st.Fields {
		*next++
		f.ID = *next
		out.Fields[i] = f
	}
	for i := range out.Fields {
		out.Fields[i].Type = freshType(out.Fields[i].Type, next)
	}
	return out
}

func freshType(t iceberg.Type, next *int) iceberg.Type {
	switch t := t.(type) {
	case *iceberg.StructType:
		return assignFreshIDs(t, next)
	case *iceberg.ListType:
		*next++
		return &iceberg.ListType{ElementID: *next, Element: freshType(t.Element, next), ElementRequired: t.ElementRequired}
	case *iceberg.MapType:
		*next++
		key := *next
		*next++
		value := *next
		return &iceberg.MapType{KeyID: key, Key: freshType(t.Key, next), ValueID: value, Value: freshType(t.Value, next), ValueRequired: t.ValueRequired}
	}
	return t
}

// newTableSpec checks a new table's partition spec and numbers it 0.
func newTableSpec(spec *iceberg.PartitionSpec, schema *iceberg.Schema, formatVersion int) (iceberg.PartitionSpec, int, error) {
	out := iceberg.PartitionSpec{ID: 0, Fields: []iceberg.PartitionField{}}
	last := iceberg.PartitionFieldIDStart - 1
	if spec == nil {
		return out, last, nil
	}
	ids, names := map[int]bool{}, map[string]bool{}
	for i, pf := range spec.Fields {
		if pf.FieldID == 0 {
			pf.FieldID = iceberg.PartitionFieldIDStart + i
		}
		if formatVersion == 1 && pf.FieldID != iceberg.PartitionFieldIDStart+i {
			return out, 0, fmt.Errorf("partition field %q: format version 1 numbers partition fields from %d in order", pf.Name, iceberg.PartitionFieldIDStart)
		}
		if pf.FieldID < iceberg.PartitionFieldIDStart || ids[pf.FieldID] {
			return out, 0, fmt.Errorf("partition field %q: field id %d is taken or below %d", pf.Name, pf.FieldID, iceberg.PartitionFieldIDStart)
		}
		ids[pf.FieldID] = true
		if pf.Transform == nil {
			return out, 0, fmt.Errorf("partition field %d has no transform", i)
		}
		if _, unknown := pf.Transform.(iceberg.UnknownTransform); unknown {
			return out, 0, fmt.Errorf("partition field %q: unknown transform %s", pf.Name, pf.Transform)
		}
		src, ok := schema.FindField(pf.SourceID)
		if !ok {
			return out, 0, fmt.Errorf("partition field %q: no column with id %d", pf.Name, pf.SourceID)
		}
		if _, primitive := src.Type.(iceberg.PrimitiveType); !primitive {
			return out, 0, fmt.Errorf("partition field %q: source column %s is a %s, not a primitive", pf.Name, src.Name, src.Type)
		}
		if pf.Name == "" {
			full, _ := schema.FullName(src.ID)
			pf.Name = iceberg.DefaultPartitionName(full, pf.Transform)
		}
		if names[pf.Name] {
			return out, 0, fmt.Errorf("partition field name %q is used twice", pf.Name)
		}
		names[pf.Name] = true
		last = max(last, pf.FieldID)
		out.Fields = append(out.Fields, pf)
	}
	if _, err := out.PartitionType(schema); err != nil {
		return out, 0, err
	}
	return out, last, nil
}

// newTableSortOrder checks a new table's sort order: order 0 when it sorts
// nothing, else order 1.
func newTableSortOrder(order *iceberg.SortOrder, schema *iceberg.Schema) (iceberg.SortOrder, error) {
	if order == nil || len(order.Fields) == 0 {
		return iceberg.SortOrder{OrderID: 0, Fields: []iceberg.SortField{}}, nil
	}
	out := iceberg.SortOrder{OrderID: 1, Fields: make([]iceberg.SortField, len(order.Fields))}
	for i, f := range order.Fields {
		src, ok := schema.FindField(f.SourceID)
		if !ok {
			return out, fmt.Errorf("sort field %d: no column with id %d", i, f.SourceID)
		}
		if f.Transform == nil {
			f.Transform = iceberg.IdentityTransform{}
		}
		if _, err := f.Transform.ResultType(src.Type); err != nil {
			return out, fmt.Errorf("sort field %d (%s): %w", i, src.Name, err)
		}
		switch f.Direction {
		case "":
			f.Direction = "asc"
		case "asc", "desc":
		default:
			return out, fmt.Errorf("sort field %d: direction must be asc or desc, not %q", i, f.Direction)
		}
		switch f.NullOrder {
		case "":
			f.NullOrder = iceberg.DefaultNullOrder(f.Direction)
		case "nulls-first", "nulls-last":
		default:
			return out, fmt.Errorf("sort field %d: null order must be nulls-first or nulls-last, not %q", i, f.NullOrder)
		}
		out.Fields[i] = f
	}
	return out, nil
}

// NewMetadata is the first metadata of a table created at location, as
// Create builds it (see Create for the schema, spec, sort order,
// properties and format version), for a catalog that writes the file
// itself and records it elsewhere.
func NewMetadata(location string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, order *iceberg.SortOrder, props map[string]string, formatVersion int) (*metadata.Metadata, error) {
	return newTableMetadata(location, schema, spec, order, props, formatVersion)
}

// MetadataFilePath names a new metadata file of a table at location as
// catalogs that record metadata locations name them (the reference
// implementation's <NNNNN>-<uuid>.metadata.json): version follows the
// version of the file it replaces, and the uuid makes two writers'
// attempts at one version two files.
func MetadataFilePath(location string, version int64) string {
	return fileio.JoinPath(location, "metadata", fmt.Sprintf("%05d-%s.metadata.json", version, uuid.NewString()))
}

// MetadataVersion is the version in a metadata file's name (vN or
// NNNNN-<uuid>), 0 when it has none.
func MetadataVersion(metadataLocation string) int64 {
	v, _ := parseMetadataFileName(lastElem(metadataLocation))
	return v
}

// Load reads the table whose current metadata file is metadataLocation,
// through files, and has its commits go through publisher (nil: the
// metadata directory, as for Open).
func Load(ctx context.Context, files fileio.FileIO, metadataLocation string, publisher Publisher) (*Table, error) {
	t, err := load(ctx, files, fileio.LocationMap{}, metadataLocation)
	if err != nil {
		return nil, err
	}
	t.Publisher = publisher
	return t, nil
}
