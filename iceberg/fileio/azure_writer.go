package fileio

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
)

// Create starts a streamed write. Data is buffered up to the block size; a
// file that fits is sent with one Put Blob at Close, a larger one is staged
// block by block (Put Block) in the background while the caller writes
// on, at most a few at once so memory stays bounded, and published by
// committing the block list at Close. Uncommitted blocks are invisible:
// nothing shows at path until Close succeeds, and Azure discards the blocks
// of an abandoned write by itself (after a week), as no call can.
func (a *Azure) Create(ctx context.Context, path string) (Writer, error) {
	obj, err := a.parseLocation(path, false)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bc, err := a.blockBlobClient(obj)
	if err != nil {
		return nil, err
	}
	var id [12]byte
	rand.Read(id[:])
	return &azureWriter{a: a, ctx: ctx, location: path, bc: bc, writeID: hex.EncodeToString(id[:])}, nil
}

type azureWriter struct {
	a        *Azure
	ctx      context.Context
	location string
	bc       *blockblob.Client
	writeID  string // makes this write's block ids its own among concurrent writers of the path
	buf      []byte
	done     bool

	// Staging state, set once the first block goes out.
	staging  bool
	stageCtx context.Context
	cancel   context.CancelFunc
	blockIDs []string // in order
	inFlight chan struct{}
	free     chan []byte
	wg       sync.WaitGroup
	mu       sync.Mutex
	stageErr error
}

func (w *azureWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, errWriterDone
	}
	n := 0
	for len(p) > 0 {
		// A full buffer goes out only when more data follows, so a file of
		// exactly one block is still a single Put Blob.
		if int64(len(w.buf)) == w.a.blockSize {
			if err := w.stageBlock(); err != nil {
				return n, err
			}
		}
		if w.buf == nil {
			w.buf = make([]byte, 0, min(w.a.blockSize, max(int64(len(p)), 64<<10)))
		}
		take := min(int(w.a.blockSize)-len(w.buf), len(p))
		w.buf = append(w.buf, p[:take]...)
		p = p[take:]
		n += take
	}
	return n, nil
}

// blockID is the base64 id of the n-th block: all of one blob's ids must
// have the same length.
func (w *azureWriter) blockID(n int) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "%s-%06d", w.writeID, n))
}

// stageBlock hands the buffer to a background Put Block and takes a fresh
// one.
func (w *azureWriter) stageBlock() error {
	if err := w.failed(); err != nil {
		return err
	}
	if !w.staging {
		w.staging = true
		w.stageCtx, w.cancel = context.WithCancel(w.ctx)
		w.inFlight = make(chan struct{}, azureUploadsInFlight)
		w.free = make(chan []byte, azureUploadsInFlight+1)
	}
	if len(w.blockIDs) >= maxAzureBlocks {
		return fmt.Errorf("fileio: %s: more than %d blocks of %d bytes; raise block_size", w.location, maxAzureBlocks, w.a.blockSize)
	}
	id, data := w.blockID(len(w.blockIDs)), w.buf
	w.blockIDs = append(w.blockIDs, id)
	select {
	case w.buf = <-w.free:
	default:
		w.buf = nil
	}
	select {
	case w.inFlight <- struct{}{}:
	case <-w.stageCtx.Done():
		return w.failedOr(w.stageCtx.Err())
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer func() { <-w.inFlight }()
		err := w.a.do(w.stageCtx, w.location, func(ctx context.Context) error {
			_, err := w.bc.StageBlock(ctx, id, nopSeekCloser{bytes.NewReader(data)}, nil)
			return err
		})
		w.mu.Lock()
		defer w.mu.Unlock()
		if err != nil {
			if w.stageErr == nil {
				w.stageErr = err
				w.cancel()
			}
			return
		}
		select {
		case w.free <- data[:0]:
		default:
		}
	}()
	return nil
}

func (w *azureWriter) failed() error {
	if !w.staging {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stageErr
}

func (w *azureWriter) failedOr(err error) error {
	if ferr := w.failed(); ferr != nil {
		return ferr
	}
	return err
}

// Close publishes the blob: one Put Blob, or the last block and Put Block
// List. Committing the same list again is harmless, so a retried commit
// whose first try landed succeeds too.
func (w *azureWriter) Close() error {
	if w.done {
		return errWriterDone
	}
	if err := w.ctx.Err(); err != nil {
		w.Abort()
		return err
	}
	if !w.staging {
		w.done = true
		return w.a.do(w.ctx, w.location, func(ctx context.Context) error {
			return putBlob(ctx, w.bc, w.buf, false)
		})
	}
	err := w.stageBlock()
	w.wg.Wait()
	if err == nil {
		err = w.failed()
	}
	if err == nil {
		ids := slices.Clone(w.blockIDs)
		err = w.a.do(w.ctx, w.location, func(ctx context.Context) error {
			_, err := w.bc.CommitBlockList(ctx, ids, nil)
			return err
		})
	}
	if err != nil {
		w.Abort()
		return err
	}
	w.done = true
	w.cancel()
	return nil
}

// Abort discards the write: it stops the blocks in flight and waits for
// them. Their staged bytes stay uncommitted, invisible, until Azure drops
// them.
func (w *azureWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.buf = nil
	if !w.staging {
		return nil
	}
	w.cancel()
	w.wg.Wait()
	return nil
}
