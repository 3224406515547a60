package puffin

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// A deletion-vector-v1 blob is
//
//	u32 big-endian  L = len(magic) + len(vector)
//	D1 D3 39 64     magic
//	vector          portable 64-bit Roaring bitmap (little-endian)
//	u32 big-endian  CRC-32 (IEEE) of magic + vector
//
// The big-endian framing is inherited from Delta's deletion vectors.

var dvMagic = [4]byte{0xD1, 0xD3, 0x39, 0x64}

const (
	dvFramingLength = 4 + 4 + 4 // length, magic, CRC
	// maxKey is the largest bucket key: positions have their top bit clear.
	maxKey = math.MaxInt32
	// maxEncodeKey is the largest key Java's RoaringPositionBitmap accepts.
	maxEncodeKey = math.MaxInt32 - 1
	// fieldIDRowPosition is the _pos metadata column, which Java lists as
	// the input field of every deletion vector.
	fieldIDRowPosition = math.MaxInt32 - 2
)

// DecodeDeletionVector decodes a deletion-vector-v1 blob (the bytes at a
// delete file's content_offset, content_size_in_bytes long), checking its
// length field, magic and CRC.
func DecodeDeletionVector(blob []byte) (bm *roaring64.Bitmap, err error) {
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, corruptf("puffin: deletion vector: roaring panicked reading checked bytes: %v", r)
		}
	}()
	if len(blob) < dvFramingLength {
		return nil, corruptf("puffin: deletion vector of %d bytes is shorter than its framing (%d)", len(blob), dvFramingLength)
	}
	dataLength := binary.BigEndian.Uint32(blob)
	if int64(dataLength) != int64(len(blob))-8 {
		return nil, corruptf("puffin: deletion vector length field says %d bytes of magic and bitmap, the blob holds %d", dataLength, len(blob)-8)
	}
	data := blob[4 : len(blob)-4]
	if [4]byte(data) != dvMagic {
		return nil, corruptf("puffin: deletion vector magic is % x, want % x", data[:4], dvMagic[:])
	}
	stored := binary.BigEndian.Uint32(blob[len(blob)-4:])
	if computed := crc32.ChecksumIEEE(data); computed != stored {
		return nil, corruptf("puffin: deletion vector CRC is 0x%08x, stored 0x%08x", computed, stored)
	}
	vector := data[4:]
	if _, _, err := splitPortable(vector); err != nil {
		return nil, corruptf("puffin: deletion vector bitmap: %w", err)
	}
	bm = roaring64.New()
	if _, err := bm.ReadPortableFrom(bytes.NewReader(vector)); err != nil {
		return nil, corruptf("puffin: deletion vector bitmap: %w", err)
	}
	return bm, nil
}

// ReadDeletionVector reads and decodes the deletion vector stored in r at
// [offset, offset+length): a delete file's content_offset and
// content_size_in_bytes.
func ReadDeletionVector(r io.ReaderAt, offset, length int64) (*roaring64.Bitmap, error) {
	if offset < 0 || length < 0 {
		return nil, errNegative
	}
	if length < dvFramingLength || length > maxBlobLength {
		return nil, corruptf("puffin: deletion vector length %d is out of range [%d, %d]", length, dvFramingLength, maxBlobLength)
	}
	blob := make([]byte, length)
	if err := readFullAt(r, blob, offset); err != nil {
		return nil, err
	}
	return DecodeDeletionVector(blob)
}

// EncodeDeletionVector serialises bm as a deletion-vector-v1 blob, byte for
// byte as Java's BitmapPositionDeleteIndex does. Like Java it run-optimises
// bm in place first (the positions do not change, only the containers).
//
// Java keeps one 32-bit bitmap per key from 0 to the largest, so a key with
// no positions below the largest is written as an empty bitmap; roaring64
// omits such keys, so the 64-bit framing is written here and roaring64 only
// serialises the 32-bit bitmaps.
func EncodeDeletionVector(bm *roaring64.Bitmap) ([]byte, error) {
	var buckets []portableBucket
	if bm != nil && !bm.IsEmpty() {
		if key := bm.Maximum() >> 32; key > maxEncodeKey {
			return nil, fmt.Errorf("puffin: position %d is beyond what a deletion vector holds", bm.Maximum())
		}
		bm.RunOptimize()
		portable, err := bm.ToBytes()
		if err != nil {
			return nil, err
		}
		if buckets, _, err = splitPortable(portable); err != nil {
			return nil, fmt.Errorf("puffin: roaring64 wrote an unexpected bitmap: %w", err)
		}
	}

	vectorLength := int64(8)
	if n := len(buckets); n > 0 {
		keys := int64(buckets[n-1].key) + 1
		vectorLength += keys * int64(4+len(emptyRoaring32))
		for _, b := range buckets {
			vectorLength += int64(len(b.data) - len(emptyRoaring32))
		}
	}
	if total := dvFramingLength + vectorLength; total > maxBlobLength {
		return nil, fmt.Errorf("puffin: deletion vector would take %d bytes, more than %d", total, maxBlobLength)
	}

	out := make([]byte, 0, dvFramingLength+vectorLength)
	out = binary.BigEndian.AppendUint32(out, uint32(4+vectorLength))
	out = append(out, dvMagic[:]...)
	var keyCount uint64
	if n := len(buckets); n > 0 {
		keyCount = uint64(buckets[n-1].key) + 1
	}
	out = binary.LittleEndian.AppendUint64(out, keyCount)
	next := 0
	for key := range uint32(keyCount) {
		out = binary.LittleEndian.AppendUint32(out, key)
		if buckets[next].key == key {
			out = append(out, buckets[next].data...)
			next++
		} else {
			out = append(out, emptyRoaring32[:]...)
		}
	}
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[4:]))
	return out, nil
}

// NewDeletionVectorBlob encodes bm and returns it with the blob metadata the
// spec requires (snapshot-id and sequence-number -1, referenced-data-file
// and cardinality properties), ready for Writer.AddBlob.
func NewDeletionVectorBlob(referencedDataFile string, bm *roaring64.Bitmap) (BlobMetadata, []byte, error) {
	data, err := EncodeDeletionVector(bm)
	if err != nil {
		return BlobMetadata{}, nil, err
	}
	var cardinality uint64
	if bm != nil {
		cardinality = bm.GetCardinality()
	}
	meta := BlobMetadata{
		Type:           BlobTypeDeletionVector,
		Fields:         []int32{fieldIDRowPosition},
		SnapshotID:     -1,
		SequenceNumber: -1,
		Properties: map[string]string{
			PropertyReferencedDataFile: referencedDataFile,
			PropertyCardinality:        strconv.FormatUint(cardinality, 10),
		},
	}
	return meta, data, nil
}
