package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader/parquet"
)

// FileRange is a byte range of one of a task's files.
type FileRange struct {
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
}

// HostIO reads a task group whose bytes a host fetches itself, for an
// engine with its own I/O layer and cache. The host asks Needed for byte
// ranges, hands them in with Fill, and asks again until Needed returns
// none; then Reader decodes from the filled bytes alone, making no request
// of its own. The first round names the data files' footer reads (and the
// delete files), later ones what the footers and pruning structures point
// at, the last the column chunks the read will touch after pruning (for a
// filtered read, also those of payload columns a filter may leave unread).
type HostIO struct {
	group *TaskGroup
	files *hostFiles
	// env is how the read runs, planning and decoding alike: a limit
	// decides which row groups the read reaches.
	env readEnv
}

// maxHostRange caps a merged range Needed asks for.
const maxHostRange = 64 << 20

// hostFetch reads exactly the ranges Needed named: the bytes are in memory
// already, so never a merged or read-ahead span the host did not fill.
var hostFetch = parquet.FetchOptions{Direct: true}

// errNotFilled marks a read of bytes the host has not handed in.
var errNotFilled = errors.New("byte range not filled by the host")

// HostIO prepares a host-driven read of the task with this process's
// read settings (MemoryLimit aside: the host holds the bytes).
func (t *Task) HostIO(opts ReadOptions) (*HostIO, error) {
	return (&TaskGroup{Tasks: []*Task{t}}).HostIO(opts)
}

// HostIO prepares a host-driven read of the group's tasks with this
// process's read settings (MemoryLimit aside: the host holds the bytes).
func (g *TaskGroup) HostIO(opts ReadOptions) (*HostIO, error) {
	schema, err := g.Schema()
	if err != nil {
		return nil, err
	}
	opts.MemoryLimit = 0
	env, err := readerEnv(nil, nil, schema, opts)
	if err != nil {
		return nil, err
	}
	files := &hostFiles{sizes: map[string]int64{}, filled: map[string][]filledRange{}}
	env.files, env.fetch = files, hostFetch
	for _, t := range g.Tasks {
		if err := t.checkRange(); err != nil {
			return nil, err
		}
		files.sizes[t.Path] = t.FileSize
		for _, d := range t.Deletes {
			files.sizes[d.Path] = d.FileSize
		}
	}
	return &HostIO{group: g, files: files, env: env}, nil
}

// Needed returns the byte ranges the read needs that have not been filled
// yet, or none when the group is ready to decode.
func (h *HostIO) Needed(ctx context.Context) ([]FileRange, error) {
	h.files.startRound()
	for _, t := range h.group.Tasks {
		for _, d := range t.Deletes {
			// Delete files are read whole (a deletion vector: its blob), so
			// they are asked for at once rather than footer first.
			off, length := int64(0), d.FileSize
			if d.ContentOffset != nil && d.ContentSize != nil {
				off, length = *d.ContentOffset, *d.ContentSize
			}
			h.files.want(d.Path, off, length)
		}
	}
	var firstErr error
	// Each task is planned as if it alone could use the group's whole
	// limit: what the tasks before it return is known only when they are
	// decoded.
	env := h.env
	if limit := h.group.limit(env.read); limit >= 0 {
		env.read.Limit = &limit
	}
	for _, t := range h.group.Tasks {
		// The data file's footer read is recorded in the same round, since
		// opening the file comes before loading the deletes.
		ranges, err := plannedReads(ctx, t, env)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		for _, r := range ranges {
			h.files.want(t.Path, r.Off, r.Size)
		}
	}
	if missing := h.files.roundMissing(); len(missing) > 0 {
		return missing, nil
	}
	return nil, firstErr
}

// plannedReads opens the task over the filled bytes and walks its row
// groups as the read will, collecting the column-chunk ranges it loads.
// Reads of bytes not filled yet are recorded as missing on the way.
func plannedReads(ctx context.Context, t *Task, env readEnv) ([]parquet.ByteRange, error) {
	r, err := t.open(ctx, env)
	if err != nil {
		if errors.Is(err, errNotFilled) {
			err = nil
		}
		return nil, err
	}
	defer r.Release()
	var out []parquet.ByteRange
	var firstErr error
	for r.advanceRowGroup() {
		req, read, err := r.planRowGroup()
		if err == nil && read {
			var br *parquet.BatchReader
			if br, err = r.file.NewBatchReader(req); err == nil {
				out = append(out, br.ChunkRanges()...)
				br.Close()
			}
		}
		if err != nil && firstErr == nil && !errors.Is(err, errNotFilled) {
			firstErr = err
		}
	}
	return out, firstErr
}

// Fill hands in the bytes of path at offset off.
func (h *HostIO) Fill(path string, off int64, data []byte) error {
	return h.files.fill(path, off, data)
}

// Reader decodes the group from the filled bytes. A read of bytes not
// filled fails with a clear error.
func (h *HostIO) Reader(ctx context.Context, alloc memory.Allocator) (array.RecordReader, error) {
	env := h.env
	env.alloc = alloc
	return h.group.reader(ctx, env), nil
}

