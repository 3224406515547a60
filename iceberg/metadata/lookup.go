package metadata

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
)

// PropertyNameMapping is the table property holding the default name
// mapping, for data files written without field ids.
const PropertyNameMapping = "schema.name-mapping.default"

// CurrentSchema is the schema current-schema-id names. It is never nil in
// metadata that passed Validate.
func (m *Metadata) CurrentSchema() *iceberg.Schema { return m.SchemaByID(m.CurrentSchemaID) }

// SchemaByID finds a schema, or gives nil.
func (m *Metadata) SchemaByID(id int) *iceberg.Schema {
	for _, s := range m.Schemas {
		if s != nil && s.ID == id {
			return s
		}
	}
	return nil
}

// SpecByID finds a partition spec, or gives nil.
func (m *Metadata) SpecByID(id int) *iceberg.PartitionSpec {
	for i := range m.PartitionSpecs {
		if m.PartitionSpecs[i].ID == id {
			return &m.PartitionSpecs[i]
		}
	}
	return nil
}

// DefaultSpec is the spec writers use. It is never nil in metadata that
// passed Validate.
func (m *Metadata) DefaultSpec() *iceberg.PartitionSpec { return m.SpecByID(m.DefaultSpecID) }

// SortOrderByID finds a sort order, or gives nil.
func (m *Metadata) SortOrderByID(id int) *iceberg.SortOrder {
	for i := range m.SortOrders {
		if m.SortOrders[i].OrderID == id {
			return &m.SortOrders[i]
		}
	}
	return nil
}

// DefaultSortOrder is the sort order writers use. It is never nil in
// metadata that passed Validate.
func (m *Metadata) DefaultSortOrder() *iceberg.SortOrder {
	return m.SortOrderByID(m.DefaultSortOrderID)
}

// SchemaForSnapshot is the schema a snapshot was written with, for reading
// it as of that snapshot: its schema-id, or the current schema for
// snapshots from writers that did not record one (and for a nil snap). A
// schema-id the metadata does not have is an error rather than a silent
// fallback, which could read columns under the wrong names.
func (m *Metadata) SchemaForSnapshot(snap *Snapshot) (*iceberg.Schema, error) {
	if snap == nil || snap.SchemaID == nil {
		if s := m.CurrentSchema(); s != nil {
			return s, nil
		}
		return nil, fmt.Errorf("current schema %d is not in the table metadata", m.CurrentSchemaID)
	}
	if s := m.SchemaByID(*snap.SchemaID); s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("snapshot %d was written with schema %d, which is not in the table metadata", snap.SnapshotID, *snap.SchemaID)
}

// NameMapping parses the table's default name mapping; nil when the table
// has none.
func (m *Metadata) NameMapping() (iceberg.NameMapping, error) {
	text, ok := m.Properties[PropertyNameMapping]
	if !ok {
		return nil, nil
	}
	nm, err := iceberg.ParseNameMapping(text)
	if err != nil {
		return nil, fmt.Errorf("table property %s: %w", PropertyNameMapping, err)
	}
	return nm, nil
}
