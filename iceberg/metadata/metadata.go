package metadata

import "github.com/floedb/floe/iceberg"

// MaxFormatVersion is the newest table format version floe reads and writes.
const MaxFormatVersion = 3

// Ref types.
const (
	RefBranch = "branch"
	RefTag    = "tag"
)

// MainBranch is the branch that current-snapshot-id always points at.
const MainBranch = "main"

// Metadata is one table metadata file, normalised to the modern (v2) layout
// whatever version it was read from: a v1 file's single schema and partition
// spec become one-element Schemas and PartitionSpecs, a missing sort order
// list becomes the unsorted order, and a main branch is added when
// current-snapshot-id is set without one.
//
// Empty lists are nil and Properties and Refs are never nil, so metadata
// that is parsed, written and parsed again compares equal.
type Metadata struct {
	FormatVersion int
	// TableUUID may be empty in v1.
	TableUUID string
	Location  string
	// LastSequenceNumber is 0 in v1.
	LastSequenceNumber int64
	LastUpdatedMs      int64
	LastColumnID       int

	Schemas         []*iceberg.Schema
	CurrentSchemaID int

	PartitionSpecs  []iceberg.PartitionSpec
	DefaultSpecID   int
	LastPartitionID int

	Properties map[string]string

	// CurrentSnapshotID is nil when the table has no current snapshot (the
	// file said -1, null or nothing).
	CurrentSnapshotID *int64
	Snapshots         []Snapshot
	SnapshotLog       []SnapshotLogEntry
	MetadataLog       []MetadataLogEntry

	SortOrders         []iceberg.SortOrder
	DefaultSortOrderID int

	Refs map[string]Ref

	Statistics          []StatisticsFile
	PartitionStatistics []PartitionStatisticsFile

	// NextRowID is the v3 row-lineage counter; 0 before v3.
	NextRowID      int64
	EncryptionKeys []EncryptionKey
}

// Snapshot is the state of the table at one commit.
type Snapshot struct {
	SnapshotID       int64
	ParentSnapshotID *int64
	// SequenceNumber is 0 for v1 snapshots.
	SequenceNumber int64
	TimestampMs    int64
	// ManifestList is the path of the manifest list; empty only for old v1
	// snapshots that list their manifests inline in Manifests instead.
	ManifestList string
	Manifests    []string
	// Summary holds "operation" (append, replace, overwrite or delete) and
	// free-form counters; nil when the file had none (v1 only).
	Summary map[string]string
	// SchemaID is the schema current when the snapshot was written; nil for
	// snapshots from old writers.
	SchemaID *int
	// FirstRowID and AddedRows are v3 row lineage; nil for snapshots written
	// before the table was upgraded to v3.
	FirstRowID *int64
	AddedRows  *int64
	// KeyID names the encryption key of the manifest list's key metadata.
	KeyID *string
}

// Operation is the summary's "operation", or "" when there is none.
func (s *Snapshot) Operation() string { return s.Summary["operation"] }

// Ref is a named branch or tag pointing at a snapshot, with its retention
// settings (nil = the table-property default).
type Ref struct {
	SnapshotID int64
	Type       string // RefBranch or RefTag
	// MinSnapshotsToKeep and MaxSnapshotAgeMs apply to branches only.
	MinSnapshotsToKeep *int
	MaxSnapshotAgeMs   *int64
	MaxRefAgeMs        *int64
}

// SnapshotLogEntry records that SnapshotID became current at TimestampMs.
type SnapshotLogEntry struct {
	SnapshotID  int64
	TimestampMs int64
}

// MetadataLogEntry records a previous metadata file.
type MetadataLogEntry struct {
	MetadataFile string
	TimestampMs  int64
}

// StatisticsFile is a Puffin file of table statistics for one snapshot.
type StatisticsFile struct {
	SnapshotID            int64
	StatisticsPath        string
	FileSizeInBytes       int64
	FileFooterSizeInBytes int64
	// KeyMetadata is base64 text, kept as written.
	KeyMetadata  string
	BlobMetadata []BlobMetadata
}

// BlobMetadata describes one statistics blob of a StatisticsFile.
type BlobMetadata struct {
	Type           string
	SnapshotID     int64
	SequenceNumber int64
	Fields         []int
	Properties     map[string]string
}

// PartitionStatisticsFile is a partition statistics file for one snapshot.
type PartitionStatisticsFile struct {
	SnapshotID      int64
	StatisticsPath  string
	FileSizeInBytes int64
}

// EncryptionKey is a table encryption key (v3). EncryptedKeyMetadata is base64
// text, kept as written.
type EncryptionKey struct {
	KeyID                string
	EncryptedKeyMetadata string
	EncryptedByID        string
	Properties           map[string]string
}
