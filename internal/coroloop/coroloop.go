// Package coroloop gives iter.Pull coroutines a goroutine of their own.
//
// Go aborts the process ("coro: OS thread locking must match locking at
// coroutine creation") when a coroutine made by iter.Pull is resumed on
// another OS thread than the one it was made on while either is locked to
// its thread. Every call from C into libfloe runs on a goroutine locked to
// the calling thread, and hosts read one Arrow stream from several threads
// (Python's to_pandas reads on a thread of its own, an engine's workers
// take turns), so a reader that pulls a sequence with iter.Pull must make
// and resume it on a goroutine no C call owns. A Loop is that goroutine:
// the reader runs its pulls through Do, a batch at a time, so the handover
// costs two channel operations per batch, not per row.
package coroloop

// Loop runs functions one at a time on its own goroutine.
type Loop struct {
	calls chan func()
}

// Start starts a loop; Stop ends it.
func Start() *Loop {
	l := &Loop{calls: make(chan func())}
	go func() {
		for f := range l.calls {
			f()
		}
	}()
	return l
}

// Do runs f on the loop's goroutine and returns once it has. A panic in f
// is raised again in the caller, with the value it had.
func (l *Loop) Do(f func()) {
	done := make(chan any, 1)
	l.calls <- func() {
		defer func() { done <- recover() }()
		f()
	}
	if p := <-done; p != nil {
		panic(p)
	}
}

// Stop ends the loop's goroutine; Do must not be called after it.
func (l *Loop) Stop() { close(l.calls) }
