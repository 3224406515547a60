package writer

import (
	"context"
	"errors"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/puffin"
)

// DeletionVector is what WriteDeletionVectors writes for one data file.
type DeletionVector struct {
	// DataFile is the data file's manifest entry: its path as written, spec,
	// partition and record count.
	DataFile manifest.DataFile
	// Positions are the rows deleted now.
	Positions *roaring64.Bitmap
	// Previous is the data file's live deletion vector, if any: its
	// positions are merged in, so the new vector replaces it (a data file
	// has at most one per snapshot, and the commit removes the old one).
	Previous *manifest.DataFile
}

// WriteDeletionVectors writes one Puffin file at path holding a
// deletion-vector-v1 blob per data file (format v3) and returns their
// manifest entries, in the vectors' order: content position deletes,
// format PUFFIN, the data file's spec and partition, referenced_data_file,
// content_offset and content_size_in_bytes locating the blob, and
// record_count its cardinality. Previous vectors are read through files.
func WriteDeletionVectors(ctx context.Context, files fileio.FileIO, path string, vectors []DeletionVector) ([]manifest.DataFile, error) {
	if len(vectors) == 0 {
		return nil, errors.New("deletion vectors: none to write")
	}
	merged := make([]*roaring64.Bitmap, len(vectors))
	seen := make(map[string]bool, len(vectors))
	for i := range vectors {
		v := &vectors[i]
		target := v.DataFile.FilePath
		if target == "" || v.DataFile.Content != manifest.ContentData {
			return nil, fmt.Errorf("deletion vectors: vector %d is not for a data file", i)
		}
		if seen[fileio.Remap(files, target)] {
			return nil, fmt.Errorf("deletion vectors: two vectors for data file %s", target)
		}
		seen[fileio.Remap(files, target)] = true
		bm, err := mergedPositions(ctx, files, v)
		if err != nil {
			return nil, fmt.Errorf("deletion vector for %s: %w", target, err)
		}
		merged[i] = bm
	}
	out, err := files.Create(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("deletion vectors: %w", err)
	}
	entries, size, err := writePuffinVectors(out, vectors, merged)
	if err != nil {
		_ = out.Abort()
		return nil, fmt.Errorf("deletion vectors %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return nil, fmt.Errorf("deletion vectors %s: %w", path, err)
	}
	for i := range entries {
		entries[i].FilePath = path
		entries[i].FileSizeInBytes = size
	}
	return entries, nil
}

// mergedPositions is a vector's positions with its previous vector's, in
// a new bitmap; it checks them against the data file's record count.
func mergedPositions(ctx context.Context, files fileio.FileIO, v *DeletionVector) (*roaring64.Bitmap, error) {
	bm := roaring64.New()
	if v.Positions != nil {
		bm.Or(v.Positions)
	}
	if v.Previous != nil {
		prev, err := ReadDeletionVector(ctx, files, v.Previous)
		if err != nil {
			return nil, err
		}
		if ref := v.Previous.ReferencedDataFile; fileio.Remap(files, ref) != fileio.Remap(files, v.DataFile.FilePath) {
			return nil, fmt.Errorf("the previous vector %s is for data file %s", v.Previous.FilePath, ref)
		}
		bm.Or(prev)
	}
	if bm.IsEmpty() {
		return nil, errors.New("no positions to delete")
	}
	if n := v.DataFile.RecordCount; n > 0 && bm.Maximum() >= uint64(n) {
		return nil, fmt.Errorf("position %d is past the data file's %d rows", bm.Maximum(), n)
	}
	return bm, nil
}

// ReadDeletionVector reads the deletion vector a manifest entry locates
// (its Puffin file's content_offset and content_size_in_bytes) and checks
// its cardinality against the entry's record count.
func ReadDeletionVector(ctx context.Context, files fileio.FileIO, dv *manifest.DataFile) (*roaring64.Bitmap, error) {
	if dv.ContentOffset == nil || dv.ContentSizeInBytes == nil {
		return nil, fmt.Errorf("deletion vector %s: the entry has no content offset and size", dv.FilePath)
	}
	f, err := files.Open(ctx, dv.FilePath)
	if err != nil {
		return nil, fmt.Errorf("deletion vector: %w", err)
	}
	defer f.Close()
	bm, err := puffin.ReadDeletionVector(f, *dv.ContentOffset, *dv.ContentSizeInBytes)
	if err != nil {
		return nil, fmt.Errorf("deletion vector %s: %w", dv.FilePath, err)
	}
	if card := bm.GetCardinality(); dv.RecordCount > 0 && card != uint64(dv.RecordCount) {
		return nil, fmt.Errorf("deletion vector %s holds %d positions, its entry says %d", dv.FilePath, card, dv.RecordCount)
	}
	return bm, nil
}

// writePuffinVectors writes the Puffin file and returns the entries (less
// the path) and the file's size.
func writePuffinVectors(out fileio.Writer, vectors []DeletionVector, merged []*roaring64.Bitmap) ([]manifest.DataFile, int64, error) {
	pw := puffin.NewWriter(out)
	entries := make([]manifest.DataFile, len(vectors))
	for i := range vectors {
		data := &vectors[i].DataFile
		meta, blob, err := puffin.NewDeletionVectorBlob(data.FilePath, merged[i])
		if err != nil {
			return nil, 0, err
		}
		if meta, err = pw.AddBlob(meta, blob); err != nil {
			return nil, 0, err
		}
		offset, length := meta.Offset, meta.Length
		entries[i] = manifest.DataFile{
			Content:            manifest.ContentPositionDeletes,
			FileFormat:         "PUFFIN",
			Partition:          data.Partition,
			SpecID:             data.SpecID,
			RecordCount:        int64(merged[i].GetCardinality()),
			ReferencedDataFile: data.FilePath,
			ContentOffset:      &offset,
			ContentSizeInBytes: &length,
		}
	}
	if err := pw.Finish(map[string]string{puffin.PropertyCreatedBy: "floe " + createdByVersion}); err != nil {
		return nil, 0, err
	}
	return entries, pw.Size(), nil
}
