package manifest

import "fmt"

// ManifestContent says whether a manifest tracks data files or delete files.
type ManifestContent int

const (
	ManifestContentData    ManifestContent = 0
	ManifestContentDeletes ManifestContent = 1
)

func (c ManifestContent) String() string {
	switch c {
	case ManifestContentData:
		return "data"
	case ManifestContentDeletes:
		return "deletes"
	}
	return fmt.Sprintf("ManifestContent(%d)", int(c))
}

// EntryStatus tracks when a file entered or left the table.
type EntryStatus int

const (
	StatusExisting EntryStatus = 0
	StatusAdded    EntryStatus = 1
	StatusDeleted  EntryStatus = 2
)

func (s EntryStatus) String() string {
	switch s {
	case StatusExisting:
		return "EXISTING"
	case StatusAdded:
		return "ADDED"
	case StatusDeleted:
		return "DELETED"
	}
	return fmt.Sprintf("EntryStatus(%d)", int(s))
}

// FileContent is what a data_file entry holds.
type FileContent int

const (
	ContentData            FileContent = 0
	ContentPositionDeletes FileContent = 1
	ContentEqualityDeletes FileContent = 2
)

func (c FileContent) String() string {
	switch c {
	case ContentData:
		return "DATA"
	case ContentPositionDeletes:
		return "POSITION_DELETES"
	case ContentEqualityDeletes:
		return "EQUALITY_DELETES"
	}
	return fmt.Sprintf("FileContent(%d)", int(c))
}

const (
	// UnassignedSequenceNumber marks a sequence number that the commit has
	// not assigned yet (a manifest just written), and an EXISTING or
	// DELETED entry's file sequence number that an old writer (Hive, early
	// Iceberg) never recorded. Writers store it as null.
	UnassignedSequenceNumber int64 = -1

	// UnknownCount stands for a null file or row count in a v1 manifest
	// list, which the spec says to read as "not zero".
	UnknownCount = -1
)

// FieldSummary summarises one partition field over a manifest's files.
// Bounds use the binary single-value encoding of the partition field's
// type and are nil when every value is null or NaN.
type FieldSummary struct {
	ContainsNull bool
	ContainsNaN  *bool // nil when the writer did not record it
	LowerBound   []byte
	UpperBound   []byte
}

// ManifestFile is one manifest-list entry.
type ManifestFile struct {
	Path            string
	Length          int64
	PartitionSpecID int
	Content         ManifestContent
	// SequenceNumber is the sequence number of the commit that added the
	// manifest; MinSequenceNumber the smallest data sequence number of its
	// live files. Both are 0 in v1 lists and UnassignedSequenceNumber in a
	// ManifestFile that WriteManifest returns.
	SequenceNumber    int64
	MinSequenceNumber int64
	AddedSnapshotID   int64
	// File and row counts per entry status; UnknownCount when a v1 list
	// left them null.
	AddedFilesCount    int
	ExistingFilesCount int
	DeletedFilesCount  int
	AddedRowsCount     int64
	ExistingRowsCount  int64
	DeletedRowsCount   int64
	Partitions         []FieldSummary // one per spec field, or nil
	KeyMetadata        []byte
	// FirstRowID is the v3 row id the manifest's null-first_row_id data
	// files start from; nil for delete manifests and before v3.
	FirstRowID *int64
}

// HasAddedFiles reports whether the manifest may hold ADDED entries.
func (m *ManifestFile) HasAddedFiles() bool { return m.AddedFilesCount != 0 }

// HasExistingFiles reports whether the manifest may hold EXISTING entries.
func (m *ManifestFile) HasExistingFiles() bool { return m.ExistingFilesCount != 0 }

// HasDeletedFiles reports whether the manifest may hold DELETED entries.
func (m *ManifestFile) HasDeletedFiles() bool { return m.DeletedFilesCount != 0 }

// Entry is one manifest entry after inheritance: the values below are the
// effective ones whether the file stored them or left them to be inherited.
type Entry struct {
	Status     EntryStatus
	SnapshotID int64
	// SequenceNumber is the data sequence number (the one delete matching
	// uses); FileSequenceNumber the sequence number of the commit that
	// added the file. FileSequenceNumber is UnassignedSequenceNumber for an
	// EXISTING or DELETED entry whose writer never recorded it.
	SequenceNumber     int64
	FileSequenceNumber int64
	// The *Inherited flags say which values were null in the manifest and
	// came from the manifest list (0 for sequence numbers of v1 manifests).
	// WriteManifest writes an inherited value of an ADDED entry as null
	// again, so a manifest written before its commit stays reusable.
	SnapshotIDInherited         bool
	SequenceNumberInherited     bool
	FileSequenceNumberInherited bool
	DataFile                    DataFile
}

// DataFile is the data_file struct of a manifest entry: a data file, a
// position or equality delete file, or a deletion vector.
type DataFile struct {
	Content FileContent
	// FilePath is the location exactly as the manifest stores it.
	FilePath string
	// FileFormat is as written ("PARQUET" from Java, "parquet" per spec):
	// compare it case-insensitively.
	FileFormat string
	// Partition holds the partition tuple in the canonical Go forms of
	// package iceberg, one value per field of the manifest's spec, in spec
	// order (nil = null).
	Partition []any
	SpecID    int
	// RecordCount is the number of rows, or a deletion vector's cardinality.
	RecordCount     int64
	FileSizeInBytes int64
	// Metrics are the column metrics by field id (sizes, value, null and
	// NaN counts, bounds), in a compact form: see Metrics.
	Metrics      Metrics
	KeyMetadata  []byte
	SplitOffsets []int64
	EqualityIDs  []int
	SortOrderID  *int
	// FirstRowID is the v3 row id of the file's first row, inherited from
	// the manifest when the file left it null; always nil for delete files.
	FirstRowID *int64
	// ReferencedDataFile is the one data file a position delete file or
	// deletion vector applies to; "" when not set.
	ReferencedDataFile string
	// ContentOffset and ContentSizeInBytes locate a deletion vector's blob
	// inside its Puffin file.
	ContentOffset      *int64
	ContentSizeInBytes *int64
}

// EmptyAsNil is f with its empty slices nil: DataFile's fields do not
// tell empty from absent, and neither do its encodings, so two files that
// differ only so are the same file. (Metrics are canonical already.)
func (f DataFile) EmptyAsNil() DataFile {
	if len(f.KeyMetadata) == 0 {
		f.KeyMetadata = nil
	}
	if len(f.SplitOffsets) == 0 {
		f.SplitOffsets = nil
	}
	if len(f.EqualityIDs) == 0 {
		f.EqualityIDs = nil
	}
	if len(f.Partition) == 0 {
		f.Partition = nil
	}
	return f
}
