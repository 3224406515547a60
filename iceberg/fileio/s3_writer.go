package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Create starts a streamed write. Data is buffered up to the part size; a
// file that fits is sent with one PUT at Close, a larger one as a multipart
// upload whose parts go out in the background while the caller writes on
// (at most a few at once, so memory stays bounded). Either way nothing is
// visible until Close succeeds.
func (s *S3) Create(ctx context.Context, path string) (Writer, error) {
	obj, err := parseS3Location(path, false)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &s3Writer{s: s, ctx: ctx, location: path, obj: obj}, nil
}

type s3Writer struct {
	s        *S3
	ctx      context.Context
	location string
	obj      s3Object
	buf      []byte
	written  int64
	done     bool

	// Multipart state, set once the first part goes out.
	uploadID  string
	uploadCtx context.Context
	cancel    context.CancelFunc
	nextPart  int32
	inFlight  chan struct{}
	free      chan []byte
	wg        sync.WaitGroup
	mu        sync.Mutex
	parts     []types.CompletedPart
	uploadErr error
}

func (w *s3Writer) Write(p []byte) (int, error) {
	if w.done {
		return 0, errWriterDone
	}
	n := 0
	for len(p) > 0 {
		// A full buffer goes out only when more data follows, so a file of
		// exactly one part size is still a single PUT.
		if int64(len(w.buf)) == w.s.partSize {
			if err := w.sendPart(); err != nil {
				return n, err
			}
		}
		if w.buf == nil {
			w.buf = make([]byte, 0, min(w.s.partSize, max(int64(len(p)), 64<<10)))
		}
		take := min(int(w.s.partSize)-len(w.buf), len(p))
		w.buf = append(w.buf, p[:take]...)
		p = p[take:]
		n += take
		w.written += int64(take)
	}
	return n, nil
}

// sendPart hands the buffer to a background upload and takes a fresh one.
func (w *s3Writer) sendPart() error {
	if err := w.failed(); err != nil {
		return err
	}
	if w.uploadID == "" {
		if err := w.startMultipart(); err != nil {
			return err
		}
	}
	if w.nextPart >= maxS3Parts {
		return fmt.Errorf("fileio: %s: more than %d parts of %d bytes; raise part_size", w.location, maxS3Parts, w.s.partSize)
	}
	w.nextPart++
	part, data := w.nextPart, w.buf
	select {
	case w.buf = <-w.free:
	default:
		w.buf = nil
	}
	select {
	case w.inFlight <- struct{}{}:
	case <-w.uploadCtx.Done():
		return w.failedOr(w.uploadCtx.Err())
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer func() { <-w.inFlight }()
		done, err := w.uploadPart(part, data)
		w.mu.Lock()
		defer w.mu.Unlock()
		if err != nil {
			if w.uploadErr == nil {
				w.uploadErr = err
				w.cancel()
			}
			return
		}
		w.parts = append(w.parts, done)
		select {
		case w.free <- data[:0]:
		default:
		}
	}()
	return nil
}

func (w *s3Writer) startMultipart() error {
	return w.s.do(w.ctx, w.location, func(ctx context.Context) error {
		out, err := w.s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
			Bucket: &w.obj.bucket, Key: &w.obj.key,
			// Declared here and on every part: servers that check part
			// checksums (versitygw among them) refuse parts whose algorithm
			// the upload did not announce.
			ChecksumAlgorithm: types.ChecksumAlgorithmCrc32,
		})
		if err != nil {
			return err
		}
		w.uploadID = aws.ToString(out.UploadId)
		w.uploadCtx, w.cancel = context.WithCancel(w.ctx)
		w.inFlight = make(chan struct{}, s3UploadsInFlight)
		w.free = make(chan []byte, s3UploadsInFlight+1)
		return nil
	})
}

func (w *s3Writer) uploadPart(part int32, data []byte) (types.CompletedPart, error) {
	var done types.CompletedPart
	err := w.s.do(w.uploadCtx, w.location, func(ctx context.Context) error {
		out, err := w.s.client.UploadPart(ctx, &s3.UploadPartInput{
			Bucket: &w.obj.bucket, Key: &w.obj.key, UploadId: &w.uploadID,
			PartNumber:        aws.Int32(part),
			Body:              bytes.NewReader(data),
			ContentLength:     aws.Int64(int64(len(data))),
			ChecksumAlgorithm: types.ChecksumAlgorithmCrc32,
		})
		if err != nil {
			return err
		}
		done = types.CompletedPart{PartNumber: aws.Int32(part), ETag: out.ETag, ChecksumCRC32: out.ChecksumCRC32}
		return nil
	})
	return done, err
}

func (w *s3Writer) failed() error {
	if w.uploadID == "" {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.uploadErr
}

func (w *s3Writer) failedOr(err error) error {
	if ferr := w.failed(); ferr != nil {
		return ferr
	}
	return err
}

// Close publishes the object: one PUT, or the last part and
// CompleteMultipartUpload. On any failure the upload is aborted.
func (w *s3Writer) Close() error {
	if w.done {
		return errWriterDone
	}
	if err := w.ctx.Err(); err != nil {
		w.Abort()
		return err
	}
	if w.uploadID == "" {
		w.done = true
		return w.s.do(w.ctx, w.location, func(ctx context.Context) error {
			return w.s.putObject(ctx, w.obj, w.buf, false)
		})
	}
	err := w.sendPart()
	w.wg.Wait()
	if err == nil {
		err = w.failed()
	}
	if err == nil {
		err = w.complete()
	}
	if err != nil {
		w.Abort()
		return err
	}
	w.done = true
	w.cancel()
	return nil
}

func (w *s3Writer) complete() error {
	slices.SortFunc(w.parts, func(a, b types.CompletedPart) int { return int(*a.PartNumber - *b.PartNumber) })
	mayHaveLanded := false
	return w.s.do(w.ctx, w.location, func(ctx context.Context) error {
		_, err := w.s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
			Bucket: &w.obj.bucket, Key: &w.obj.key, UploadId: &w.uploadID,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: w.parts},
		})
		if err == nil {
			return nil
		}
		// An earlier try may have completed the upload, after which the
		// upload id is gone: the object, at its full size, is the proof.
		if mayHaveLanded && httpStatus(err) == http.StatusNotFound && apiCode(err) == "NoSuchUpload" {
			info, serr := w.s.Stat(ctx, w.location)
			if serr == nil && info.Size == w.written {
				return nil
			}
			return finalError{err}
		}
		mayHaveLanded = true
		return err
	})
}

// Abort discards the write; for a multipart upload it waits for parts in
// flight and then aborts the upload, even when the write's context is
// already done, so no stray parts stay billed.
func (w *s3Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.buf = nil
	if w.uploadID == "" {
		return nil
	}
	w.cancel()
	w.wg.Wait()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), s3CleanupTimeout)
	defer cancel()
	err := w.s.do(ctx, w.location, func(ctx context.Context) error {
		_, err := w.s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
			Bucket: &w.obj.bucket, Key: &w.obj.key, UploadId: &w.uploadID,
		})
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil // already aborted, or never fully created
	}
	return err
}
