//go:build !unix

package table

import "os"

// Without flock, commits rely on put-if-absent alone.
func tryLockFile(*os.File) (ok, supported bool) { return false, false }

func unlockFile(*os.File) {}
