package maintain

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// PartitionStats is one row of a partition statistics file: what the live
// files of one partition tuple of one spec add up to. The spec keys rows
// by spec and tuple (Java's PartitionMap), so a tuple written under two
// specs is two rows, unlike the partitions metadata table, which merges
// them; that, the deletion vectors counted apart and the removals that
// date a partition are why this is not reader/inspect's aggregation.
type PartitionStats struct {
	// Partition is the tuple in the file's partition type
	// (iceberg.PartitionStatsType: every spec's fields by field id), nil
	// where the spec has no such field.
	Partition []any
	SpecID    int32
	// DataRecordCount, DataFileCount and TotalDataFileSize are the data
	// files'.
	DataRecordCount   int64
	DataFileCount     int32
	TotalDataFileSize int64
	// PositionDeleteRecordCount counts the rows position delete files
	// and deletion vectors delete; PositionDeleteFileCount the position
	// delete files without the vectors, DVCount the vectors.
	PositionDeleteRecordCount int64
	PositionDeleteFileCount   int32
	DVCount                   int32
	EqualityDeleteRecordCount int64
	EqualityDeleteFileCount   int32
	// TotalRecordCount is the exact count of live rows, known only for a
	// partition without delete files (nil otherwise: the spec has it
	// null when finding it would take reading data).
	TotalRecordCount *int64
	// LastUpdatedAt (ms since the epoch) and LastUpdatedSnapshotID name
	// the newest snapshot that added or removed a file of the partition;
	// nil when every such snapshot has expired.
	LastUpdatedAt         *int64
	LastUpdatedSnapshotID *int64
}

// hasFiles reports whether any live file is left in the partition.
func (p *PartitionStats) hasFiles() bool {
	return p.DataFileCount != 0 || p.PositionDeleteFileCount != 0 || p.DVCount != 0 || p.EqualityDeleteFileCount != 0
}

// negative reports a count below zero: an incremental computation that
// removed a file its base never counted.
func (p *PartitionStats) negative() bool {
	return p.DataRecordCount < 0 || p.DataFileCount < 0 || p.TotalDataFileSize < 0 ||
		p.PositionDeleteRecordCount < 0 || p.PositionDeleteFileCount < 0 || p.DVCount < 0 ||
		p.EqualityDeleteRecordCount < 0 || p.EqualityDeleteFileCount < 0
}

// addFile counts one file, sign +1 (live) or -1 (removed since the base).
func (p *PartitionStats) addFile(f *manifest.DataFile, sign int64) {
	n := int32(sign)
	switch f.Content {
	case manifest.ContentData:
		p.DataRecordCount += sign * f.RecordCount
		p.DataFileCount += n
		p.TotalDataFileSize += sign * f.FileSizeInBytes
	case manifest.ContentPositionDeletes:
		p.PositionDeleteRecordCount += sign * f.RecordCount
		if strings.EqualFold(f.FileFormat, "puffin") {
			p.DVCount += n
		} else {
			p.PositionDeleteFileCount += n
		}
	case manifest.ContentEqualityDeletes:
		p.EqualityDeleteRecordCount += sign * f.RecordCount
		p.EqualityDeleteFileCount += n
	}
}

// merge adds another computation's counts for the same key.
func (p *PartitionStats) merge(o *PartitionStats) {
	p.DataRecordCount += o.DataRecordCount
	p.DataFileCount += o.DataFileCount
	p.TotalDataFileSize += o.TotalDataFileSize
	p.PositionDeleteRecordCount += o.PositionDeleteRecordCount
	p.PositionDeleteFileCount += o.PositionDeleteFileCount
	p.DVCount += o.DVCount
	p.EqualityDeleteRecordCount += o.EqualityDeleteRecordCount
	p.EqualityDeleteFileCount += o.EqualityDeleteFileCount
	if o.LastUpdatedAt != nil && o.LastUpdatedSnapshotID != nil {
		p.touch(*o.LastUpdatedAt, *o.LastUpdatedSnapshotID)
	}
}

// touch records that snapshot id, committed at ms, changed the partition,
// if it is newer than what did so far. Java keeps the latest commit
// time; equal times go to the larger snapshot id, so the answer does not
// depend on the order manifests are read in.
func (p *PartitionStats) touch(ms, id int64) {
	if p.LastUpdatedAt != nil && (ms < *p.LastUpdatedAt || ms == *p.LastUpdatedAt && id <= *p.LastUpdatedSnapshotID) {
		return
	}
	p.LastUpdatedAt, p.LastUpdatedSnapshotID = &ms, &id
}

// finish sets what follows from the counts: the exact live row count of a
// partition without deletes.
func (p *PartitionStats) finish() {
	p.TotalRecordCount = nil
	if p.PositionDeleteFileCount == 0 && p.DVCount == 0 && p.EqualityDeleteFileCount == 0 && p.PositionDeleteRecordCount == 0 && p.EqualityDeleteRecordCount == 0 {
		n := p.DataRecordCount
		p.TotalRecordCount = &n
	}
}

// partitionStatsMap is partition statistics by spec and tuple.
type partitionStatsMap struct {
	partType *iceberg.StructType
	rows     map[string]*PartitionStats
	// slots places each spec's tuples into partType: per field of
	// partType, the position in the spec's tuple, or -1.
	slots   map[int][]int
	key     []byte
	scratch []byte
}

