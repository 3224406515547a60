//go:build unix

package main

import (
	"sync"
	"syscall"
)

// umask is the process's file mode creation mask, read once (the call
// that reads it also sets it, so it is set straight back).
var umask = sync.OnceValue(func() uint32 {
	m := syscall.Umask(0o022)
	syscall.Umask(m)
	return uint32(m)
})
