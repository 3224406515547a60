package table

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/floedb/floe/iceberg/fileio"
)

// Writers on one machine take a lock file beside the metadata files while
// they build and publish a version, so they queue instead of racing: with
// many writers appending at once, a racing writer could lose every one of
// its retries. The lock is only an optimisation: put-if-absent keeps
// commits correct without it (object stores, other engines, a lock that
// could not be had in time), and the kernel releases it when its process
// dies.

// commitLockName is hidden, so engines listing metadata files ignore it.
const commitLockName = ".floe-commit.lock"

// maxLockWait bounds the wait for another writer's lock; past it the
// commit proceeds unlocked, relying on put-if-absent alone.
const maxLockWait = 30 * time.Second

// commitLock is a held lock; nil when none could be taken.
type commitLock struct{ f *os.File }

// lockForCommit takes the commit lock of the table's metadata directory
// when it is on the local file system.
func lockForCommit(ctx context.Context, t *Table) *commitLock {
	dir := fileio.Remap(t.IO, parentDir(t.MetadataLocation))
	if fileio.Scheme(dir) != "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(filepath.FromSlash(dir), commitLockName), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil
	}
	deadline := time.Now().Add(maxLockWait)
	for {
		ok, supported := tryLockFile(f)
		if ok {
			return &commitLock{f: f}
		}
		if !supported || time.Now().After(deadline) || ctx.Err() != nil {
			f.Close()
			return nil
		}
		time.Sleep(time.Duration(200+rand.IntN(800)) * time.Microsecond)
	}
}

func (l *commitLock) release() {
	if l == nil {
		return
	}
	unlockFile(l.f)
	l.f.Close()
}
