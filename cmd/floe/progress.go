package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/floedb/floe/internal/progress"
	"golang.org/x/term"
)

// statusLine shows a long command's progress on stderr: on a terminal one
// line redrawn in place; with --progress elsewhere (a log), a line per
// update. Work comes from sample, polled on a ticker, so the command's
// own loop pays nothing for it.
type statusLine struct {
	w        io.Writer
	terminal bool
	verb     string
	noun     string // what Files counts: "files", "splits"
	sample   func() progress.Sample
	start    time.Time
	stop     chan struct{}
	stopped  sync.WaitGroup
	finished sync.Once
	mu       sync.Mutex
	drawn    int // width of the line on screen; 0 before the first draw
}

// How often the line is redrawn, and how long a command runs before the
// first draw (a quick command shows nothing); lines mode (--progress off a
// terminal) writes less often.
var (
	progressEvery      = 200 * time.Millisecond
	progressFirstDraw  = 500 * time.Millisecond
	progressLinesEvery = 2 * time.Second
)

// startProgress starts the status line for a command whose flags are a,
// or returns nil (whose finish does nothing): --quiet, or stderr is not a
// terminal and --progress was not given.
func startProgress(a *args, errOut io.Writer, verb, noun string, sample func() progress.Sample) *statusLine {
	if a.bools["quiet"] {
		return nil
	}
	terminal := false
	if f, ok := errOut.(*os.File); ok {
		terminal = term.IsTerminal(int(f.Fd()))
	}
	if !terminal && !a.bools["progress"] {
		return nil
	}
	s := &statusLine{w: errOut, terminal: terminal, verb: verb, noun: noun, sample: sample,
		start: time.Now(), stop: make(chan struct{})}
	s.stopped.Add(1)
	go s.run()
	return s
}

func (s *statusLine) run() {
	defer s.stopped.Done()
	every, first := progressEvery, progressFirstDraw
	if !s.terminal { // lines mode: --progress off a terminal
		every, first = progressLinesEvery, progressLinesEvery
	}
	select {
	case <-s.stop:
		return
	case <-time.After(first):
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		s.draw(s.render(s.sample(), time.Since(s.start), false))
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

// finish stops the updates and leaves the final figures on a line of
// their own, when anything was drawn (or in lines mode, always). Calls
// after the first do nothing.
func (s *statusLine) finish() {
	if s == nil {
		return
	}
	s.finished.Do(s.end)
}

func (s *statusLine) end() {
	close(s.stop)
	s.stopped.Wait()
	if s.drawn == 0 && s.terminal {
		return
	}
	s.draw(s.render(s.sample(), time.Since(s.start), true))
	if s.terminal {
		fmt.Fprintln(s.w)
	}
}

func (s *statusLine) draw(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	width := utf8.RuneCountInString(line) // "·" takes one column, two bytes
	if !s.terminal {
		fmt.Fprintln(s.w, line)
		s.drawn = width
		return
	}
	pad := ""
	if s.drawn > width {
		pad = strings.Repeat(" ", s.drawn-width)
	}
	fmt.Fprintf(s.w, "\r%s%s", line, pad)
	s.drawn = width
}

// render is one status line: "scan: 3/12 files · 45.2 MB of 180.0 MB ·
// 1.2 M rows · 52.1 MB/s · 0:03 left", or when final, the totals and the
// time taken.
func (s *statusLine) render(p progress.Sample, elapsed time.Duration, final bool) string {
	var parts []string
	switch {
	case p.FilesTotal > 0:
		parts = append(parts, fmt.Sprintf("%d/%d %s", p.Files, p.FilesTotal, s.noun))
	case p.Files > 0:
		parts = append(parts, fmt.Sprintf("%d %s", p.Files, s.noun))
	}
	switch {
	case p.BytesTotal > 0:
		parts = append(parts, fmt.Sprintf("%s of %s", byteSize(p.Bytes), byteSize(p.BytesTotal)))
	case p.Bytes > 0:
		parts = append(parts, byteSize(p.Bytes))
	}
	switch {
	case p.RowsTotal > 0:
		parts = append(parts, fmt.Sprintf("%s of %s rows", count(p.Rows), count(p.RowsTotal)))
	case p.Rows > 0 || p.Files == 0:
		parts = append(parts, count(p.Rows)+" rows")
	}
	secs := elapsed.Seconds()
	if final {
		parts = append(parts, fmt.Sprintf("in %.1f s", secs))
		return s.verb + ": " + strings.Join(parts, " · ")
	}
	if secs > 0 {
		if p.Bytes > 0 {
			parts = append(parts, byteSize(int64(float64(p.Bytes)/secs))+"/s")
		} else if p.Rows > 0 {
			parts = append(parts, count(int64(float64(p.Rows)/secs))+" rows/s")
		}
	}
	if f := fractionDone(p); f > 0 && f < 1 && elapsed >= time.Second {
		left := time.Duration(float64(elapsed) * (1 - f) / f)
		parts = append(parts, clock(left)+" left")
	}
	return s.verb + ": " + strings.Join(parts, " · ")
}

// fractionDone is how far the work is, by the finest measure with a
// known total: bytes, then rows, then files; 0 when none is known.
func fractionDone(p progress.Sample) float64 {
	switch {
	case p.BytesTotal > 0:
		return float64(p.Bytes) / float64(p.BytesTotal)
	case p.RowsTotal > 0:
		return float64(p.Rows) / float64(p.RowsTotal)
	case p.FilesTotal > 0:
		return float64(p.Files) / float64(p.FilesTotal)
	}
	return 0
}

func byteSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n), "kMGTPE"
	i := -1
	for v >= unit && i < len(suffix)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %cB", v, suffix[i])
}

func count(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f G", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1f k", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func clock(d time.Duration) string {
	sec := int64(d.Round(time.Second) / time.Second)
	if sec >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	}
	return fmt.Sprintf("%d:%02d", sec/60, sec%60)
}
