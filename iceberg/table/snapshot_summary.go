package table

import (
	"strconv"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// Snapshot operations (the summary's "operation").
const (
	OpAppend    = "append"
	OpReplace   = "replace"
	OpOverwrite = "overwrite"
	OpDelete    = "delete"
)

// fileCounts are the summary counters of one side of a change (added or
// removed files), named as the reference implementation names them.
type fileCounts struct {
	dataFiles, deleteFiles, posDeleteFiles, eqDeleteFiles, dvs int64
	records, size, posDeletes, eqDeletes                       int64
}

func (c *fileCounts) add(df *manifest.DataFile) {
	c.size += df.FileSizeInBytes
	switch df.Content {
	case manifest.ContentData:
		c.dataFiles++
		c.records += df.RecordCount
	case manifest.ContentPositionDeletes:
		c.deleteFiles++
		c.posDeletes += df.RecordCount
		if df.ContentOffset != nil {
			c.dvs++
		} else {
			c.posDeleteFiles++
		}
	case manifest.ContentEqualityDeletes:
		c.deleteFiles++
		c.eqDeleteFiles++
		c.eqDeletes += df.RecordCount
	}
}

// summaryBuilder accumulates what a snapshot adds and removes.
type summaryBuilder struct {
	added, removed fileCounts
	partitions     map[string]bool
}

func newSummaryBuilder() *summaryBuilder {
	return &summaryBuilder{partitions: map[string]bool{}}
}

func (b *summaryBuilder) addedFile(df *manifest.DataFile) {
	b.added.add(df)
	b.partitions[PartitionKey(df.SpecID, df.Partition)] = true
}

func (b *summaryBuilder) removedFile(df *manifest.DataFile) {
	b.removed.add(df)
	b.partitions[PartitionKey(df.SpecID, df.Partition)] = true
}

// build writes the summary of a snapshot whose parent is parent (nil for
// the first). Totals carry on from the parent's; a total the parent's
// summary lacks (written by an engine that kept none) is left out rather
// than guessed, as the reference implementation does.
func (b *summaryBuilder) build(operation string, parent *metadata.Snapshot) map[string]string {
	s := map[string]string{"operation": operation}
	set := func(key string, n int64) {
		if n > 0 {
			s[key] = strconv.FormatInt(n, 10)
		}
	}
	a, r := &b.added, &b.removed
	set("added-data-files", a.dataFiles)
	set("deleted-data-files", r.dataFiles)
	set("added-delete-files", a.deleteFiles)
	set("removed-delete-files", r.deleteFiles)
	set("added-position-delete-files", a.posDeleteFiles)
	set("removed-position-delete-files", r.posDeleteFiles)
	set("added-equality-delete-files", a.eqDeleteFiles)
	set("removed-equality-delete-files", r.eqDeleteFiles)
	set("added-dvs", a.dvs)
	set("removed-dvs", r.dvs)
	set("added-records", a.records)
	set("deleted-records", r.records)
	set("added-files-size", a.size)
	set("removed-files-size", r.size)
	set("added-position-deletes", a.posDeletes)
	set("removed-position-deletes", r.posDeletes)
	set("added-equality-deletes", a.eqDeletes)
	set("removed-equality-deletes", r.eqDeletes)
	s["changed-partition-count"] = strconv.Itoa(len(b.partitions))

	total := func(key string, added, removed int64) {
		prev := int64(0)
		if parent != nil {
			text, ok := parent.Summary[key]
			if !ok {
				return
			}
			var err error
			if prev, err = strconv.ParseInt(text, 10, 64); err != nil {
				return
			}
		}
		s[key] = strconv.FormatInt(max(prev+added-removed, 0), 10)
	}
	total("total-records", a.records, r.records)
	total("total-files-size", a.size, r.size)
	total("total-data-files", a.dataFiles, r.dataFiles)
	total("total-delete-files", a.deleteFiles, r.deleteFiles)
	total("total-position-deletes", a.posDeletes, r.posDeletes)
	total("total-equality-deletes", a.eqDeletes, r.eqDeletes)
	return s
}

// standardSummaryKeys are the summary entries the spec and the reference
// implementation define.
var standardSummaryKeys = map[string]bool{
	"added-data-files": true, "deleted-data-files": true, "total-data-files": true,
	"added-delete-files": true, "removed-delete-files": true, "total-delete-files": true,
	"added-position-delete-files": true, "removed-position-delete-files": true,
	"added-equality-delete-files": true, "removed-equality-delete-files": true,
	"added-dvs": true, "removed-dvs": true,
	"added-records": true, "deleted-records": true, "total-records": true,
	"added-files-size": true, "removed-files-size": true, "total-files-size": true,
	"added-position-deletes": true, "removed-position-deletes": true, "total-position-deletes": true,
	"added-equality-deletes": true, "removed-equality-deletes": true, "total-equality-deletes": true,
	"deleted-duplicate-files": true, "changed-partition-count": true, "partition-summaries-included": true,
	"manifests-created": true, "manifests-kept": true, "manifests-replaced": true, "entries-processed": true,
}

func isStandardSummaryKey(k string) bool { return standardSummaryKeys[k] }
