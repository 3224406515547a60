package fileio

import (
	"context"
	"time"

	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
)

// Create starts a streamed write. Data is buffered up to the chunk size; a
// file that fits is sent in one request at Close, a larger one as a
// resumable upload, chunk by chunk while the caller writes on, so memory
// stays at about one chunk. Either way nothing is visible until Close
// succeeds.
//
// A resumable upload is the one place the library retries by itself: only
// it knows how many bytes of a chunk the server kept, and it resumes from
// there. It retries what do would (gcsRetryable), with the same budget and
// full-jitter backoff; the upload is not conditional, so a retry cannot
// change its outcome.
func (g *GCS) Create(ctx context.Context, path string) (Writer, error) {
	obj, err := parseGCSLocation(path, false)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &gcsWriter{g: g, ctx: ctx, location: path, obj: obj}, nil
}

type gcsWriter struct {
	g        *GCS
	ctx      context.Context
	location string
	obj      gcsObject
	buf      []byte
	done     bool

	// The resumable upload, once the data outgrows one chunk.
	upload *storage.Writer
	cancel context.CancelFunc
}

func (w *gcsWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, errWriterDone
	}
	if w.upload == nil && int64(len(w.buf)+len(p)) <= w.g.chunkSize {
		w.buf = append(w.buf, p...)
		return len(p), nil
	}
	if w.upload == nil {
		w.startUpload()
		buffered := w.buf
		w.buf = nil
		if _, err := w.upload.Write(buffered); err != nil {
			return 0, gcsError(w.location, err)
		}
	}
	n, err := w.upload.Write(p)
	if err != nil {
		return n, gcsError(w.location, err)
	}
	return n, nil
}

func (w *gcsWriter) startUpload() {
	ctx, cancel := context.WithCancel(w.ctx)
	h := w.g.handle(w.obj).Retryer(
		storage.WithPolicy(storage.RetryAlways),
		storage.WithMaxAttempts(w.g.maxAttempts),
		storage.WithBackoff(gax.Backoff{Initial: w.g.retryBase, Max: w.g.retryMax, Multiplier: 2}),
		storage.WithErrorFunc(gcsRetryable),
	)
	up := h.NewWriter(ctx)
	up.ChunkSize = int(w.g.chunkSize)
	// The library's default per-chunk deadline is 32 s of retries; ours
	// is the attempt budget.
	up.ChunkRetryDeadline = time.Hour
	w.upload, w.cancel = up, cancel
}

// Close publishes the object: one request, or the last chunk of the
// resumable upload, which finalises it. On any failure the upload is
// abandoned, and an unfinalised upload never becomes an object.
func (w *gcsWriter) Close() error {
	if w.done {
		return errWriterDone
	}
	if err := w.ctx.Err(); err != nil {
		w.Abort()
		return err
	}
	w.done = true
	if w.upload == nil {
		data := w.buf
		w.buf = nil
		return w.g.do(w.ctx, w.location, func(ctx context.Context) error {
			return w.g.putObject(ctx, w.obj, data, false)
		})
	}
	err := w.upload.Close()
	w.cancel()
	if err != nil {
		return gcsError(w.location, err)
	}
	return nil
}

// Abort discards the write: a resumable upload's context is cancelled, so
// its session is never finalised (GCS drops it after a week).
func (w *gcsWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.buf = nil
	if w.upload != nil {
		w.cancel()
		w.upload.Close()
	}
	return nil
}
