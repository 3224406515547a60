package puffin

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
)

// BlobMetadata describes one blob, as the footer lists it.
type BlobMetadata struct {
	Type string
	// Fields are the field ids the blob was computed for, in order.
	Fields         []int32
	SnapshotID     int64
	SequenceNumber int64
	// Offset and Length locate the stored (possibly compressed) bytes.
	Offset int64
	Length int64
	// CompressionCodec is CodecNone, CodecLZ4 or CodecZstd.
	CompressionCodec string
	Properties       map[string]string
}

// Footer is a Puffin file's footer.
type Footer struct {
	Blobs      []BlobMetadata
	Properties map[string]string
	// Size is the footer's length in bytes (magic, payload, payload size,
	// flags, magic): what table metadata calls file-footer-size-in-bytes.
	Size int64
}

// tailReadLength is read from the end of the file first, in the hope that
// it holds the whole footer and one ranged read is enough.
const tailReadLength = 8 << 10

// ReadFooter reads and checks the footer of the Puffin file r of size bytes.
func ReadFooter(r io.ReaderAt, size int64) (*Footer, error) {
	if size < minFileLength {
		return nil, corruptf("puffin: file of %d bytes is shorter than the smallest Puffin file (%d)", size, minFileLength)
	}
	var head [magicLength]byte
	if err := readFullAt(r, head[:], 0); err != nil {
		return nil, err
	}
	if head != Magic {
		return nil, corruptf("puffin: no magic at the start of the file (got % x)", head[:])
	}

	tailLength := min(size, tailReadLength)
	tail := make([]byte, tailLength)
	if err := readFullAt(r, tail, size-tailLength); err != nil {
		return nil, err
	}
	footerStruct := tail[len(tail)-footerStructLength:]
	if [4]byte(footerStruct[8:]) != Magic {
		return nil, corruptf("puffin: no magic at the end of the file (got % x)", footerStruct[8:])
	}
	payloadSize := int64(int32(binary.LittleEndian.Uint32(footerStruct)))
	footerSize := magicLength + payloadSize + footerStructLength
	if payloadSize < 0 || footerSize > size-magicLength {
		return nil, corruptf("puffin: footer payload size %d does not fit a file of %d bytes", payloadSize, size)
	}
	flags := footerStruct[4:8]
	if flags[0]&^flagFooterCompressed != 0 || flags[1] != 0 || flags[2] != 0 || flags[3] != 0 {
		return nil, corruptf("puffin: unknown footer flags % x", flags)
	}

	var footer []byte
	if footerSize <= tailLength {
		footer = tail[tailLength-footerSize:]
	} else {
		footer = make([]byte, footerSize)
		if err := readFullAt(r, footer, size-footerSize); err != nil {
			return nil, err
		}
	}
	if [4]byte(footer[:magicLength]) != Magic {
		return nil, corruptf("puffin: no magic at the footer start, offset %d (got % x)", size-footerSize, footer[:magicLength])
	}
	payload := footer[magicLength : magicLength+payloadSize]
	if flags[0]&flagFooterCompressed != 0 {
		var err error
		if payload, err = decompressLZ4Frame(payload, maxFooterPayload); err != nil {
			return nil, corruptf("puffin: footer payload: %w", err)
		}
	}
	f, err := parseFooterPayload(payload)
	if err != nil {
		return nil, err
	}
	f.Size = footerSize
	blobsEnd := size - footerSize
	for i := range f.Blobs {
		b := &f.Blobs[i]
		if b.Offset < magicLength || b.Length < 0 || b.Length > blobsEnd-b.Offset {
			return nil, corruptf("puffin: blob %d (%s) at [%d, +%d) lies outside the blob area [%d, %d)",
				i, b.Type, b.Offset, b.Length, magicLength, blobsEnd)
		}
	}
	return f, nil
}

// footerJSON and blobJSON use pointers so that a missing required field is
// told apart from a zero one.
type footerJSON struct {
	Blobs      *[]blobJSON       `json:"blobs"`
	Properties map[string]string `json:"properties"`
}

type blobJSON struct {
	Type             *string           `json:"type"`
	Fields           *[]int32          `json:"fields"`
	SnapshotID       *int64            `json:"snapshot-id"`
	SequenceNumber   *int64            `json:"sequence-number"`
	Offset           *int64            `json:"offset"`
	Length           *int64            `json:"length"`
	CompressionCodec *string           `json:"compression-codec"`
	Properties       map[string]string `json:"properties"`
}

func parseFooterPayload(payload []byte) (*Footer, error) {
	var fj footerJSON
	if err := json.Unmarshal(payload, &fj); err != nil {
		return nil, corruptf("puffin: footer JSON: %w", err)
	}
	if fj.Blobs == nil {
		return nil, corruptf("puffin: footer JSON has no blobs list")
	}
	f := &Footer{Properties: fj.Properties, Blobs: make([]BlobMetadata, len(*fj.Blobs))}
	for i, bj := range *fj.Blobs {
		missing := ""
		switch {
		case bj.Type == nil:
			missing = "type"
		case bj.Fields == nil:
			missing = "fields"
		case bj.SnapshotID == nil:
			missing = "snapshot-id"
		case bj.SequenceNumber == nil:
			missing = "sequence-number"
		case bj.Offset == nil:
			missing = "offset"
		case bj.Length == nil:
			missing = "length"
		}
		if missing != "" {
			return nil, corruptf("puffin: footer blob %d has no %s", i, missing)
		}
		b := BlobMetadata{
			Type:           *bj.Type,
			Fields:         *bj.Fields,
			SnapshotID:     *bj.SnapshotID,
			SequenceNumber: *bj.SequenceNumber,
			Offset:         *bj.Offset,
			Length:         *bj.Length,
			Properties:     bj.Properties,
		}
		if bj.CompressionCodec != nil {
			b.CompressionCodec = *bj.CompressionCodec
		}
		if err := checkCodec(b.CompressionCodec); err != nil {
			return nil, corruptf("footer blob %d: %w", i, err)
		}
		f.Blobs[i] = b
	}
	return f, nil
}

func readFullAt(r io.ReaderAt, buf []byte, off int64) error {
	n, err := r.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("puffin: reading %d bytes at offset %d: %w", len(buf), off, err)
}
