package metadata

import "github.com/floedb/floe/iceberg"

// normalise gives parsed metadata one in-memory form whatever optional
// spelling the file used ([] or absent, {} or absent), so that parsing what
// Marshal wrote yields a deep-equal Metadata. It also adds the main branch
// that current-snapshot-id implies.
func normalise(m *Metadata) {
	if m.Properties == nil {
		m.Properties = map[string]string{}
	}
	if m.Refs == nil {
		m.Refs = map[string]Ref{}
	}
	if _, ok := m.Refs[MainBranch]; !ok && m.CurrentSnapshotID != nil {
		m.Refs[MainBranch] = Ref{SnapshotID: *m.CurrentSnapshotID, Type: RefBranch}
	}
	for _, s := range m.Schemas {
		if len(s.IdentifierFieldIDs) == 0 {
			s.IdentifierFieldIDs = nil
		}
	}
	for i := range m.PartitionSpecs {
		if m.PartitionSpecs[i].Fields == nil {
			m.PartitionSpecs[i].Fields = []iceberg.PartitionField{}
		}
	}
	for i := range m.Snapshots {
		s := &m.Snapshots[i]
		s.Manifests = nilIfEmpty(s.Manifests)
		if len(s.Summary) == 0 {
			s.Summary = nil
		}
	}
	for i := range m.Statistics {
		f := &m.Statistics[i]
		f.BlobMetadata = nilIfEmpty(f.BlobMetadata)
		for j := range f.BlobMetadata {
			b := &f.BlobMetadata[j]
			b.Fields = nilIfEmpty(b.Fields)
			if len(b.Properties) == 0 {
				b.Properties = nil
			}
		}
	}
	for i := range m.EncryptionKeys {
		if len(m.EncryptionKeys[i].Properties) == 0 {
			m.EncryptionKeys[i].Properties = nil
		}
	}
	m.Snapshots = nilIfEmpty(m.Snapshots)
	m.SnapshotLog = nilIfEmpty(m.SnapshotLog)
	m.MetadataLog = nilIfEmpty(m.MetadataLog)
	m.Statistics = nilIfEmpty(m.Statistics)
	m.PartitionStatistics = nilIfEmpty(m.PartitionStatistics)
	m.EncryptionKeys = nilIfEmpty(m.EncryptionKeys)
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
