package metadata

import (
	"encoding/json"
	"slices"
)

// The statistics updates: a snapshot's table statistics file (Puffin, with
// NDV sketches) and partition statistics file, set or removed. As in
// Java's TableMetadata.Builder, a snapshot has at most one of each: setting
// replaces the one it had, and removing one that is not there changes
// nothing. Neither checks that the snapshot exists, as the reference
// implementation does not (the action that registers a file does).
type (
	// SetStatistics registers a snapshot's table statistics file.
	SetStatistics struct{ Statistics StatisticsFile }
	// RemoveStatistics drops a snapshot's table statistics file.
	RemoveStatistics struct{ SnapshotID int64 }
	// SetPartitionStatistics registers a snapshot's partition statistics
	// file.
	SetPartitionStatistics struct{ PartitionStatistics PartitionStatisticsFile }
	// RemovePartitionStatistics drops a snapshot's partition statistics
	// file.
	RemovePartitionStatistics struct{ SnapshotID int64 }
)

func (SetStatistics) Action() string             { return "set-statistics" }
func (RemoveStatistics) Action() string          { return "remove-statistics" }
func (SetPartitionStatistics) Action() string    { return "set-partition-statistics" }
func (RemovePartitionStatistics) Action() string { return "remove-partition-statistics" }

func (u SetStatistics) apply(c *Changes) error {
	f := u.Statistics
	if f.StatisticsPath == "" {
		return invalid("statistics of snapshot %d: empty statistics-path", f.SnapshotID)
	}
	f.BlobMetadata = slices.Clone(f.BlobMetadata)
	c.next.Statistics = replaceOrAppend(c.next.Statistics, f, func(o StatisticsFile) bool { return o.SnapshotID == f.SnapshotID })
	return nil
}

func (u RemoveStatistics) apply(c *Changes) error {
	c.next.Statistics = nilIfEmpty(slices.DeleteFunc(c.next.Statistics, func(o StatisticsFile) bool { return o.SnapshotID == u.SnapshotID }))
	return nil
}

func (u SetPartitionStatistics) apply(c *Changes) error {
	f := u.PartitionStatistics
	if f.StatisticsPath == "" {
		return invalid("partition statistics of snapshot %d: empty statistics-path", f.SnapshotID)
	}
	c.next.PartitionStatistics = replaceOrAppend(c.next.PartitionStatistics, f, func(o PartitionStatisticsFile) bool { return o.SnapshotID == f.SnapshotID })
	return nil
}

func (u RemovePartitionStatistics) apply(c *Changes) error {
	c.next.PartitionStatistics = nilIfEmpty(slices.DeleteFunc(c.next.PartitionStatistics, func(o PartitionStatisticsFile) bool { return o.SnapshotID == u.SnapshotID }))
	return nil
}

// replaceOrAppend puts f where the entry same matches was (the metadata's
// order stays), else at the end. The list is the changes' own copy
// (Clone copies it), so it is changed in place.
func replaceOrAppend[T any](list []T, f T, same func(T) bool) []T {
	if i := slices.IndexFunc(list, same); i >= 0 {
		list[i] = f
		return list
	}
	return append(list, f)
}

// statisticsFileToJSON is a statistics file's JSON form, the same in
// metadata files and in set-statistics.
func statisticsFileToJSON(f StatisticsFile) jsonStatisticsFile {
	js := jsonStatisticsFile{
		SnapshotID: f.SnapshotID, StatisticsPath: f.StatisticsPath, FileSizeInBytes: f.FileSizeInBytes,
		FileFooterSizeInBytes: f.FileFooterSizeInBytes, KeyMetadata: f.KeyMetadata,
		BlobMetadata: make([]jsonBlobMetadata, len(f.BlobMetadata)),
	}
	for j, b := range f.BlobMetadata {
		fields := b.Fields
		if fields == nil {
			fields = []int{}
		}
		js.BlobMetadata[j] = jsonBlobMetadata{Type: b.Type, SnapshotID: b.SnapshotID, SequenceNumber: b.SequenceNumber, Fields: fields, Properties: b.Properties}
	}
	return js
}

// MarshalJSON writes set-statistics with the snapshot id also at the top,
// which the REST spec deprecates but older catalogs (and Java before 1.9)
// require; readers take the statistics' own.
func (u SetStatistics) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		SnapshotID int64              `json:"snapshot-id"`
		Statistics jsonStatisticsFile `json:"statistics"`
	}{u.Statistics.SnapshotID, statisticsFileToJSON(u.Statistics)})
}

func (u RemoveStatistics) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		SnapshotID int64 `json:"snapshot-id"`
	}{u.SnapshotID})
}

func (u SetPartitionStatistics) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		Statistics jsonPartitionStatisticsFile `json:"partition-statistics"`
	}{jsonPartitionStatisticsFile(u.PartitionStatistics)})
}

func (u RemovePartitionStatistics) MarshalJSON() ([]byte, error) {
	return marshalTagged("action", u.Action(), struct {
		SnapshotID int64 `json:"snapshot-id"`
	}{u.SnapshotID})
}

// parseStatisticsUpdate reads the four statistics updates (ParseUpdate);
// ok is false for any other action.
func parseStatisticsUpdate(o *object, action string) (u Update, ok bool) {
	switch action {
	case "set-statistics":
		var x SetStatistics
		o.requiredWith("statistics", func(raw json.RawMessage) (err error) {
			x.Statistics, err = parseStatisticsFile(raw, "statistics")
			return err
		})
		return x, true
	case "remove-statistics":
		var x RemoveStatistics
		o.required("snapshot-id", &x.SnapshotID)
		return x, true
	case "set-partition-statistics":
		var x SetPartitionStatistics
		o.requiredWith("partition-statistics", func(raw json.RawMessage) (err error) {
			x.PartitionStatistics, err = parsePartitionStatisticsFile(raw, "partition-statistics")
			return err
		})
		return x, true
	case "remove-partition-statistics":
		var x RemovePartitionStatistics
		o.required("snapshot-id", &x.SnapshotID)
		return x, true
	}
	return nil, false
}

func parsePartitionStatisticsFile(raw json.RawMessage, what string) (PartitionStatisticsFile, error) {
	o := parseObject(raw, what)
	var f PartitionStatisticsFile
	o.required("snapshot-id", &f.SnapshotID)
	o.required("statistics-path", &f.StatisticsPath)
	o.required("file-size-in-bytes", &f.FileSizeInBytes)
	return f, o.err
}
