package fileio

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"net/http"

	"cloud.google.com/go/storage"
)

// WriteFile replaces an object with one upload request; GCS makes it
// visible whole.
func (g *GCS) WriteFile(ctx context.Context, path string, data []byte) error {
	obj, err := parseGCSLocation(path, false)
	if err != nil {
		return err
	}
	return g.do(ctx, path, func(ctx context.Context) error {
		return g.putObject(ctx, obj, data, false)
	})
}

// WriteFileIfAbsent creates an object with ifGenerationMatch=0, which GCS
// lets exactly one of many racing writers win.
//
// A retried create can meet its own earlier success, as on S3: when a try
// failed in a way that may have left the object written (a timeout, a 5xx)
// and a later try gets 412, the object is read back, and if it holds
// exactly our bytes the write is reported as done. If it cannot be read
// back the outcome is unknown, and the error says so rather than claiming
// ErrExists.
func (g *GCS) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	obj, err := parseGCSLocation(path, false)
	if err != nil {
		return err
	}
	mayHaveLanded := false
	return g.do(ctx, path, func(ctx context.Context) error {
		err := g.putObject(ctx, obj, data, true)
		if err == nil {
			return nil
		}
		if gcsStatus(err) != http.StatusPreconditionFailed {
			mayHaveLanded = true
			return err
		}
		if !mayHaveLanded {
			return finalError{ErrExists}
		}
		got, rerr := g.readObject(ctx, path, obj, MaxReadFile)
		if rerr != nil {
			return finalError{fmt.Errorf("the object exists, and reading it back to learn whether an earlier "+
				"try of this write created it failed, so the outcome is unknown: %w", rerr)}
		}
		if bytes.Equal(got, data) {
			return nil
		}
		return finalError{ErrExists}
	})
}

// putObject uploads data in one request (a multipart upload in GCS's
// terms), with its CRC32C so the store refuses a damaged body.
func (g *GCS) putObject(ctx context.Context, obj gcsObject, data []byte, ifAbsent bool) error {
	h := g.handle(obj)
	if ifAbsent {
		h = h.If(storage.Conditions{DoesNotExist: true})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := h.NewWriter(ctx)
	w.ChunkSize = 0 // one request, no resumable session
	w.CRC32C = crc32.Checksum(data, crc32cTable)
	w.SendCRC32C = true
	if _, err := w.Write(data); err != nil {
		cancel()
		w.Close()
		return err
	}
	return w.Close()
}

var crc32cTable = crc32.MakeTable(crc32.Castagnoli)

// Delete removes an object. Deleting a missing object succeeds, as on S3,
// so a retried delete cannot fail for having worked the first time.
func (g *GCS) Delete(ctx context.Context, path string) error {
	obj, err := parseGCSLocation(path, false)
	if err != nil {
		return err
	}
	return g.do(ctx, path, func(ctx context.Context) error {
		err := g.handle(obj).Delete(ctx)
		if isGCSNotFound(err) {
			return nil
		}
		return err
	})
}
