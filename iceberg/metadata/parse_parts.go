package metadata

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// parseSnapshot reads one element of "snapshots".
//
// sequence-number is read as optional in every version: the spec requires
// it from v2, but the reference implementation omits it for sequence number
// 0, which is what snapshots kept from before a v1 table's upgrade have.
func parseSnapshot(raw json.RawMessage, i, version int) (Snapshot, error) {
	o := parseObject(raw, fmt.Sprintf("snapshots[%d]", i))
	var s Snapshot
	o.required("snapshot-id", &s.SnapshotID)
	if o.err != nil {
		return s, o.err
	}
	o.what = fmt.Sprintf("snapshot %d", s.SnapshotID)
	o.optional("parent-snapshot-id", &s.ParentSnapshotID)
	o.optional("sequence-number", &s.SequenceNumber)
	o.required("timestamp-ms", &s.TimestampMs)
	o.optional("manifest-list", &s.ManifestList)
	if s.ManifestList == "" {
		switch {
		case version >= 2:
			o.fail("missing field %q, required in format version %d", "manifest-list", version)
		case !o.has("manifests"):
			o.fail(`has neither "manifest-list" nor the v1 field "manifests"`)
		default:
			o.optional("manifests", &s.Manifests)
		}
	}
	o.requiredFrom("summary", &s.Summary, version, 2)
	if o.err == nil && version >= 2 && s.Summary["operation"] == "" {
		o.fail(`summary has no "operation", required in format version %d`, version)
	}
	o.optional("schema-id", &s.SchemaID)
	o.optional("first-row-id", &s.FirstRowID)
	o.optional("added-rows", &s.AddedRows)
	o.optional("key-id", &s.KeyID)
	return s, o.err
}

// parseParts reads the members that are lists or maps of small objects.
func parseParts(top *object, m *Metadata) error {
	if err := parseRefs(top, m); err != nil {
		return err
	}
	for i, raw := range top.list("snapshot-log") {
		o := parseObject(raw, fmt.Sprintf("snapshot-log[%d]", i))
		var e SnapshotLogEntry
		o.required("snapshot-id", &e.SnapshotID)
		o.required("timestamp-ms", &e.TimestampMs)
		if o.err != nil {
			return o.err
		}
		m.SnapshotLog = append(m.SnapshotLog, e)
	}
	for i, raw := range top.list("metadata-log") {
		o := parseObject(raw, fmt.Sprintf("metadata-log[%d]", i))
		var e MetadataLogEntry
		o.required("metadata-file", &e.MetadataFile)
		o.required("timestamp-ms", &e.TimestampMs)
		if o.err != nil {
			return o.err
		}
		m.MetadataLog = append(m.MetadataLog, e)
	}
	for i, raw := range top.list("statistics") {
		f, err := parseStatisticsFile(raw, fmt.Sprintf("statistics[%d]", i))
		if err != nil {
			return err
		}
		m.Statistics = append(m.Statistics, f)
	}
	for i, raw := range top.list("partition-statistics") {
		f, err := parsePartitionStatisticsFile(raw, fmt.Sprintf("partition-statistics[%d]", i))
		if err != nil {
			return err
		}
		m.PartitionStatistics = append(m.PartitionStatistics, f)
	}
	for i, raw := range top.list("encryption-keys") {
		o := parseObject(raw, fmt.Sprintf("encryption-keys[%d]", i))
		var k EncryptionKey
		o.required("key-id", &k.KeyID)
		o.required("encrypted-key-metadata", &k.EncryptedKeyMetadata)
		o.optional("encrypted-by-id", &k.EncryptedByID)
		o.optional("properties", &k.Properties)
		if o.err != nil {
			return o.err
		}
		m.EncryptionKeys = append(m.EncryptionKeys, k)
	}
	return top.err
}

func parseRefs(top *object, m *Metadata) error {
	var raws map[string]json.RawMessage
	if !top.optional("refs", &raws) {
		return top.err
	}
	names := make([]string, 0, len(raws))
	for name := range raws {
		names = append(names, name)
	}
	sort.Strings(names) // so the first error reported does not vary
	m.Refs = make(map[string]Ref, len(raws))
	for _, name := range names {
		o := parseObject(raws[name], fmt.Sprintf("ref %q", name))
		var r Ref
		o.required("snapshot-id", &r.SnapshotID)
		o.required("type", &r.Type)
		// The reference implementation accepts the type in any case.
		r.Type = strings.ToLower(r.Type)
		o.optional("min-snapshots-to-keep", &r.MinSnapshotsToKeep)
		o.optional("max-snapshot-age-ms", &r.MaxSnapshotAgeMs)
		o.optional("max-ref-age-ms", &r.MaxRefAgeMs)
		if o.err != nil {
			return o.err
		}
		m.Refs[name] = r
	}
	return nil
}

func parseStatisticsFile(raw json.RawMessage, what string) (StatisticsFile, error) {
	o := parseObject(raw, what)
	var f StatisticsFile
	o.required("snapshot-id", &f.SnapshotID)
	o.required("statistics-path", &f.StatisticsPath)
	o.required("file-size-in-bytes", &f.FileSizeInBytes)
	o.required("file-footer-size-in-bytes", &f.FileFooterSizeInBytes)
	o.optional("key-metadata", &f.KeyMetadata)
	if o.err == nil && !o.has("blob-metadata") {
		o.fail("missing required field %q", "blob-metadata")
	}
	for i, braw := range o.list("blob-metadata") {
		b := parseObject(braw, fmt.Sprintf("%s blob-metadata[%d]", what, i))
		var blob BlobMetadata
		b.required("type", &blob.Type)
		b.required("snapshot-id", &blob.SnapshotID)
		b.required("sequence-number", &blob.SequenceNumber)
		b.required("fields", &blob.Fields)
		b.optional("properties", &blob.Properties)
		if b.err != nil {
			return f, b.err
		}
		f.BlobMetadata = append(f.BlobMetadata, blob)
	}
	return f, o.err
}
