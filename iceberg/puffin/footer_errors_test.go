package puffin

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// puffinWithPayload builds a file with no blob area beyond the magic and
// the given footer payload and flags.
func puffinWithPayload(payload string, flags byte) []byte {
	b := append([]byte{}, Magic[:]...)
	b = append(b, Magic[:]...)
	b = append(b, payload...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = append(b, flags, 0, 0, 0)
	return append(b, Magic[:]...)
}

func TestReadFooterErrors(t *testing.T) {
	empty := readGolden(t, "puffin/empty-puffin-uncompressed.bin")
	edit := func(at int, v byte) []byte {
		b := bytes.Clone(empty)
		b[at] = v
		return b
	}
	negative := bytes.Clone(empty)
	binary.LittleEndian.PutUint32(negative[len(negative)-12:], 0xFFFFFFF0)
	for _, tc := range []struct {
		name, want string
		file       []byte
	}{
		{"too short", "shorter than the smallest", empty[:19]},
		{"start magic", "start of the file", edit(0, 'X')},
		{"end magic", "end of the file", edit(len(empty)-1, 'X')},
		{"footer start magic", "footer start", edit(4, 'X')},
		{"unknown flag bit", "unknown footer flags", edit(len(empty)-8, 0x02)},
		{"unknown flag byte", "unknown footer flags", edit(len(empty)-5, 0x01)},
		{"negative payload size", "does not fit", negative},
		{"compressed but not lz4", "lz4", edit(len(empty)-8, 0x01)},
		{"not JSON", "footer JSON", puffinWithPayload(`{"blobs":[}`, 0)},
		{"no blobs", "no blobs list", puffinWithPayload(`{"properties":{}}`, 0)},
		{"null blobs", "no blobs list", puffinWithPayload(`{"blobs":null}`, 0)},
		{"missing length", "has no length", puffinWithPayload(`{"blobs":[{"type":"t","fields":[],"snapshot-id":1,"sequence-number":1,"offset":4}]}`, 0)},
		{"missing fields", "has no fields", puffinWithPayload(`{"blobs":[{"type":"t","snapshot-id":1,"sequence-number":1,"offset":4,"length":0}]}`, 0)},
		{"unknown codec", "unknown compression codec", puffinWithPayload(`{"blobs":[{"type":"t","fields":[],"snapshot-id":1,"sequence-number":1,"offset":4,"length":0,"compression-codec":"gzip"}]}`, 0)},
		{"blob past footer", "outside the blob area", puffinWithPayload(`{"blobs":[{"type":"t","fields":[],"snapshot-id":1,"sequence-number":1,"offset":4,"length":1}]}`, 0)},
		{"blob over magic", "outside the blob area", puffinWithPayload(`{"blobs":[{"type":"t","fields":[],"snapshot-id":1,"sequence-number":1,"offset":0,"length":0}]}`, 0)},
		{"field id overflow", "footer JSON", puffinWithPayload(`{"blobs":[{"type":"t","fields":[2147483648],"snapshot-id":1,"sequence-number":1,"offset":4,"length":0}]}`, 0)},
		{"property not a string", "footer JSON", puffinWithPayload(`{"blobs":[],"properties":{"a":1}}`, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFooter(bytes.NewReader(tc.file), int64(len(tc.file)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// A footer larger than the first tail read takes a second read.
func TestReadFooterLargerThanTailRead(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	long := strings.Repeat("x", 3*tailReadLength)
	if _, err := w.AddBlob(BlobMetadata{Type: "t", Properties: map[string]string{"long": long}}, []byte("data")); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(nil); err != nil {
		t.Fatal(err)
	}
	f := footerOf(t, buf.Bytes())
	if f.Blobs[0].Properties["long"] != long || f.Size <= tailReadLength {
		t.Fatalf("footer size %d", f.Size)
	}
}

func TestReadBlobErrors(t *testing.T) {
	file := readGolden(t, "puffin/sample-metric-data-compressed-zstd.bin")
	f := footerOf(t, file)
	r := bytes.NewReader(file)
	for _, tc := range []struct {
		name string
		meta BlobMetadata
	}{
		{"negative offset", BlobMetadata{Offset: -1}},
		{"past the end", BlobMetadata{Offset: int64(len(file)) - 2, Length: 4}},
		{"unknown codec", BlobMetadata{Offset: 4, Length: 2, CompressionCodec: "brotli"}},
		{"not zstd", BlobMetadata{Offset: f.Blobs[0].Offset + 1, Length: f.Blobs[0].Length - 1, CompressionCodec: CodecZstd}},
		{"not lz4", BlobMetadata{Offset: 4, Length: 20, CompressionCodec: CodecLZ4}},
	} {
		if _, err := ReadBlob(r, tc.meta); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
