package puffin

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// The expectations below are those of Java's TestPuffinReader and
// TestPuffinWriter (apache/iceberg core/src/test/java/org/apache/iceberg/puffin)
// for the same resource files, plus the footer sizes of PuffinFormatTestUtil.

const (
	emptyPuffinFooterSize      = 28  // EMPTY_PUFFIN_UNCOMPRESSED_FOOTER_SIZE
	sampleMetricZstdFooterSize = 314 // SAMPLE_METRIC_DATA_COMPRESSED_ZSTD_FOOTER_SIZE
)

var (
	firstBlobData  = []byte("abcdefghi")
	secondBlobData = []byte("some blob \x00 binary data 🤯 that is not very very very very very very long, is it?")
)

func TestReadEmptyGolden(t *testing.T) {
	f := footerOf(t, readGolden(t, "puffin/empty-puffin-uncompressed.bin"))
	if len(f.Blobs) != 0 || len(f.Properties) != 0 {
		t.Fatalf("want no blobs and no properties, got %+v", f)
	}
	if f.Size != emptyPuffinFooterSize {
		t.Fatalf("footer size %d, want %d", f.Size, emptyPuffinFooterSize)
	}
}

func TestReadMetricDataGolden(t *testing.T) {
	for _, tc := range []struct {
		file, codec string
	}{
		{"puffin/sample-metric-data-uncompressed.bin", CodecNone},
		{"puffin/sample-metric-data-compressed-zstd.bin", CodecZstd},
	} {
		t.Run(tc.codec, func(t *testing.T) {
			file := readGolden(t, tc.file)
			f := footerOf(t, file)
			if !reflect.DeepEqual(f.Properties, map[string]string{"created-by": "Test 1234"}) {
				t.Fatalf("file properties %v", f.Properties)
			}
			if len(f.Blobs) != 2 {
				t.Fatalf("want 2 blobs, got %d", len(f.Blobs))
			}
			first, second := f.Blobs[0], f.Blobs[1]
			if first.Type != "some-blob" || !reflect.DeepEqual(first.Fields, []int32{1}) || first.Offset != 4 || first.CompressionCodec != tc.codec {
				t.Errorf("first blob %+v", first)
			}
			if second.Type != "some-other-blob" || !reflect.DeepEqual(second.Fields, []int32{2}) ||
				second.Offset != first.Offset+first.Length || second.CompressionCodec != tc.codec {
				t.Errorf("second blob %+v", second)
			}
			for _, b := range f.Blobs {
				if b.SnapshotID != 2 || b.SequenceNumber != 1 {
					t.Errorf("blob %s: snapshot %d, sequence %d; the writer test sets 2 and 1", b.Type, b.SnapshotID, b.SequenceNumber)
				}
			}
			for i, want := range [][]byte{firstBlobData, secondBlobData} {
				got, err := ReadBlob(bytes.NewReader(file), f.Blobs[i])
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("blob %d = %q, want %q", i, got, want)
				}
			}
		})
	}
}

func TestZstdGoldenFooterSize(t *testing.T) {
	f := footerOf(t, readGolden(t, "puffin/sample-metric-data-compressed-zstd.bin"))
	if f.Size != sampleMetricZstdFooterSize {
		t.Fatalf("footer size %d, want %d", f.Size, sampleMetricZstdFooterSize)
	}
}

// Java's testWrongFooterSize corrupts the footer size it is given; the
// payload size field plays that part here.
func TestWrongFooterSize(t *testing.T) {
	golden := readGolden(t, "puffin/sample-metric-data-compressed-zstd.bin")
	for _, delta := range []int32{-1, 1, -10, 10, -10000, 10000} {
		file := bytes.Clone(golden)
		at := len(file) - footerStructLength
		payload := int32(file[at]) | int32(file[at+1])<<8 | int32(file[at+2])<<16 | int32(file[at+3])<<24
		payload += delta
		file[at], file[at+1], file[at+2], file[at+3] = byte(payload), byte(payload>>8), byte(payload>>16), byte(payload>>24)
		_, err := ReadFooter(bytes.NewReader(file), int64(len(file)))
		if err == nil {
			t.Errorf("payload size off by %d: no error", delta)
			continue
		}
		if !strings.Contains(err.Error(), "magic") && !strings.Contains(err.Error(), "does not fit") {
			t.Errorf("payload size off by %d: unexpected error %v", delta, err)
		}
	}
}

