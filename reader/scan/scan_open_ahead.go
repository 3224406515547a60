package scan

import (
	"context"
	"sync"
)

// openAhead opens the data files of the tasks next in line while the
// running ones decode, so the footer round trip (on an object store the
// costliest step of a small file; for a file under the footer read size,
// its whole content) overlaps decoding instead of following it. At most
// `ahead` files are held open beyond the running tasks.
type openAhead struct {
	ctx    context.Context
	scan   *Scan
	ahead  int
	mu     sync.Mutex
	opened map[int]*openedFile
	closed bool
	wg     sync.WaitGroup
}

func newOpenAhead(ctx context.Context, s *Scan, ahead int) *openAhead {
	return &openAhead{ctx: ctx, scan: s, ahead: ahead, opened: map[int]*openedFile{}}
}

// after starts opening the files of the tasks that follow task i.
func (a *openAhead) after(i int) {
	if a == nil {
		return
	}
	for j := i + 1; j <= i+a.ahead && j < len(a.scan.tasks) && !a.scan.limitCoveredBefore(j); j++ {
		a.start(j)
	}
}

func (a *openAhead) start(i int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || a.opened[i] != nil {
		return
	}
	task := a.scan.tasks[i]
	fetch := a.scan.Options.FetchOptions
	o := &openedFile{done: make(chan struct{})}
	a.opened[i] = o
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(o.done)
		o.handle, o.metered, o.file, o.err = openDataFile(a.ctx, a.scan.table.IO, task, fetch, a.scan.footers)
	}()
}

// take hands over task i's file if it was opened ahead; nil if not.
func (a *openAhead) take(i int) *openedFile {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	o := a.opened[i]
	if a.opened != nil {
		// Taken, even when it was never started: a later after() must not
		// open the file a second time.
		a.opened[i] = &openedFile{}
	}
	if o != nil && o.done == nil {
		return nil
	}
	return o
}

// close waits for opens in flight and closes the files no task took.
func (a *openAhead) close() {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.closed = true
	var left []*openedFile
	for _, o := range a.opened {
		if o.done != nil {
			left = append(left, o)
		}
	}
	a.opened = nil
	a.mu.Unlock()
	a.wg.Wait()
	for _, o := range left {
		o.close()
	}
}
