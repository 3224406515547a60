package metadata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// jsonMetadata is the written form, members in the reference
// implementation's order. Pointer and omitempty members are the ones a
// format version may leave out.
type jsonMetadata struct {
	FormatVersion       int                           `json:"format-version"`
	TableUUID           *string                       `json:"table-uuid,omitempty"`
	Location            string                        `json:"location"`
	LastSequenceNumber  *int64                        `json:"last-sequence-number,omitempty"`
	LastUpdatedMs       int64                         `json:"last-updated-ms"`
	LastColumnID        int                           `json:"last-column-id"`
	Schema              *iceberg.Schema               `json:"schema,omitempty"`
	CurrentSchemaID     int                           `json:"current-schema-id"`
	Schemas             []*iceberg.Schema             `json:"schemas"`
	PartitionSpec       json.RawMessage               `json:"partition-spec,omitempty"`
	DefaultSpecID       int                           `json:"default-spec-id"`
	PartitionSpecs      []iceberg.PartitionSpec       `json:"partition-specs"`
	LastPartitionID     int                           `json:"last-partition-id"`
	DefaultSortOrderID  int                           `json:"default-sort-order-id"`
	SortOrders          []iceberg.SortOrder           `json:"sort-orders"`
	Properties          map[string]string             `json:"properties"`
	CurrentSnapshotID   json.RawMessage               `json:"current-snapshot-id"`
	NextRowID           *int64                        `json:"next-row-id,omitempty"`
	EncryptionKeys      []jsonEncryptionKey           `json:"encryption-keys,omitempty"`
	Refs                map[string]jsonRef            `json:"refs"`
	Snapshots           []jsonSnapshot                `json:"snapshots"`
	Statistics          []jsonStatisticsFile          `json:"statistics"`
	PartitionStatistics []jsonPartitionStatisticsFile `json:"partition-statistics"`
	SnapshotLog         []jsonSnapshotLogEntry        `json:"snapshot-log"`
	MetadataLog         []jsonMetadataLogEntry        `json:"metadata-log"`
}

type jsonSnapshot struct {
	SequenceNumber   *int64            `json:"sequence-number,omitempty"`
	SnapshotID       int64             `json:"snapshot-id"`
	ParentSnapshotID *int64            `json:"parent-snapshot-id,omitempty"`
	TimestampMs      int64             `json:"timestamp-ms"`
	Summary          map[string]string `json:"summary,omitempty"`
	ManifestList     string            `json:"manifest-list,omitempty"`
	Manifests        *[]string         `json:"manifests,omitempty"`
	SchemaID         *int              `json:"schema-id,omitempty"`
	FirstRowID       *int64            `json:"first-row-id,omitempty"`
	AddedRows        *int64            `json:"added-rows,omitempty"`
	KeyID            *string           `json:"key-id,omitempty"`
}

type jsonRef struct {
	SnapshotID         int64  `json:"snapshot-id"`
	Type               string `json:"type"`
	MinSnapshotsToKeep *int   `json:"min-snapshots-to-keep,omitempty"`
	MaxSnapshotAgeMs   *int64 `json:"max-snapshot-age-ms,omitempty"`
	MaxRefAgeMs        *int64 `json:"max-ref-age-ms,omitempty"`
}

type jsonSnapshotLogEntry struct {
	TimestampMs int64 `json:"timestamp-ms"`
	SnapshotID  int64 `json:"snapshot-id"`
}

type jsonMetadataLogEntry struct {
	TimestampMs  int64  `json:"timestamp-ms"`
	MetadataFile string `json:"metadata-file"`
}

type jsonStatisticsFile struct {
	SnapshotID            int64              `json:"snapshot-id"`
	StatisticsPath        string             `json:"statistics-path"`
	FileSizeInBytes       int64              `json:"file-size-in-bytes"`
	FileFooterSizeInBytes int64              `json:"file-footer-size-in-bytes"`
	KeyMetadata           string             `json:"key-metadata,omitempty"`
	BlobMetadata          []jsonBlobMetadata `json:"blob-metadata"`
}

type jsonBlobMetadata struct {
	Type           string            `json:"type"`
	SnapshotID     int64             `json:"snapshot-id"`
	SequenceNumber int64             `json:"sequence-number"`
	Fields         []int             `json:"fields"`
	Properties     map[string]string `json:"properties,omitempty"`
}

type jsonPartitionStatisticsFile struct {
	SnapshotID      int64  `json:"snapshot-id"`
	StatisticsPath  string `json:"statistics-path"`
	FileSizeInBytes int64  `json:"file-size-in-bytes"`
}

type jsonEncryptionKey struct {
	KeyID                string            `json:"key-id"`
	EncryptedKeyMetadata string            `json:"encrypted-key-metadata"`
	EncryptedByID        string            `json:"encrypted-by-id,omitempty"`
	Properties           map[string]string `json:"properties,omitempty"`
}

