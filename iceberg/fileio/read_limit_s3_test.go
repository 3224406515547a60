package fileio_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/s3test"
)

// TestS3ReadFileLimited: an object over the cap is refused by its
// Content-Length, as corrupt and naming the object; one of the cap reads.
func TestS3ReadFileLimited(t *testing.T) {
	srv := s3test.Start(t)
	files := srv.FileIO(t)
	ctx := t.Context()
	data := pattern(4097, 3)
	loc := srv.Location("limited/obj.bin")
	put(t, files, loc, data)
	got, err := fileio.ReadFileLimited(ctx, files, loc, 4097)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("an object of the cap: %d bytes, %v", len(got), err)
	}
	_, err = fileio.ReadFileLimited(ctx, files, loc, 4096)
	var tl *fileio.TooLargeError
	if !errors.As(err, &tl) || errkind.Of(err) != errkind.Corrupt || !strings.Contains(err.Error(), loc+" is over the 4 KiB cap") {
		t.Fatalf("an object a byte over the cap: %v", err)
	}
}
