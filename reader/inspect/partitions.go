package inspect

import (
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"slices"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// Partitions is one row per partition of a snapshot's live files (Java's
// PartitionsTable, pyiceberg's inspect.partitions): the partition tuple
// under the table's unified partition type, so a partition written under
// two specs is one row; its data files' record, file and byte counts; its
// position and equality delete files' record and file counts; and the
// snapshot that added its newest file. An unpartitioned table has no
// partition and spec_id columns and (when it has files) one row, as in
// Java.
const Partitions Kind = "partitions"

func init() { register(Partitions, openPartitions) }

// Field ids as Java numbers them.
func partitionsSchema(unified *iceberg.StructType) *iceberg.Schema {
	var fields []iceberg.NestedField
	if len(unified.Fields) > 0 {
		fields = append(fields,
			iceberg.NestedField{ID: 1, Name: "partition", Type: unified, Required: true},
			iceberg.NestedField{ID: 4, Name: "spec_id", Type: iceberg.IntType{}, Required: true})
	}
	fields = append(fields,
		iceberg.NestedField{ID: 2, Name: "record_count", Type: iceberg.LongType{}, Required: true, Doc: "Count of records in data files"},
		iceberg.NestedField{ID: 3, Name: "file_count", Type: iceberg.IntType{}, Required: true, Doc: "Count of data files"},
		iceberg.NestedField{ID: 11, Name: "total_data_file_size_in_bytes", Type: iceberg.LongType{}, Required: true, Doc: "Total size in bytes of data files"},
		iceberg.NestedField{ID: 5, Name: "position_delete_record_count", Type: iceberg.LongType{}, Required: true, Doc: "Count of records in position delete files"},
		iceberg.NestedField{ID: 6, Name: "position_delete_file_count", Type: iceberg.IntType{}, Required: true, Doc: "Count of position delete files"},
		iceberg.NestedField{ID: 7, Name: "equality_delete_record_count", Type: iceberg.LongType{}, Required: true, Doc: "Count of records in equality delete files"},
		iceberg.NestedField{ID: 8, Name: "equality_delete_file_count", Type: iceberg.IntType{}, Required: true, Doc: "Count of equality delete files"},
		iceberg.NestedField{ID: 9, Name: "last_updated_at", Type: iceberg.TimestamptzType{}, Doc: "Commit time of snapshot that last updated this partition"},
		iceberg.NestedField{ID: 10, Name: "last_updated_snapshot_id", Type: iceberg.LongType{}, Doc: "Id of snapshot that last updated this partition"},
	)
	return iceberg.NewSchema(0, fields)
}

func openPartitions(t *table.Table, opts Options) (*source, error) {
	snap, err := snapshotOf(t.Metadata, opts)
	if err != nil {
		return nil, err
	}
	unified, err := t.UnifiedPartitionType()
	if err != nil {
		return nil, fmt.Errorf("inspect partitions: %w", err)
	}
	schema := partitionsSchema(unified)
	// A filter on partition fields skips the manifests whose summaries
	// rule it out, as Java's PartitionsTable does: every file of a
	// partition the filter keeps sits in a manifest that might match.
	prune := newManifestPruner(t, schema, opts)
	return &source{schema: schema, rows: func(ctx context.Context) iter.Seq2[[]any, error] {
		return func(yield func([]any, error) bool) {
			if snap == nil {
				return
			}
			parts, err := aggregatePartitions(ctx, t, snap, unified, prune)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, p := range parts {
				if !yield(p.row(len(unified.Fields) > 0), nil) {
					return
				}
			}
		}
	}}, nil
}

// partitionAgg is what one partition's live files add up to.
type partitionAgg struct {
	tuple                          []any
	specID                         int
	records, bytes                 int64
	posRecords, eqRecords          int64
	files, posFiles, eqFiles       int32
	updated                        bool
	updatedAtMs, updatedBySnapshot int64
}

func (p *partitionAgg) row(partitioned bool) []any {
	var at, by any
	if p.updated {
		at, by = p.updatedAtMs*1000, p.updatedBySnapshot
	}
	row := []any{p.records, p.files, p.bytes, p.posRecords, p.posFiles, p.eqRecords, p.eqFiles, at, by}
	if partitioned {
		row = append([]any{p.tuple, int32(p.specID)}, row...)
	}
	return row
}

// newer reports whether a file added by snapshot (ms, id) of spec is
// newer than what set p's last update so far. Java keeps the latest
// commit time; ties go to the larger snapshot id, then the larger spec
// id, so the answer does not depend on the order of manifests.
// The spec id follows the newest file too (Java keeps whichever file it
// saw last, an order that varies between runs).
func (p *partitionAgg) newer(ms, id int64, spec int) bool {
	if !p.updated {
		return true
	}
	if ms != p.updatedAtMs {
		return ms > p.updatedAtMs
	}
	if id != p.updatedBySnapshot {
		return id > p.updatedBySnapshot
	}
	return spec > p.specID
}

// add counts one live file added by snapshot s (nil when it has expired:
// the file still counts, its time cannot).
func (p *partitionAgg) add(f *manifest.DataFile, s *metadata.Snapshot) {
	switch f.Content {
	case manifest.ContentData:
		p.records += f.RecordCount
		p.files++
		p.bytes += f.FileSizeInBytes
	case manifest.ContentPositionDeletes:
		p.posRecords += f.RecordCount
		p.posFiles++
	case manifest.ContentEqualityDeletes:
		p.eqRecords += f.RecordCount
		p.eqFiles++
	}
	if s != nil && p.newer(s.TimestampMs, s.SnapshotID, f.SpecID) {
		p.updated, p.updatedAtMs, p.updatedBySnapshot, p.specID = true, s.TimestampMs, s.SnapshotID, f.SpecID
	}
}

// specSlots places a spec's partition tuples into the unified type: for
// each unified field, its position in the spec's tuple, or -1.
type specSlots struct {
	spec     *iceberg.PartitionSpec
	partType *iceberg.StructType
	err      error
	pos      []int
}

func unifiedSlots(t *table.Table, unified *iceberg.StructType) map[int]*specSlots {
	out := map[int]*specSlots{}
	for i := range t.Metadata.PartitionSpecs {
		spec := &t.Metadata.PartitionSpecs[i]
		s := &specSlots{spec: spec}
		s.partType, s.err = t.PartitionType(spec)
		s.pos = make([]int, len(unified.Fields))
		for u, uf := range unified.Fields {
			s.pos[u] = -1
			for j, pf := range spec.Fields {
				if pf.FieldID == uf.ID {
					s.pos[u] = j
				}
			}
		}
		out[spec.ID] = s
	}
	return out
}

// partitionCounter counts the live files of the manifests one worker
// reads, by unified partition tuple.
type partitionCounter struct {
	unified *iceberg.StructType
	parts   map[string]*partitionAgg
	key     []byte
	scratch []byte
}

// count adds a manifest's live entries.
func (c *partitionCounter) count(entries []manifest.Entry, slots *specSlots, committed *snapshotIndex) error {
	for i := range entries {
		e := &entries[i]
		if e.Status == manifest.StatusDeleted {
			continue
		}
		f := &e.DataFile
		if len(f.Partition) != len(slots.spec.Fields) {
			return fmt.Errorf("data file %s has %d partition values; spec %d has %d fields", f.FilePath, len(f.Partition), slots.spec.ID, len(slots.spec.Fields))
		}
		if err := c.keyOf(f.Partition, slots); err != nil {
			return fmt.Errorf("data file %s: %w", f.FilePath, err)
		}
		p, ok := c.parts[string(c.key)]
		if !ok {
			p = &partitionAgg{tuple: make([]any, len(c.unified.Fields)), specID: f.SpecID}
			for u, j := range slots.pos {
				if j >= 0 {
					p.tuple[u] = f.Partition[j]
				}
			}
			c.parts[string(c.key)] = p
		}
		p.add(f, committed.of(e.SnapshotID))
	}
	return nil
}

// keyOf sets c.key to a byte string that identifies the tuple under the
// unified type: per field a null mark, or the value's length and binary
// form, so no two tuples share a key.
func (c *partitionCounter) keyOf(tuple []any, slots *specSlots) error {
	c.key = c.key[:0]
	for u, j := range slots.pos {
		var v any
		if j >= 0 {
			v = tuple[j]
		}
		if v == nil {
			c.key = append(c.key, 0)
			continue
		}
		b, err := iceberg.AppendValueBytes(c.scratch[:0], c.unified.Fields[u].Type, v)
		if err != nil {
			return fmt.Errorf("partition field %s: %w", c.unified.Fields[u].Name, err)
		}
		c.scratch = b
		c.key = append(c.key, 1)
		c.key = binary.AppendUvarint(c.key, uint64(len(b)))
		c.key = append(c.key, b...)
	}
	return nil
}

// aggregatePartitions reads the snapshot's manifests as planning does (a
// few ahead, concurrently), counting each one's live entries as it
// arrives: memory is the partitions and the manifests in flight, never
// the snapshot's entries. The partitions come back sorted by tuple.
func aggregatePartitions(ctx context.Context, t *table.Table, snap *metadata.Snapshot, unified *iceberg.StructType, prune *manifestPruner) ([]*partitionAgg, error) {
	manifests, err := t.ManifestList(ctx, snap)
	if err != nil {
		return nil, err
	}
	// A manifest with neither added nor existing files holds only DELETED
	// entries (unknown counts are -1, so those are read).
	manifests = slices.DeleteFunc(manifests, func(mf manifest.ManifestFile) bool {
		return mf.AddedFilesCount == 0 && mf.ExistingFilesCount == 0 || !prune.keep(&mf)
	})
	slots := unifiedSlots(t, unified)
	for _, mf := range manifests {
		s := slots[mf.PartitionSpecID]
		if s == nil {
			return nil, fmt.Errorf("manifest %s uses partition spec %d, which the table does not have", mf.Path, mf.PartitionSpecID)
		}
		if s.err != nil {
			return nil, fmt.Errorf("manifest %s: %w", mf.Path, s.err)
		}
	}
	committed := indexSnapshots(t.Metadata)
	c := &partitionCounter{unified: unified, parts: map[string]*partitionAgg{}}
	err = t.StreamManifests(ctx, manifests, func(i int, entries []manifest.Entry) error {
		if err := c.count(entries, slots[manifests[i].PartitionSpecID], committed); err != nil {
			return fmt.Errorf("manifest %s: %w", manifests[i].Path, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*partitionAgg, 0, len(c.parts))
	for _, p := range c.parts {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *partitionAgg) int {
		for u, f := range unified.Fields {
			if c := iceberg.Compare(f.Type, a.tuple[u], b.tuple[u]); c != 0 {
				return c
			}
		}
		return 0
	})
	return out, nil
}

// snapshotIndex finds the snapshot a manifest entry names.
type snapshotIndex struct {
	byID map[int64]*metadata.Snapshot
	// byDouble holds the snapshots by their ids as float64, for metadata
	// whose ids a tool rounded through doubles (some of Impala's tables
	// say 5788798547140820000 where their manifests say
	// 5788798547140819570); nil marks a value two snapshots share.
	byDouble map[float64]*metadata.Snapshot
}

func indexSnapshots(md *metadata.Metadata) *snapshotIndex {
	ix := &snapshotIndex{byID: make(map[int64]*metadata.Snapshot, len(md.Snapshots)), byDouble: make(map[float64]*metadata.Snapshot, len(md.Snapshots))}
	for i := range md.Snapshots {
		s := &md.Snapshots[i]
		ix.byID[s.SnapshotID] = s
		d := float64(s.SnapshotID)
		if _, dup := ix.byDouble[d]; dup {
			ix.byDouble[d] = nil
		} else {
			ix.byDouble[d] = s
		}
	}
	return ix
}

// of is the snapshot with id, or else the one snapshot whose id rounds to
// the same double; nil when there is none (expired). Java finds only the
// exact id, and leaves last_updated_* null for a table whose metadata
// rounded its ids.
func (ix *snapshotIndex) of(id int64) *metadata.Snapshot {
	if s, ok := ix.byID[id]; ok {
		return s
	}
	return ix.byDouble[float64(id)]
}