func newPartitionStatsMap(md *metadata.Metadata, partType *iceberg.StructType) *partitionStatsMap {
	m := &partitionStatsMap{partType: partType, rows: map[string]*PartitionStats{}, slots: map[int][]int{}}
	for _, spec := range md.PartitionSpecs {
		pos := make([]int, len(partType.Fields))
		for u, uf := range partType.Fields {
			pos[u] = slices.IndexFunc(spec.Fields, func(pf iceberg.PartitionField) bool { return pf.FieldID == uf.ID })
		}
		m.slots[spec.ID] = pos
	}
	return m
}

// keyOf sets m.key to a byte string naming (spec, tuple): the spec id,
// then per field of the file's partition type a null mark or the value's
// length and binary form, so no two keys collide.
func (m *partitionStatsMap) keyOf(specID int32, tuple []any) error {
	m.key = binary.BigEndian.AppendUint32(m.key[:0], uint32(specID))
	for u, f := range m.partType.Fields {
		v := tuple[u]
		if v == nil {
			m.key = append(m.key, 0)
			continue
		}
		b, err := iceberg.AppendValueBytes(m.scratch[:0], f.Type, v)
		if err != nil {
			return fmt.Errorf("partition field %s: %w", f.Name, err)
		}
		m.scratch = b
		m.key = append(m.key, 1)
		m.key = binary.AppendUvarint(m.key, uint64(len(b)))
		m.key = append(m.key, b...)
	}
	return nil
}

// of is the row of the file's partition, made on first use.
func (m *partitionStatsMap) of(f *manifest.DataFile) (*PartitionStats, error) {
	pos, ok := m.slots[f.SpecID]
	if !ok {
		return nil, errkind.Errorf(errkind.Corrupt, "file %s names partition spec %d, which the table does not have", f.FilePath, f.SpecID)
	}
	tuple := make([]any, len(m.partType.Fields))
	for u, j := range pos {
		if j < 0 {
			continue
		}
		if j >= len(f.Partition) {
			return nil, errkind.Errorf(errkind.Corrupt, "file %s has %d partition values; spec %d has more fields", f.FilePath, len(f.Partition), f.SpecID)
		}
		tuple[u] = f.Partition[j]
	}
	return m.row(int32(f.SpecID), tuple)
}

// row is the row of (spec, tuple), made on first use; tuple is kept.
func (m *partitionStatsMap) row(specID int32, tuple []any) (*PartitionStats, error) {
	if err := m.keyOf(specID, tuple); err != nil {
		return nil, err
	}
	p := m.rows[string(m.key)]
	if p == nil {
		p = &PartitionStats{Partition: tuple, SpecID: specID}
		m.rows[string(m.key)] = p
	}
	return p, nil
}

// sorted is the rows that still have a live file, sorted by partition
// (ascending, nulls first, as the spec asks) and then spec id. A
// partition whose files were all removed is left out: it is no partition
// of the snapshot (Java's full computation keeps one only while the
// manifest that removed its files is still listed, its incremental one
// always; leaving it out makes the two agree).
func (m *partitionStatsMap) sorted() []*PartitionStats {
	out := make([]*PartitionStats, 0, len(m.rows))
	for _, p := range m.rows {
		if p.hasFiles() {
			p.finish()
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *PartitionStats) int {
		for u, f := range m.partType.Fields {
			if c := iceberg.Compare(f.Type, a.Partition[u], b.Partition[u]); c != 0 {
				return c
			}
		}
		return int(a.SpecID) - int(b.SpecID)
	})
	return out
}

// countManifests adds the entries of manifests to m. Full (a snapshot's
// every manifest): live entries count, and a removed one dates its
// partition. Incremental (the manifests the snapshots after a base
// added): files added count, files removed are taken off, and files
// carried over (EXISTING) were counted in the base already; an entry
// whose snapshot is not the one that wrote its manifest is carried over
// too, whatever its status says.
func countManifests(ctx context.Context, t *table.Table, manifests []manifest.ManifestFile, m *partitionStatsMap, incremental bool) error {
	snaps := make(map[int64]*metadata.Snapshot, len(t.Metadata.Snapshots))
	for i := range t.Metadata.Snapshots {
		snaps[t.Metadata.Snapshots[i].SnapshotID] = &t.Metadata.Snapshots[i]
	}
	return t.StreamManifests(ctx, manifests, func(i int, entries []manifest.Entry) error {
		mf := &manifests[i]
		for k := range entries {
			e := &entries[k]
			var sign int64
			switch {
			case incremental && e.SnapshotID != mf.AddedSnapshotID:
				continue
			case incremental && e.Status == manifest.StatusAdded:
				sign = 1
			case incremental && e.Status == manifest.StatusDeleted:
				sign = -1
			case incremental:
				continue
			case e.Status != manifest.StatusDeleted:
				sign = 1
			}
			p, err := m.of(&e.DataFile)
			if err != nil {
				return fmt.Errorf("manifest %s: %w", mf.Path, err)
			}
			if sign != 0 {
				p.addFile(&e.DataFile, sign)
			}
			if s := snaps[e.SnapshotID]; s != nil {
				p.touch(s.TimestampMs, s.SnapshotID)
			}
		}
		return nil
	})
}

// computePartitionStats counts every manifest of snap.
func computePartitionStats(ctx context.Context, t *table.Table, snap *metadata.Snapshot, partType *iceberg.StructType) ([]*PartitionStats, error) {
	manifests, err := t.ManifestList(ctx, snap)
	if err != nil {
		return nil, err
	}
	m := newPartitionStatsMap(t.Metadata, partType)
	if err := countManifests(ctx, t, manifests, m, false); err != nil {
		return nil, err
	}
	return m.sorted(), nil
}
