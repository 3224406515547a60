// Package commitstep is where a commit reports the steps it passes, so a
// test can stop a process at one of them (a crash test kills itself
// there) whichever package the step is in: the table's commit loop
// ("manifests", "manifest-list", "published", "hint") and the catalogs
// ("metadata-file": written, not yet swapped in; the SQL catalog's
// multi-table commit adds "transaction-row" after each row it swaps,
// "transaction-rows" with every row swapped in a database transaction not
// yet committed, and "transaction-committed"). Outside tests no hook is
// set and reporting costs one atomic load.
package commitstep

import "sync/atomic"

var hook atomic.Pointer[func(step string)]

// SetHook makes fn see every step from now on; nil removes it. For tests.
func SetHook(fn func(step string)) {
	if fn == nil {
		hook.Store(nil)
		return
	}
	hook.Store(&fn)
}

// Reached reports that a commit passed step.
func Reached(step string) {
	if fn := hook.Load(); fn != nil {
		(*fn)(step)
	}
}