type filledRange struct {
	off  int64
	data []byte
}

// hostFiles serves a task's files from the ranges a host filled, and
// records the reads it could not serve.
type hostFiles struct {
	mu      sync.Mutex
	sizes   map[string]int64
	filled  map[string][]filledRange // sorted by off
	missing []FileRange
}

func (h *hostFiles) startRound() {
	h.mu.Lock()
	h.missing = nil
	h.mu.Unlock()
}

// want records [off, off+length) of path as missing unless filled.
func (h *hostFiles) want(path string, off, length int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if length > 0 && h.findLocked(path, off, length) == nil {
		h.missing = append(h.missing, FileRange{Path: path, Offset: off, Length: length})
	}
}

// roundMissing returns the round's missing ranges, merged where they
// overlap or touch, in path and offset order.
func (h *hostFiles) roundMissing() []FileRange {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := slices.Clone(h.missing)
	sort.Slice(m, func(i, j int) bool {
		if m[i].Path != m[j].Path {
			return m[i].Path < m[j].Path
		}
		return m[i].Offset < m[j].Offset
	})
	var out []FileRange
	for _, r := range m {
		// Touching ranges merge, up to maxHostRange, so a host is never
		// asked for a buffer larger than it can reasonably hand in.
		if n := len(out); n > 0 && out[n-1].Path == r.Path && r.Offset <= out[n-1].Offset+out[n-1].Length &&
			max(out[n-1].Length, r.Offset+r.Length-out[n-1].Offset) <= maxHostRange {
			out[n-1].Length = max(out[n-1].Length, r.Offset+r.Length-out[n-1].Offset)
			continue
		}
		out = append(out, r)
	}
	return out
}

func (h *hostFiles) fill(path string, off int64, data []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	size, ok := h.sizes[path]
	if !ok {
		return fmt.Errorf("fill: %s is not one of the task's files", path)
	}
	if off < 0 || off > size || int64(len(data)) > size-off {
		return fmt.Errorf("fill: [%d,+%d) lies outside %s (%d bytes)", off, len(data), path, size)
	}
	ranges := append(h.filled[path], filledRange{off, data})
	sort.Slice(ranges, func(i, j int) bool { return ranges[i].off < ranges[j].off })
	h.filled[path] = ranges
	return nil
}

func (h *hostFiles) findLocked(path string, off, length int64) []byte {
	for _, r := range h.filled[path] {
		if r.off <= off && off+length <= r.off+int64(len(r.data)) {
			return r.data[off-r.off : off-r.off+length]
		}
	}
	return nil
}

func (h *hostFiles) Open(_ context.Context, path string) (fileio.File, error) {
	size, ok := h.sizes[path]
	if !ok {
		return nil, fmt.Errorf("%s is not one of the task's files", path)
	}
	return &hostFile{files: h, path: path, size: size}, nil
}

func (h *hostFiles) ReadFile(ctx context.Context, path string) ([]byte, error) {
	f, err := h.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, f.Size())
	if _, err := f.ReadAt(buf, 0); err != nil {
		return nil, err
	}
	return buf, nil
}

func (h *hostFiles) Stat(_ context.Context, path string) (fileio.FileInfo, error) {
	size, ok := h.sizes[path]
	if !ok {
		return fileio.FileInfo{}, fmt.Errorf("%s is not one of the task's files", path)
	}
	return fileio.FileInfo{Path: path, Size: size}, nil
}

func (h *hostFiles) Exists(_ context.Context, path string) (bool, error) {
	_, ok := h.sizes[path]
	return ok, nil
}

var errHostReadOnly = errors.New("a host-driven read only reads the task's files")

func (h *hostFiles) WriteFile(context.Context, string, []byte) error { return errHostReadOnly }
func (h *hostFiles) WriteFileIfAbsent(context.Context, string, []byte) error {
	return errHostReadOnly
}
func (h *hostFiles) Create(context.Context, string) (fileio.Writer, error) {
	return nil, errHostReadOnly
}
func (h *hostFiles) Delete(context.Context, string) error { return errHostReadOnly }
func (h *hostFiles) List(context.Context, string) ([]fileio.FileInfo, error) {
	return nil, errHostReadOnly
}

type hostFile struct {
	files *hostFiles
	path  string
	size  int64
}

func (f *hostFile) Size() int64  { return f.size }
func (f *hostFile) Close() error { return nil }

func (f *hostFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= f.size {
		return 0, io.EOF
	}
	length := min(int64(len(p)), f.size-off)
	f.files.mu.Lock()
	b := f.files.findLocked(f.path, off, length)
	if b == nil {
		f.files.missing = append(f.files.missing, FileRange{Path: f.path, Offset: off, Length: length})
	}
	f.files.mu.Unlock()
	if b == nil {
		return 0, fmt.Errorf("%s [%d,+%d): %w", f.path, off, length, errNotFilled)
	}
	n := copy(p, b)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
