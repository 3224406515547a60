package puffin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Writer writes a Puffin file: the magic, the blobs as they are added, and
// the footer on Finish. Like Java's PuffinWriter it writes the leading magic
// with the first blob (or on Finish) and an uncompressed footer by default.
type Writer struct {
	w              io.Writer
	written        int64
	blobs          []BlobMetadata
	compressFooter bool
	footerSize     int64
	finished       bool
	err            error
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// CompressFooter makes Finish store the footer payload as one LZ4 frame.
// Java's reader (Iceberg 1.10) cannot read such files, hence the default.
func (w *Writer) CompressFooter(on bool) { w.compressFooter = on }

// AddBlob writes data as one blob, compressed with meta.CompressionCodec,
// and returns meta with Offset and Length filled in.
func (w *Writer) AddBlob(meta BlobMetadata, data []byte) (BlobMetadata, error) {
	if err := w.usable(); err != nil {
		return meta, err
	}
	if err := checkCodec(meta.CompressionCodec); err != nil {
		return meta, err
	}
	if meta.Type == BlobTypeDeletionVector && meta.CompressionCodec != CodecNone {
		return meta, fmt.Errorf("puffin: %s blobs must not be compressed", BlobTypeDeletionVector)
	}
	stored, err := compress(meta.CompressionCodec, data)
	if err != nil {
		return meta, err
	}
	if err := w.writeHeaderIfNeeded(); err != nil {
		return meta, err
	}
	meta.Offset = w.written
	meta.Length = int64(len(stored))
	meta.Fields = slices.Clone(meta.Fields)
	if err := w.write(stored); err != nil {
		return meta, err
	}
	w.blobs = append(w.blobs, meta)
	return meta, nil
}

// Finish writes the footer with the given file properties (Java writers set
// PropertyCreatedBy). Nothing may be added afterwards.
func (w *Writer) Finish(properties map[string]string) error {
	if err := w.usable(); err != nil {
		return err
	}
	if err := w.writeHeaderIfNeeded(); err != nil {
		return err
	}
	payload := appendFooterJSON(nil, w.blobs, properties)
	var flags byte
	if w.compressFooter {
		var err error
		if payload, err = compress(CodecLZ4, payload); err != nil {
			return err
		}
		flags |= flagFooterCompressed
	}
	if len(payload) > 1<<31-1 {
		return fmt.Errorf("puffin: footer payload of %d bytes is too large", len(payload))
	}
	footer := make([]byte, 0, magicLength+len(payload)+footerStructLength)
	footer = append(footer, Magic[:]...)
	footer = append(footer, payload...)
	footer = binary.LittleEndian.AppendUint32(footer, uint32(len(payload)))
	footer = append(footer, flags, 0, 0, 0)
	footer = append(footer, Magic[:]...)
	if err := w.write(footer); err != nil {
		return err
	}
	w.footerSize = int64(len(footer))
	w.finished = true
	return nil
}

// Blobs returns the metadata of the blobs written so far.
func (w *Writer) Blobs() []BlobMetadata { return slices.Clone(w.blobs) }

// Size returns the number of bytes written so far: the file size once
// Finish has returned.
func (w *Writer) Size() int64 { return w.written }

// FooterSize returns the footer's length in bytes, or 0 before Finish.
func (w *Writer) FooterSize() int64 { return w.footerSize }

var errFinished = errors.New("puffin: writer already finished")

func (w *Writer) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.finished {
		return errFinished
	}
	return nil
}

func (w *Writer) writeHeaderIfNeeded() error {
	if w.written > 0 {
		return nil
	}
	return w.write(Magic[:])
}

// write keeps the first error: after a short write the file is unusable.
func (w *Writer) write(p []byte) error {
	n, err := w.w.Write(p)
	w.written += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = fmt.Errorf("puffin: write: %w", err)
	}
	return w.err
}