// TestWriterReproducesGolden follows Java's TestPuffinWriter: the same
// blobs and created-by give the same bytes.
func TestWriterReproducesGolden(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		if err := w.Finish(nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), readGolden(t, "puffin/empty-puffin-uncompressed.bin")) {
			t.Fatalf("got % x", buf.Bytes())
		}
		if w.FooterSize() != emptyPuffinFooterSize || len(w.Blobs()) != 0 {
			t.Fatalf("footer size %d, blobs %v", w.FooterSize(), w.Blobs())
		}
	})
	for _, tc := range []struct {
		file, codec string
	}{
		{"puffin/sample-metric-data-uncompressed.bin", CodecNone},
		{"puffin/sample-metric-data-compressed-zstd.bin", CodecZstd},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := writeMetricData(t, tc.codec)
			want := readGolden(t, tc.file)
			if tc.codec == CodecZstd {
				checkZstdRewrite(t, got, want)
				return
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("written file differs from Java's:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func writeMetricData(t *testing.T, codec string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, b := range []struct {
		typ   string
		field int32
		data  []byte
	}{{"some-blob", 1, firstBlobData}, {"some-other-blob", 2, secondBlobData}} {
		meta := BlobMetadata{Type: b.typ, Fields: []int32{b.field}, SnapshotID: 2, SequenceNumber: 1, CompressionCodec: codec}
		if _, err := w.AddBlob(meta, b.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(map[string]string{PropertyCreatedBy: "Test 1234"}); err != nil {
		t.Fatal(err)
	}
	if w.Size() != int64(buf.Len()) {
		t.Fatalf("Size() = %d, wrote %d", w.Size(), buf.Len())
	}
	return buf.Bytes()
}

// checkZstdRewrite: Java compresses with aircompressor, we with
// klauspost/compress. The first blob is stored raw inside its frame, so
// that frame must be identical; the second is entropy-coded and Java's
// sequence section is one byte shorter, which shifts nothing but that
// blob's length. Everything else must match and every frame must carry
// its content size, which Java's reader needs.
func checkZstdRewrite(t *testing.T, got, want []byte) {
	gotFooter, wantFooter := footerOf(t, got), footerOf(t, want)
	for i := range wantFooter.Blobs {
		g, err := ReadBlob(bytes.NewReader(got), gotFooter.Blobs[i])
		if err != nil {
			t.Fatal(err)
		}
		if w, _ := ReadBlob(bytes.NewReader(want), wantFooter.Blobs[i]); !bytes.Equal(g, w) {
			t.Errorf("blob %d decodes to %q, want %q", i, g, w)
		}
		frame := got[gotFooter.Blobs[i].Offset:][:gotFooter.Blobs[i].Length]
		if frame[4]&0x20 == 0 {
			t.Errorf("blob %d: zstd frame is not single-segment, so may lack its content size", i)
		}
	}
	first := func(file []byte, f *Footer) []byte { return file[f.Blobs[0].Offset:][:f.Blobs[0].Length] }
	if !bytes.Equal(first(got, gotFooter), first(want, wantFooter)) {
		t.Errorf("first zstd frame % x, Java's % x", first(got, gotFooter), first(want, wantFooter))
	}
	gotFooter.Blobs[1].Length = wantFooter.Blobs[1].Length
	gotFooter.Size, wantFooter.Size = 0, 0
	if !reflect.DeepEqual(gotFooter, wantFooter) {
		t.Errorf("footer %+v, Java's %+v", gotFooter, wantFooter)
	}
}