// MarshalJSON writes the metadata in the modern layout; v1 metadata also
// gets the legacy "schema" and "partition-spec" members, for old readers,
// as the reference implementation writes them. Invalid metadata (see
// Validate) is refused rather than written.
func (m *Metadata) MarshalJSON() ([]byte, error) {
	if err := m.Validate(); err != nil {
		// The caller's metadata (a table built or updated in memory), as
		// Parse's is the file's (Corrupt).
		return nil, errkind.Default(errkind.InvalidArgument, err)
	}
	out, err := m.toJSON()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // paths and properties stay readable
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("writing table metadata: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Write writes the metadata as an indented metadata file.
func (m *Metadata) Write(w io.Writer) error {
	b, err := m.MarshalJSON()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return fmt.Errorf("writing table metadata: %w", err)
	}
	buf.WriteByte('\n')
	_, err = w.Write(buf.Bytes())
	return err
}

func (m *Metadata) toJSON() (*jsonMetadata, error) {
	v := m.FormatVersion
	out := &jsonMetadata{
		FormatVersion:       v,
		Location:            m.Location,
		LastUpdatedMs:       m.LastUpdatedMs,
		LastColumnID:        m.LastColumnID,
		CurrentSchemaID:     m.CurrentSchemaID,
		Schemas:             m.Schemas,
		DefaultSpecID:       m.DefaultSpecID,
		PartitionSpecs:      m.PartitionSpecs,
		LastPartitionID:     m.LastPartitionID,
		DefaultSortOrderID:  m.DefaultSortOrderID,
		SortOrders:          m.SortOrders,
		Properties:          m.Properties,
		Refs:                make(map[string]jsonRef, len(m.Refs)+1),
		Snapshots:           make([]jsonSnapshot, len(m.Snapshots)),
		Statistics:          make([]jsonStatisticsFile, len(m.Statistics)),
		PartitionStatistics: make([]jsonPartitionStatisticsFile, len(m.PartitionStatistics)),
		SnapshotLog:         make([]jsonSnapshotLogEntry, len(m.SnapshotLog)),
		MetadataLog:         make([]jsonMetadataLogEntry, len(m.MetadataLog)),
	}
	if v >= 2 || m.TableUUID != "" {
		out.TableUUID = &m.TableUUID
	}
	if v >= 2 {
		out.LastSequenceNumber = &m.LastSequenceNumber
	}
	if v >= 3 {
		out.NextRowID = &m.NextRowID
	}
	if out.Properties == nil {
		out.Properties = map[string]string{}
	}
	if v == 1 {
		out.Schema = m.CurrentSchema()
		fields, err := iceberg.MarshalPartitionFields(m.DefaultSpec().Fields)
		if err != nil {
			return nil, fmt.Errorf("writing table metadata: %w", err)
		}
		out.PartitionSpec = fields
	}
	// The reference implementation writes null for "no current snapshot"
	// from v3 on and -1 before.
	switch {
	case m.CurrentSnapshotID != nil:
		out.CurrentSnapshotID = json.RawMessage(fmt.Sprint(*m.CurrentSnapshotID))
	case v >= 3:
		out.CurrentSnapshotID = json.RawMessage("null")
	default:
		out.CurrentSnapshotID = json.RawMessage(fmt.Sprint(noSnapshot))
	}
	for name, r := range m.Refs {
		out.Refs[name] = jsonRef(r)
	}
	if _, ok := m.Refs[MainBranch]; !ok && m.CurrentSnapshotID != nil {
		out.Refs[MainBranch] = jsonRef{SnapshotID: *m.CurrentSnapshotID, Type: RefBranch}
	}
	for i := range m.Snapshots {
		out.Snapshots[i] = snapshotToJSON(&m.Snapshots[i])
	}
	for i, f := range m.Statistics {
		out.Statistics[i] = statisticsFileToJSON(f)
	}
	for i, f := range m.PartitionStatistics {
		out.PartitionStatistics[i] = jsonPartitionStatisticsFile(f)
	}
	for _, k := range m.EncryptionKeys {
		out.EncryptionKeys = append(out.EncryptionKeys, jsonEncryptionKey(k))
	}
	for i, e := range m.SnapshotLog {
		out.SnapshotLog[i] = jsonSnapshotLogEntry{TimestampMs: e.TimestampMs, SnapshotID: e.SnapshotID}
	}
	for i, e := range m.MetadataLog {
		out.MetadataLog[i] = jsonMetadataLogEntry{TimestampMs: e.TimestampMs, MetadataFile: e.MetadataFile}
	}
	return out, nil
}

func snapshotToJSON(s *Snapshot) jsonSnapshot {
	js := jsonSnapshot{
		SnapshotID: s.SnapshotID, ParentSnapshotID: s.ParentSnapshotID, TimestampMs: s.TimestampMs,
		Summary: s.Summary, ManifestList: s.ManifestList,
		SchemaID: s.SchemaID, FirstRowID: s.FirstRowID, AddedRows: s.AddedRows, KeyID: s.KeyID,
	}
	// As the reference implementation does, sequence number 0 (v1, or
	// kept from before an upgrade) is left out.
	if s.SequenceNumber > 0 {
		seq := s.SequenceNumber
		js.SequenceNumber = &seq
	}
	// Inline manifests are only for v1 snapshots without a manifest list.
	if s.ManifestList == "" {
		manifests := s.Manifests
		if manifests == nil {
			manifests = []string{}
		}
		js.Manifests = &manifests
	}
	return js
}
