package fileio

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
)

// blockBlobClient is the block-blob client of one blob.
func (a *Azure) blockBlobClient(obj azureObject) (*blockblob.Client, error) {
	c, err := a.client(obj)
	if err != nil {
		return nil, err
	}
	return c.NewContainerClient(obj.container).NewBlockBlobClient(obj.key), nil
}

// WriteFile replaces a blob with one Put Blob; Azure makes it visible whole.
func (a *Azure) WriteFile(ctx context.Context, path string, data []byte) error {
	obj, err := a.parseLocation(path, false)
	if err != nil {
		return err
	}
	bc, err := a.blockBlobClient(obj)
	if err != nil {
		return err
	}
	return a.do(ctx, path, func(ctx context.Context) error {
		return putBlob(ctx, bc, data, false)
	})
}

// WriteFileIfAbsent creates a blob with a conditional Put Blob
// (If-None-Match: *), which Azure lets exactly one of many racing writers
// win; the others get 409 BlobAlreadyExists (or 412 ConditionNotMet).
//
// As on S3, a retried put can meet its own earlier success: when a try
// failed in a way that may have left the blob written (a timeout, a 5xx,
// a lost answer) and a later try finds the blob, it is read back, and if
// it holds exactly our bytes the write is reported as done. If it cannot
// be read back the outcome is unknown, and the error says so rather than
// claiming ErrExists.
func (a *Azure) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	obj, err := a.parseLocation(path, false)
	if err != nil {
		return err
	}
	bc, err := a.blockBlobClient(obj)
	if err != nil {
		return err
	}
	mayHaveLanded := false
	return a.do(ctx, path, func(ctx context.Context) error {
		err := putBlob(ctx, bc, data, true)
		if err == nil {
			return nil
		}
		if !blobTaken(err) {
			mayHaveLanded = true
			return err
		}
		if !mayHaveLanded {
			return finalError{ErrExists}
		}
		got, rerr := a.readObject(ctx, path, obj, MaxReadFile)
		if rerr != nil {
			return finalError{fmt.Errorf("the blob exists, and reading it back to learn whether an earlier "+
				"try of this write created it failed, so the outcome is unknown: %w", rerr)}
		}
		if bytes.Equal(got, data) {
			return nil
		}
		return finalError{ErrExists}
	})
}

// blobTaken is a conditional put refused because the blob exists.
func blobTaken(err error) bool {
	switch azureStatus(err) {
	case http.StatusConflict:
		return bloberror.HasCode(err, bloberror.BlobAlreadyExists)
	case http.StatusPreconditionFailed:
		return true
	}
	return false
}

func putBlob(ctx context.Context, bc *blockblob.Client, data []byte, ifAbsent bool) error {
	var opts *blockblob.UploadOptions
	if ifAbsent {
		etag := azcore.ETagAny
		opts = &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{
			ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &etag},
		}}
	}
	_, err := bc.Upload(ctx, nopSeekCloser{bytes.NewReader(data)}, opts)
	return err
}

// nopSeekCloser is the io.ReadSeekCloser the SDK wants for a body it may
// rewind.
type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }

// Delete removes a blob. Deleting a missing blob succeeds, as on S3, so a
// retried delete cannot fail for having worked the first time.
func (a *Azure) Delete(ctx context.Context, path string) error {
	obj, err := a.parseLocation(path, false)
	if err != nil {
		return err
	}
	bc, err := a.blobClient(obj)
	if err != nil {
		return err
	}
	return a.do(ctx, path, func(ctx context.Context) error {
		_, err := bc.Delete(ctx, nil)
		if azureStatus(err) == http.StatusNotFound && bloberror.HasCode(err, bloberror.BlobNotFound) {
			return nil
		}
		return err
	})
}
