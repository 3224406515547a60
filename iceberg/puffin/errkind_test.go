package puffin

import (
	"bytes"
	"errors"
	"testing"

	"github.com/floedb/floe/errkind"
)

type failingReader struct{}

func (failingReader) ReadAt([]byte, int64) (int, error) { return 0, errors.New("connection reset") }

func TestDecodeErrorsAreCorruptButReadErrorsAreNot(t *testing.T) {
	garbage := bytes.Repeat([]byte("x"), 64)
	if _, err := ReadFooter(bytes.NewReader(garbage), int64(len(garbage))); errkind.Of(err) != errkind.Corrupt {
		t.Errorf("garbage footer: kind %v (%v)", errkind.Of(err), err)
	}
	if _, err := DecodeDeletionVector(garbage); errkind.Of(err) != errkind.Corrupt {
		t.Errorf("garbage deletion vector: kind %v (%v)", errkind.Of(err), err)
	}
	if _, err := ReadDeletionVector(bytes.NewReader(garbage), -1, 10); errkind.Of(err) != errkind.Corrupt {
		t.Errorf("negative offset: kind %v (%v)", errkind.Of(err), err)
	}
	if _, err := ReadFooter(failingReader{}, 1000); err == nil || errkind.Of(err) == errkind.Corrupt {
		t.Errorf("a failed read is called corrupt: %v", err)
	}
	if _, err := ReadBlob(bytes.NewReader(garbage), BlobMetadata{Type: "t", Offset: 4, Length: 8, CompressionCodec: "brotli"}); errkind.Of(err) != errkind.Unsupported {
		t.Errorf("unknown codec: kind %v (%v)", errkind.Of(err), err)
	}
}
