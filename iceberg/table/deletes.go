package table

import (
	"fmt"
	"strings"

	"github.com/floedb/floe/iceberg/manifest"
)

// Reserved field ids of a position delete file's columns (spec: "Reserved
// Field IDs").
const (
	FieldIDDeleteFilePath = 2147483546
	FieldIDDeletePos      = 2147483545
)

// deleteIndex finds the delete files that apply to a data file, by the
// spec's rules: position deletes and deletion vectors apply to data files
// with a data sequence number ≤ theirs, equality deletes to those strictly
// older; both only within their own partition, except equality deletes of
// an unpartitioned spec, which apply everywhere.
type deleteIndex struct {
	dvByPath       map[string]*DeleteFile
	posByPath      map[string][]*DeleteFile
	posByPartition map[string][]*DeleteFile
	eqByPartition  map[string][]*DeleteFile
	eqGlobal       []*DeleteFile
}

func (t *Table) buildDeleteIndex(deletes []*DeleteFile) (*deleteIndex, error) {
	idx := &deleteIndex{
		dvByPath:       map[string]*DeleteFile{},
		posByPath:      map[string][]*DeleteFile{},
		posByPartition: map[string][]*DeleteFile{},
		eqByPartition:  map[string][]*DeleteFile{},
	}
	for _, d := range deletes {
		switch d.File.Content {
		case manifest.ContentPositionDeletes:
			if d.IsDeletionVector() {
				if d.File.ReferencedDataFile == "" {
					return nil, fmt.Errorf("deletion vector in %s names no referenced data file", d.File.FilePath)
				}
				target := t.Locations.Apply(d.File.ReferencedDataFile)
				if prev, dup := idx.dvByPath[target]; dup && prev.DataSequenceNumber >= d.DataSequenceNumber {
					continue
				}
				idx.dvByPath[target] = d
				continue
			}
			if target := singleReferencedFile(d); target != "" {
				p := t.Locations.Apply(target)
				idx.posByPath[p] = append(idx.posByPath[p], d)
				continue
			}
			key := PartitionKey(d.File.SpecID, d.File.Partition)
			idx.posByPartition[key] = append(idx.posByPartition[key], d)
		case manifest.ContentEqualityDeletes:
			spec := t.Metadata.SpecByID(d.File.SpecID)
			if spec == nil {
				return nil, fmt.Errorf("equality delete file %s uses unknown partition spec %d", d.File.FilePath, d.File.SpecID)
			}
			if spec.IsUnpartitioned() {
				idx.eqGlobal = append(idx.eqGlobal, d)
				continue
			}
			key := PartitionKey(d.File.SpecID, d.File.Partition)
			idx.eqByPartition[key] = append(idx.eqByPartition[key], d)
		}
	}
	return idx, nil
}

func (idx *deleteIndex) forDataFile(task *DataFileTask, t *Table) []*DeleteFile {
	var out []*DeleteFile
	seq := task.DataSequenceNumber
	if dv := idx.dvByPath[task.Path]; dv != nil && dv.DataSequenceNumber >= seq {
		// A deletion vector replaces every position delete file of its data
		// file.
		out = append(out, dv)
	} else {
		key := PartitionKey(task.File.SpecID, task.File.Partition)
		for _, d := range idx.posByPath[task.Path] {
			if d.DataSequenceNumber >= seq {
				out = append(out, d)
			}
		}
		for _, d := range idx.posByPartition[key] {
			if d.DataSequenceNumber >= seq && pathMayBeInBounds(d, task, t) {
				out = append(out, d)
			}
		}
	}
	for _, d := range idx.eqGlobal {
		if d.DataSequenceNumber > seq {
			out = append(out, d)
		}
	}
	for _, d := range idx.eqByPartition[PartitionKey(task.File.SpecID, task.File.Partition)] {
		if d.DataSequenceNumber > seq {
			out = append(out, d)
		}
	}
	return out
}

// ReferencedDataFile is the one data file (as written in metadata) that a
// position delete file or deletion vector covers, from referenced_data_file
// or from equal file_path bounds; "" when it may cover several.
func (d *DeleteFile) ReferencedDataFile() string { return singleReferencedFile(d) }

// singleReferencedFile is the one data file a position delete file covers,
// from referenced_data_file or from equal file_path bounds.
func singleReferencedFile(d *DeleteFile) string {
	if d.File.ReferencedDataFile != "" {
		return d.File.ReferencedDataFile
	}
	lo, hasLo := d.File.Metrics.LowerBound(FieldIDDeleteFilePath)
	hi, hasHi := d.File.Metrics.UpperBound(FieldIDDeleteFilePath)
	if hasLo && hasHi && string(lo) == string(hi) {
		return string(lo)
	}
	return ""
}

// pathMayBeInBounds uses a position delete file's file_path bounds to skip
// data files it cannot name. Bounds are in the writer's spelling of paths,
// so both the written and the remapped spelling are tried.
func pathMayBeInBounds(d *DeleteFile, task *DataFileTask, t *Table) bool {
	lo, hasLo := d.File.Metrics.LowerBound(FieldIDDeleteFilePath)
	hi, hasHi := d.File.Metrics.UpperBound(FieldIDDeleteFilePath)
	if !hasLo || !hasHi {
		return true
	}
	within := func(p, lo, hi string) bool { return p >= lo && (p <= hi || strings.HasPrefix(p, hi)) }
	if within(task.File.FilePath, string(lo), string(hi)) {
		return true
	}
	return within(task.Path, t.Locations.Apply(string(lo)), t.Locations.Apply(string(hi)))
}

// PartitionKey identifies a partition under a spec, as a map key: values
// are in the canonical Go forms, whose %v renderings are distinct per
// value. The one rule for it: planning, compaction, delete rewrites,
// health and row-level writes all group by it. Each
// rendering is prefixed by its length: joined bare, string tuples such as
// ("a|string:b", "c") and ("a", "b|string:c") made one key, and a delete
// or a replace of one partition reached the other.
func PartitionKey(specID int, partition []any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", specID)
	for _, v := range partition {
		s := fmt.Sprint(v)
		fmt.Fprintf(&b, "|%T:%d:%s", v, len(s), s)
	}
	return b.String()
}

func isPuffin(format string) bool { return strings.EqualFold(format, "puffin") }
