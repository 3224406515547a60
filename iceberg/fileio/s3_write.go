package fileio

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// WriteFile replaces an object with one PUT; S3 makes it visible whole.
func (s *S3) WriteFile(ctx context.Context, path string, data []byte) error {
	obj, err := parseS3Location(path, false)
	if err != nil {
		return err
	}
	return s.do(ctx, path, func(ctx context.Context) error {
		return s.putObject(ctx, obj, data, false)
	})
}

// WriteFileIfAbsent creates an object with a conditional PUT
// (If-None-Match: *), which S3 lets exactly one of many racing writers win.
//
// A retried PUT can meet its own earlier success: when a try failed in a way
// that may have left the object written (a timeout, a 5xx) and a later try
// gets 412, the object is read back, and if it holds exactly our bytes the
// write is reported as done. If it cannot be read back the outcome is
// unknown, and the error says so rather than claiming ErrExists.
func (s *S3) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	obj, err := parseS3Location(path, false)
	if err != nil {
		return err
	}
	mayHaveLanded := false
	return s.do(ctx, path, func(ctx context.Context) error {
		err := s.putObject(ctx, obj, data, true)
		if err == nil {
			return nil
		}
		if httpStatus(err) != http.StatusPreconditionFailed {
			mayHaveLanded = true
			return err
		}
		if !mayHaveLanded {
			return finalError{ErrExists}
		}
		got, rerr := s.readObject(ctx, path, obj, MaxReadFile)
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

func (s *S3) putObject(ctx context.Context, obj s3Object, data []byte, ifAbsent bool) error {
	in := &s3.PutObjectInput{
		Bucket:        &obj.bucket,
		Key:           &obj.key,
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
	}
	if ifAbsent {
		in.IfNoneMatch = aws.String("*")
	}
	_, err := s.client.PutObject(ctx, in)
	return err
}

// finalError is never retried: the SDK's retry rules honour
// RetryableError() false before any other.
type finalError struct{ error }

func (e finalError) Unwrap() error        { return e.error }
func (e finalError) RetryableError() bool { return false }

// Delete removes an object. Deleting a missing object succeeds, as it does
// in S3, so a retried delete cannot fail for having worked the first time.
func (s *S3) Delete(ctx context.Context, path string) error {
	obj, err := parseS3Location(path, false)
	if err != nil {
		return err
	}
	return s.do(ctx, path, func(ctx context.Context) error {
		_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &obj.bucket, Key: &obj.key})
		return err
	})
}
