package puffin

import "github.com/floedb/floe/errkind"

// Magic opens every Puffin file and closes its footer.
var Magic = [4]byte{'P', 'F', 'A', '1'}

const (
	magicLength = 4
	// footerStructLength is the fixed tail of the footer: payload size,
	// flags and magic.
	footerStructLength = 4 + 4 + magicLength
	// minFileLength is a file with no blob and an empty footer payload.
	minFileLength = magicLength + magicLength + footerStructLength

	// flagFooterCompressed is byte 0, bit 0 of the footer flags: the payload
	// is one LZ4 frame.
	flagFooterCompressed = 0x01

	// Decompressed sizes are capped so that a few hostile bytes cannot
	// demand gigabytes; real footers and blobs are far smaller.
	maxFooterPayload = 64 << 20
	maxDecompressed  = 256 << 20
	// maxBlobLength is the largest blob read or written, Java's limit.
	maxBlobLength = 1<<31 - 1
)

// Compression codec names as they appear in the footer's compression-codec.
const (
	CodecNone = ""
	CodecLZ4  = "lz4"
	CodecZstd = "zstd"
)

// Blob types the spec defines.
const (
	BlobTypeDeletionVector = "deletion-vector-v1"
	BlobTypeThetaSketch    = "apache-datasketches-theta-v1"
)

// Property keys the spec defines.
const (
	PropertyCreatedBy          = "created-by"
	PropertyReferencedDataFile = "referenced-data-file"
	PropertyCardinality        = "cardinality"
)

func checkCodec(codec string) error {
	switch codec {
	case CodecNone, CodecLZ4, CodecZstd:
		return nil
	}
	return errkind.Errorf(errkind.Unsupported, "puffin: unknown compression codec %q", codec)
}

var errNegative = errkind.New(errkind.Corrupt, "puffin: negative offset or length")

// corruptf is the error of bytes that are not what the Puffin format or
// the deletion-vector blob says they must be.
func corruptf(format string, args ...any) error {
	return errkind.Errorf(errkind.Corrupt, format, args...)
}
