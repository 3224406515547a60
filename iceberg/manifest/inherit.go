package manifest

import "fmt"

// inheritance fills what a manifest left null from its manifest-list entry
// (spec: "Sequence Number Inheritance", "First Row ID Inheritance").
type inheritance struct {
	mf ManifestFile
	// nextRowID is the first row id the next data file with a null
	// first_row_id gets; assignRowIDs is false when the manifest has none.
	assignRowIDs bool
	nextRowID    int64
}

func newInheritance(mf ManifestFile, formatVersion int) *inheritance {
	in := &inheritance{mf: mf}
	if formatVersion >= 3 && mf.Content == ManifestContentData && mf.FirstRowID != nil {
		in.assignRowIDs, in.nextRowID = true, *mf.FirstRowID
	}
	return in
}

// apply resolves the entry's sequence numbers from the stored ones (nil =
// null) and assigns its first row id.
func (in *inheritance) apply(e *Entry, seq, fileSeq *int64) error {
	// Only ADDED entries inherit sequence numbers; EXISTING and DELETED ones
	// must store both. A manifest whose own sequence number is 0 predates
	// sequence numbers (v1), so everything in it is 0, as Java reads it.
	if seq != nil && *seq < 0 || fileSeq != nil && *fileSeq < 0 {
		return fmt.Errorf("negative sequence number")
	}
	inherits := e.Status == StatusAdded || in.mf.SequenceNumber == 0
	switch {
	case seq != nil:
		e.SequenceNumber = *seq
	case inherits:
		e.SequenceNumber, e.SequenceNumberInherited = in.mf.SequenceNumber, true
	case e.Status == StatusDeleted:
		// Scans skip DELETED entries, so an unknown data sequence number
		// does no harm there.
		e.SequenceNumber = UnassignedSequenceNumber
	default:
		return fmt.Errorf("EXISTING entry has no data sequence number (the spec requires one; delete files could not be matched)")
	}
	switch {
	case fileSeq != nil:
		e.FileSequenceNumber = *fileSeq
	case inherits:
		e.FileSequenceNumber, e.FileSequenceNumberInherited = in.mf.SequenceNumber, true
	default:
		// Writers before file_sequence_number existed (Hive, early Iceberg
		// v2) never stored it for EXISTING entries; nothing in a scan needs it.
		e.FileSequenceNumber = UnassignedSequenceNumber
	}

	// Java skips DELETED entries when numbering rows, and the manifest
	// list reserves ids only for added and existing rows, so counting
	// DELETED files would run into the next manifest's ids.
	df := &e.DataFile
	if in.assignRowIDs && df.Content == ContentData && e.Status != StatusDeleted && df.FirstRowID == nil {
		id := in.nextRowID
		df.FirstRowID = &id
		in.nextRowID += df.RecordCount
	}
	return nil
}
