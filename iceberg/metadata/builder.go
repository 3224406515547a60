package metadata

import (
	"fmt"
	"maps"
	"slices"
)

// Clone copies the metadata deeply enough that changing the copy's lists,
// maps, snapshots and refs leaves the original alone. Schemas, partition
// specs and sort orders are shared: they are never changed in place.
func (m *Metadata) Clone() *Metadata {
	c := *m
	c.Schemas = slices.Clone(m.Schemas)
	c.PartitionSpecs = slices.Clone(m.PartitionSpecs)
	c.SortOrders = slices.Clone(m.SortOrders)
	c.Properties = maps.Clone(m.Properties)
	if c.Properties == nil {
		c.Properties = map[string]string{}
	}
	c.Refs = maps.Clone(m.Refs)
	if c.Refs == nil {
		c.Refs = map[string]Ref{}
	}
	if m.CurrentSnapshotID != nil {
		id := *m.CurrentSnapshotID
		c.CurrentSnapshotID = &id
	}
	c.Snapshots = make([]Snapshot, len(m.Snapshots))
	for i := range m.Snapshots {
		c.Snapshots[i] = m.Snapshots[i]
		c.Snapshots[i].Summary = maps.Clone(m.Snapshots[i].Summary)
		c.Snapshots[i].Manifests = slices.Clone(m.Snapshots[i].Manifests)
	}
	c.Snapshots = nilIfEmpty(c.Snapshots)
	c.SnapshotLog = slices.Clone(m.SnapshotLog)
	c.MetadataLog = slices.Clone(m.MetadataLog)
	c.Statistics = slices.Clone(m.Statistics)
	c.PartitionStatistics = slices.Clone(m.PartitionStatistics)
	c.EncryptionKeys = slices.Clone(m.EncryptionKeys)
	return &c
}

// AddSnapshot appends a snapshot that no ref points at yet (the
// add-snapshot update; set-snapshot-ref makes it current). Its sequence
// number raises last-sequence-number.
func (m *Metadata) AddSnapshot(s Snapshot) error {
	if s.SnapshotID <= 0 {
		return fmt.Errorf("add snapshot: id %d is not positive", s.SnapshotID)
	}
	if m.SnapshotByID(s.SnapshotID) != nil {
		return fmt.Errorf("add snapshot: id %d is already used", s.SnapshotID)
	}
	if m.FormatVersion >= 2 && s.SequenceNumber <= m.LastSequenceNumber {
		return fmt.Errorf("add snapshot %d: sequence number %d is not above last-sequence-number %d", s.SnapshotID, s.SequenceNumber, m.LastSequenceNumber)
	}
	m.Snapshots = append(m.Snapshots, s)
	m.LastSequenceNumber = max(m.LastSequenceNumber, s.SequenceNumber)
	return nil
}

// AddPreviousMetadata records the metadata file this version replaces and
// keeps at most keep entries (at least 1), dropping the oldest. It returns
// the entries dropped, whose files a commit may delete.
func (m *Metadata) AddPreviousMetadata(file string, timestampMs int64, keep int) []MetadataLogEntry {
	m.MetadataLog = append(m.MetadataLog, MetadataLogEntry{MetadataFile: file, TimestampMs: timestampMs})
	keep = max(keep, 1)
	if len(m.MetadataLog) <= keep {
		return nil
	}
	cut := len(m.MetadataLog) - keep
	dropped := slices.Clone(m.MetadataLog[:cut])
	m.MetadataLog = slices.Clone(m.MetadataLog[cut:])
	return dropped
}

// RemoveSnapshots (the remove-snapshots update) drops snapshots (expiry) along with their statistics
// files. The snapshot log loses every entry up to and including the last
// one naming a removed snapshot, so what remains is a history without
// holes. Refs must not point at a removed snapshot.
func (m *Metadata) RemoveSnapshots(ids map[int64]bool) error {
	for name, r := range m.Refs {
		if ids[r.SnapshotID] {
			return fmt.Errorf("remove snapshots: %s %q points at snapshot %d", r.Type, name, r.SnapshotID)
		}
	}
	m.Snapshots = nilIfEmpty(slices.DeleteFunc(m.Snapshots, func(s Snapshot) bool { return ids[s.SnapshotID] }))
	last := -1
	for i, e := range m.SnapshotLog {
		if ids[e.SnapshotID] || m.SnapshotByID(e.SnapshotID) == nil {
			last = i
		}
	}
	m.SnapshotLog = nilIfEmpty(slices.Clone(m.SnapshotLog[last+1:]))
	m.Statistics = nilIfEmpty(slices.DeleteFunc(m.Statistics, func(f StatisticsFile) bool { return ids[f.SnapshotID] }))
	m.PartitionStatistics = nilIfEmpty(slices.DeleteFunc(m.PartitionStatistics, func(f PartitionStatisticsFile) bool { return ids[f.SnapshotID] }))
	return nil
}
