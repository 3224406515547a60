package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Open finds the object's size with a HEAD request and returns a File whose
// ReadAt issues ranged GETs. ReadAt uses ctx, so it must outlive the File.
func (s *S3) Open(ctx context.Context, path string) (File, error) {
	info, err := s.Stat(ctx, path)
	if err != nil {
		return nil, err
	}
	return s.OpenSized(ctx, path, info.Size)
}

// OpenSized is Open for a caller that already knows the object's size (a
// manifest records it), saving the HEAD request. A wrong size shows up as
// an error from ReadAt, not as wrong data.
func (s *S3) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	obj, err := parseS3Location(path, false)
	if err != nil {
		return nil, err
	}
	return newRangedFile(path, size, func(off int64, dst []byte) error { return s.getRange(ctx, path, obj, off, dst) })
}

// getRange fills dst with the object's bytes from off.
func (s *S3) getRange(ctx context.Context, location string, obj s3Object, off int64, dst []byte) error {
	rng := "bytes=" + strconv.FormatInt(off, 10) + "-" + strconv.FormatInt(off+int64(len(dst))-1, 10)
	return s.do(ctx, location, func(ctx context.Context) error {
		out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &obj.bucket, Key: &obj.key, Range: &rng})
		if err != nil {
			return err
		}
		defer out.Body.Close()
		if err := checkRangeResponse(out, off, len(dst)); err != nil {
			return err
		}
		return s.readBody(out.Body, dst)
	})
}

// readBody fills dst from body; fewer bytes is a retryable errShortBody.
func (s *S3) readBody(body io.Reader, dst []byte) error {
	n, err := io.ReadFull(body, dst)
	s.bytesRead.Add(int64(n))
	if err != nil {
		return fmt.Errorf("%w after %d of %d bytes: %w", errShortBody, n, len(dst), err)
	}
	return nil
}

// errBadRange is a ranged GET answered with other bytes than asked for. It
// is not retried: the object changed, or the server ignores ranges.
var errBadRange = errors.New("server answered a ranged read with the wrong bytes")

func checkRangeResponse(out *s3.GetObjectOutput, off int64, n int) error {
	if out.ContentLength != nil && *out.ContentLength < int64(n) {
		return fmt.Errorf("%w: asked for %d bytes at %d, got %d (object shorter than its recorded size?)",
			errBadRange, n, off, *out.ContentLength)
	}
	if out.ContentRange == nil {
		if off != 0 {
			return fmt.Errorf("%w: no Content-Range for a read at %d", errBadRange, off)
		}
		return nil
	}
	// "bytes START-END/TOTAL"
	start, _, _ := strings.Cut(strings.TrimPrefix(*out.ContentRange, "bytes "), "-")
	if got, err := strconv.ParseInt(start, 10, 64); err != nil || got != off {
		return fmt.Errorf("%w: asked for offset %d, Content-Range is %q", errBadRange, off, *out.ContentRange)
	}
	return nil
}

// ReadFile reads a whole object of at most MaxReadFile bytes with one GET.
func (s *S3) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return s.ReadFileLimited(ctx, path, MaxReadFile)
}

// readObject reads a whole object, refusing one longer than limit: by its
// Content-Length before reading the body, or once the body passes limit.
func (s *S3) readObject(ctx context.Context, location string, obj s3Object, limit int64) ([]byte, error) {
	var data []byte
	err := s.do(ctx, location, func(ctx context.Context) error {
		out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &obj.bucket, Key: &obj.key})
		if err != nil {
			return err
		}
		defer out.Body.Close()
		if out.ContentLength == nil || *out.ContentLength < 0 {
			// No announced length: a chunked body's framing still reveals a
			// cut, which surfaces here as io.ErrUnexpectedEOF.
			counted := &countingReader{r: out.Body}
			data, err = readUpTo(counted, location, -1, limit)
			s.bytesRead.Add(counted.n)
			return err
		}
		if *out.ContentLength > limit {
			return &TooLargeError{Path: location, Limit: limit}
		}
		data = make([]byte, *out.ContentLength)
		return s.readBody(out.Body, data)
	})
	if err != nil {
		return nil, err
	}
	return data, nil
}

// Stat describes an object with a HEAD request.
func (s *S3) Stat(ctx context.Context, path string) (FileInfo, error) {
	obj, err := parseS3Location(path, false)
	if err != nil {
		return FileInfo{}, err
	}
	var info FileInfo
	err = s.do(ctx, path, func(ctx context.Context) error {
		out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &obj.bucket, Key: &obj.key})
		if err != nil {
			return err
		}
		if out.ContentLength == nil {
			return fmt.Errorf("fileio: %s: HEAD response has no Content-Length", path)
		}
		info = FileInfo{Path: path, Size: *out.ContentLength, ModTime: aws.ToTime(out.LastModified)}
		return nil
	})
	return info, err
}

// Exists reports whether an object exists. A "directory" (a prefix other
// objects share) is not an object and does not exist.
func (s *S3) Exists(ctx context.Context, path string) (bool, error) {
	_, err := s.Stat(ctx, path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}
