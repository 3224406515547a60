package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/floedb/floe/errkind"
)

// blobClient is the client of one blob.
func (a *Azure) blobClient(obj azureObject) (*blob.Client, error) {
	c, err := a.client(obj)
	if err != nil {
		return nil, err
	}
	return c.NewContainerClient(obj.container).NewBlobClient(obj.key), nil
}

// Open finds the blob's size with a Get Blob Properties request and returns
// a File whose ReadAt issues ranged GETs. ReadAt uses ctx, so it must
// outlive the File.
func (a *Azure) Open(ctx context.Context, path string) (File, error) {
	info, err := a.Stat(ctx, path)
	if err != nil {
		return nil, err
	}
	return a.OpenSized(ctx, path, info.Size)
}

// OpenSized is Open for a caller that already knows the blob's size,
// saving the properties request; a wrong size shows up as an error from
// ReadAt, not as wrong data.
func (a *Azure) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	obj, err := a.parseLocation(path, false)
	if err != nil {
		return nil, err
	}
	return newRangedFile(path, size, func(off int64, dst []byte) error { return a.getRange(ctx, path, obj, off, dst) })
}

// getRange fills dst with the blob's bytes from off.
func (a *Azure) getRange(ctx context.Context, location string, obj azureObject, off int64, dst []byte) error {
	bc, err := a.blobClient(obj)
	if err != nil {
		return err
	}
	return a.do(ctx, location, func(ctx context.Context) error {
		out, err := bc.DownloadStream(ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: off, Count: int64(len(dst))}})
		if err != nil {
			return err
		}
		defer out.Body.Close()
		if err := checkAzureRange(out.ContentLength, out.ContentRange, off, len(dst)); err != nil {
			return err
		}
		return a.readBody(out.Body, dst)
	})
}

// readBody fills dst from body; fewer bytes is a retryable errShortBody.
func (a *Azure) readBody(body io.Reader, dst []byte) error {
	n, err := io.ReadFull(body, dst)
	a.bytesRead.Add(int64(n))
	if err != nil {
		return fmt.Errorf("%w after %d of %d bytes: %w", errShortBody, n, len(dst), err)
	}
	return nil
}

// checkAzureRange refuses a ranged answer that holds other bytes than
// asked for (errBadRange, not retried: the blob changed).
func checkAzureRange(length *int64, contentRange *string, off int64, n int) error {
	if length != nil && *length < int64(n) {
		return fmt.Errorf("%w: asked for %d bytes at %d, got %d (blob shorter than its recorded size?)", errBadRange, n, off, *length)
	}
	if contentRange == nil {
		if off != 0 {
			return fmt.Errorf("%w: no Content-Range for a read at %d", errBadRange, off)
		}
		return nil
	}
	start, _, _ := strings.Cut(strings.TrimPrefix(*contentRange, "bytes "), "-")
	if got, err := strconv.ParseInt(start, 10, 64); err != nil || got != off {
		return fmt.Errorf("%w: asked for offset %d, Content-Range is %q", errBadRange, off, *contentRange)
	}
	return nil
}

// ReadFile reads a whole blob of at most MaxReadFile bytes with one GET.
func (a *Azure) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return a.ReadFileLimited(ctx, path, MaxReadFile)
}

// ReadFileLimited reads a whole blob, refusing one longer than limit: by
// its Content-Length before reading the body.
func (a *Azure) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	obj, err := a.parseLocation(path, false)
	if err != nil {
		return nil, err
	}
	return a.readObject(ctx, path, obj, limit)
}

func (a *Azure) readObject(ctx context.Context, location string, obj azureObject, limit int64) ([]byte, error) {
	bc, err := a.blobClient(obj)
	if err != nil {
		return nil, err
	}
	var data []byte
	err = a.do(ctx, location, func(ctx context.Context) error {
		out, err := bc.DownloadStream(ctx, nil)
		if err != nil {
			return err
		}
		defer out.Body.Close()
		if out.ContentLength == nil || *out.ContentLength < 0 {
			counted := &countingReader{r: out.Body}
			data, err = readUpTo(counted, location, -1, limit)
			a.bytesRead.Add(counted.n)
			return err
		}
		if *out.ContentLength > limit {
			return finalError{&TooLargeError{Path: location, Limit: limit}}
		}
		data = make([]byte, *out.ContentLength)
		return a.readBody(out.Body, data)
	})
	if err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			return nil, tl
		}
		return nil, err
	}
	return data, nil
}

// Stat describes a blob with a Get Blob Properties request.
func (a *Azure) Stat(ctx context.Context, path string) (FileInfo, error) {
	obj, err := a.parseLocation(path, false)
	if err != nil {
		return FileInfo{}, err
	}
	bc, err := a.blobClient(obj)
	if err != nil {
		return FileInfo{}, err
	}
	var info FileInfo
	err = a.do(ctx, path, func(ctx context.Context) error {
		out, err := bc.GetProperties(ctx, nil)
		if err != nil {
			return err
		}
		if out.ContentLength == nil {
			return finalError{fmt.Errorf("blob properties have no Content-Length")}
		}
		if isAzureFolder(out.Metadata) {
			// A hierarchical-namespace account's directory: no file.
			return finalError{errkind.Errorf(errkind.NotFound, "%w (a directory)", fs.ErrNotExist)}
		}
		info = FileInfo{Path: path, Size: *out.ContentLength}
		if out.LastModified != nil {
			info.ModTime = *out.LastModified
		}
		return nil
	})
	return info, err
}

// Exists reports whether a blob exists. A "directory" (a prefix other
// blobs share) is not a blob and does not exist.
func (a *Azure) Exists(ctx context.Context, path string) (bool, error) {
	_, err := a.Stat(ctx, path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}

// isAzureFolder tells a hierarchical-namespace directory, which the blob
// API shows as an empty blob marked hdi_isfolder.
func isAzureFolder(metadata map[string]*string) bool {
	for k, v := range metadata {
		if strings.EqualFold(k, "hdi_isfolder") && v != nil && strings.EqualFold(*v, "true") {
			return true
		}
	}
	return false
}
