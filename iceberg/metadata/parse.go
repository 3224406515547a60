package metadata

import (
	"encoding/json"
	"fmt"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// noSnapshot is how v1 and v2 metadata spell "no current snapshot".
const noSnapshot = -1

// Parse reads a table metadata file of format version 1, 2 or 3, normalises
// it (see Metadata) and checks it (see Validate). Its errors are
// errkind.Corrupt unless they say otherwise (an unsupported format-version
// is errkind.Unsupported).
func Parse(data []byte) (*Metadata, error) {
	m, err := parse(data)
	if err != nil {
		return nil, errkind.Default(errkind.Corrupt, err)
	}
	return m, nil
}

func parse(data []byte) (*Metadata, error) {
	top := parseObject(data, "table metadata")
	m := &Metadata{}
	top.required("format-version", &m.FormatVersion)
	if top.err != nil {
		return nil, top.err
	}
	if m.FormatVersion < 1 || m.FormatVersion > MaxFormatVersion {
		return nil, errkind.Errorf(errkind.Unsupported, "table metadata: unsupported format-version %d (floe reads 1 to %d)", m.FormatVersion, MaxFormatVersion)
	}
	v := m.FormatVersion

	top.requiredFrom("table-uuid", &m.TableUUID, v, 2)
	top.required("location", &m.Location)
	if v >= 2 {
		top.required("last-sequence-number", &m.LastSequenceNumber)
	}
	top.required("last-updated-ms", &m.LastUpdatedMs)
	top.required("last-column-id", &m.LastColumnID)
	parseSchemas(top, m)
	parseSpecs(top, m)
	if !top.requiredFrom("last-partition-id", &m.LastPartitionID, v, 2) {
		m.LastPartitionID = highestPartitionFieldID(m.PartitionSpecs)
	}
	parseSortOrders(top, m)
	top.optional("properties", &m.Properties)

	var current int64
	if top.optional("current-snapshot-id", &current) && current != noSnapshot {
		m.CurrentSnapshotID = &current
	}
	if v >= 3 {
		top.required("next-row-id", &m.NextRowID)
	}
	for i, raw := range top.list("snapshots") {
		s, err := parseSnapshot(raw, i, v)
		if err != nil {
			return nil, err
		}
		m.Snapshots = append(m.Snapshots, s)
	}
	if err := parseParts(top, m); err != nil {
		return nil, err
	}
	if top.err != nil {
		return nil, top.err
	}
	normalise(m)
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// UnmarshalJSON is Parse.
func (m *Metadata) UnmarshalJSON(data []byte) error {
	p, err := Parse(data)
	if err != nil {
		return err
	}
	*m = *p
	return nil
}

// parseSchemas reads "schemas", or the single v1 "schema" when that is all
// there is.
func parseSchemas(top *object, m *Metadata) {
	if !top.has("schemas") {
		if m.FormatVersion >= 2 {
			top.fail("missing field %q, required in format version %d", "schemas", m.FormatVersion)
			return
		}
		if !top.has("schema") {
			top.fail(`missing both "schemas" and the v1 field "schema"`)
			return
		}
		s, err := parseSchema(top.members["schema"])
		if err != nil {
			top.fail("schema: %w", err)
			return
		}
		m.Schemas = []*iceberg.Schema{s}
		m.CurrentSchemaID = s.ID
		return
	}
	top.required("current-schema-id", &m.CurrentSchemaID)
	for i, raw := range top.list("schemas") {
		s, err := parseSchema(raw)
		if err != nil {
			top.fail("schemas[%d]: %w", i, err)
			return
		}
		m.Schemas = append(m.Schemas, s)
	}
}

func parseSchema(raw json.RawMessage) (*iceberg.Schema, error) {
	if isNull(raw) {
		return nil, fmt.Errorf("schema is null")
	}
	s := new(iceberg.Schema)
	if err := s.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return s, nil
}

// parseSpecs reads "partition-specs", or the v1 "partition-spec" (a bare
// list of fields, which becomes spec 0).
func parseSpecs(top *object, m *Metadata) {
	if !top.has("partition-specs") {
		if m.FormatVersion >= 2 {
			top.fail("missing field %q, required in format version %d", "partition-specs", m.FormatVersion)
			return
		}
		if !top.has("partition-spec") {
			top.fail(`missing both "partition-specs" and the v1 field "partition-spec"`)
			return
		}
		fields, err := iceberg.ParsePartitionFields(top.members["partition-spec"])
		if err != nil {
			top.fail("partition-spec: %w", err)
			return
		}
		m.PartitionSpecs = []iceberg.PartitionSpec{{ID: 0, Fields: fields}}
		m.DefaultSpecID = 0
		return
	}
	top.required("default-spec-id", &m.DefaultSpecID)
	for i, raw := range top.list("partition-specs") {
		var spec iceberg.PartitionSpec
		if err := spec.UnmarshalJSON(raw); err != nil {
			top.fail("partition-specs[%d]: %w", i, err)
			return
		}
		m.PartitionSpecs = append(m.PartitionSpecs, spec)
	}
}

// highestPartitionFieldID is what v1 metadata without last-partition-id
// implies: the largest partition field id, or 999 when there is none.
func highestPartitionFieldID(specs []iceberg.PartitionSpec) int {
	highest := iceberg.PartitionFieldIDStart - 1
	for _, s := range specs {
		for _, f := range s.Fields {
			highest = max(highest, f.FieldID)
		}
	}
	return highest
}

// parseSortOrders reads "sort-orders"; v1 metadata may lack them and is then
// unsorted.
func parseSortOrders(top *object, m *Metadata) {
	if !top.has("sort-orders") {
		if m.FormatVersion >= 2 {
			top.fail("missing field %q, required in format version %d", "sort-orders", m.FormatVersion)
			return
		}
		m.SortOrders = []iceberg.SortOrder{{OrderID: 0, Fields: []iceberg.SortField{}}}
		m.DefaultSortOrderID = 0
		return
	}
	top.required("default-sort-order-id", &m.DefaultSortOrderID)
	for i, raw := range top.list("sort-orders") {
		var o iceberg.SortOrder
		if err := o.UnmarshalJSON(raw); err != nil {
			top.fail("sort-orders[%d]: %w", i, err)
			return
		}
		m.SortOrders = append(m.SortOrders, o)
	}
}
