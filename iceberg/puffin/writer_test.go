package puffin

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestWriterRoundTripCodecs(t *testing.T) {
	data := bytes.Repeat([]byte("puffin blob payload "), 200)
	for _, compressFooter := range []bool{false, true} {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		w.CompressFooter(compressFooter)
		var written []BlobMetadata
		for _, codec := range []string{CodecNone, CodecLZ4, CodecZstd} {
			meta := BlobMetadata{Type: "t-" + codec, Fields: []int32{7, 3}, SnapshotID: 11, SequenceNumber: 12,
				CompressionCodec: codec, Properties: map[string]string{"k": "v", "a": "b"}}
			m, err := w.AddBlob(meta, data)
			if err != nil {
				t.Fatal(err)
			}
			written = append(written, m)
		}
		if err := w.Finish(map[string]string{PropertyCreatedBy: "floe"}); err != nil {
			t.Fatal(err)
		}
		file := buf.Bytes()
		f := footerOf(t, file)
		if !reflect.DeepEqual(f.Blobs, written) || !reflect.DeepEqual(f.Blobs, w.Blobs()) {
			t.Fatalf("footer blobs %+v, written %+v", f.Blobs, written)
		}
		if got := file[len(file)-8]; got != map[bool]byte{false: 0, true: 1}[compressFooter] {
			t.Fatalf("flags byte %d with compressFooter %v", got, compressFooter)
		}
		if compressFooter {
			// An LZ4 frame (magic 04 22 4d 18) whose FLG byte has the
			// content-size bit, as the spec requires.
			frame := file[len(file)-int(f.Size)+4:]
			if !bytes.Equal(frame[:4], []byte{0x04, 0x22, 0x4d, 0x18}) || frame[4]&0x08 == 0 {
				t.Fatalf("footer payload starts % x", frame[:5])
			}
		}
		for _, b := range f.Blobs {
			got, err := ReadBlob(bytes.NewReader(file), b)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("%s: blob differs", b.CompressionCodec)
			}
			if b.CompressionCodec != CodecNone && b.Length >= int64(len(data)) {
				t.Errorf("%s did not compress: %d bytes", b.CompressionCodec, b.Length)
			}
		}
	}
}

func TestWriterMisuse(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	if _, err := w.AddBlob(BlobMetadata{Type: "x", CompressionCodec: "snappy"}, nil); err == nil {
		t.Error("unknown codec accepted")
	}
	if _, err := w.AddBlob(BlobMetadata{Type: BlobTypeDeletionVector, CompressionCodec: CodecZstd}, nil); err == nil {
		t.Error("compressed deletion vector accepted")
	}
	if err := w.Finish(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBlob(BlobMetadata{Type: "x"}, nil); !errors.Is(err, errFinished) {
		t.Errorf("AddBlob after Finish: %v", err)
	}
	if err := w.Finish(nil); !errors.Is(err, errFinished) {
		t.Errorf("second Finish: %v", err)
	}
}

type failingWriter struct{ left int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n := f.left
		f.left = 0
		return n, errors.New("disk full")
	}
	f.left -= len(p)
	return len(p), nil
}

func TestWriterKeepsFirstWriteError(t *testing.T) {
	w := NewWriter(&failingWriter{left: 6})
	if _, err := w.AddBlob(BlobMetadata{Type: "x"}, []byte("abcdef")); err == nil {
		t.Fatal("no error")
	}
	if err := w.Finish(nil); err == nil {
		t.Fatal("Finish after a failed write succeeded")
	}
}

// Jackson escapes '"', '\\' and control characters (short forms for \b \t
// \n \f \r, else \u00XX in upper case) and writes the rest as UTF-8.
func TestFooterJSONStringEscapes(t *testing.T) {
	s := "a\"b\\c\b\t\n\f\r\x01\x1f\x7f/<>&é🤯\u2028"
	got := string(appendJSONString(nil, s))
	want := `"a\"b\\c\b\t\n\f\r\u0001\u001F` + "\x7f/<>&é🤯\u2028" + `"`
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	var back string
	if err := json.Unmarshal([]byte(got), &back); err != nil || back != s {
		t.Fatalf("round trip %q, %v", back, err)
	}
	if got := string(appendJSONString(nil, "x\xffy")); got != "\"x\uFFFDy\"" {
		t.Fatalf("invalid UTF-8 written as %q", got)
	}
}
