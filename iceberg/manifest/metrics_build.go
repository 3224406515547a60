package manifest

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// metricsBuilder collects one file's metrics as a manifest entry is
// decoded (or as MetricsOf walks maps) and encodes them. It is reused
// from entry to entry, so its buffers are allocated once per manifest.
type metricsBuilder struct {
	sec  [numMetricKinds][]byte
	last [numMetricKinds]int64
	// messy marks a kind whose ids did not strictly ascend: a writer whose
	// maps iterate in no order (Go's), or a repeated id (the last value
	// wins, as it did when the reader filled maps).
	messy [numMetricKinds]bool
	// arena is the rest of the chunk the encodings are carved from: one
	// allocation per many files rather than one each.
	arena []byte
	pairs []metricPair
	// exact builds each encoding in an allocation of its own size, for a
	// builder of one file (MetricsOf): a chunk carved for one file would
	// keep 16 KiB alive behind a few dozen bytes, for every file a
	// server's scan plan or a writer holds.
	exact bool
}

// metricsChunk is the size of an arena chunk: about fifty files of the
// benchmark's eight-column table. A file kept longer than its manifest
// keeps its chunk alive; a caller that keeps few files of many manifests
// copies their metrics into a MetricsStore (or Clone).
const metricsChunk = 16 << 10

type metricPair struct {
	id         int64
	start, end int // the pair's bytes in the section
}

func (b *metricsBuilder) note(k metricKind, id int64) {
	if len(b.sec[k]) > 0 && id <= b.last[k] {
		b.messy[k] = true
	}
	b.last[k] = id
}

// addCount and addBound append to the section in place (s = append(s,
// …) of one variable writes only its length while the capacity lasts),
// not through binary.AppendVarint, whose result stored back would be a
// pointer write, a GC write barrier per metric while a collection runs.
func (b *metricsBuilder) addCount(k metricKind, id, v int64) {
	b.note(k, id)
	appendVarint(&b.sec[k], id)
	appendVarint(&b.sec[k], v)
}

func (b *metricsBuilder) addBound(k metricKind, id int64, v []byte) {
	b.note(k, id)
	s := &b.sec[k]
	appendVarint(s, id)
	appendUvarint(s, uint64(len(v)))
	*s = append(*s, v...)
}

func appendVarint(s *[]byte, v int64) {
	u := uint64(v) << 1
	if v < 0 {
		u = ^u
	}
	appendUvarint(s, u)
}

func appendUvarint(s *[]byte, u uint64) {
	for u >= 0x80 {
		*s = append(*s, byte(u)|0x80)
		u >>= 7
	}
	*s = append(*s, byte(u))
}

// reset forgets a file half read.
func (b *metricsBuilder) reset() {
	for k := range b.sec {
		b.sec[k], b.messy[k] = b.sec[k][:0], false
	}
}

// finish encodes what was added and resets for the next file.
func (b *metricsBuilder) finish() Metrics {
	size := 0
	for k := range b.sec {
		if b.messy[k] {
			b.tidy(metricKind(k))
		}
		if n := len(b.sec[k]); n > 0 {
			size += 1 + uvarintLen(uint64(n)) + n
		}
	}
	if size == 0 {
		return Metrics{}
	}
	if len(b.arena) < size {
		chunk := metricsChunk
		if b.exact {
			chunk = 0
		}
		b.arena = make([]byte, max(size, chunk))
	}
	out := b.arena[:0:size]
	b.arena = b.arena[size:]
	for k, s := range b.sec {
		if len(s) > 0 {
			out = append(out, byte(k))
			out = binary.AppendUvarint(out, uint64(len(s)))
			out = append(out, s...)
		}
	}
	b.reset()
	return Metrics{enc: out}
}

// tidy sorts kind k's pairs by id, keeping the last of each id.
func (b *metricsBuilder) tidy(k metricKind) {
	sec := b.sec[k]
	b.pairs = b.pairs[:0]
	for at := 0; at < len(sec); {
		id, w := binary.Varint(sec[at:])
		end := at + w
		if k.isBound() {
			n, w2 := binary.Uvarint(sec[end:])
			end += w2 + int(n)
		} else {
			_, w2 := binary.Varint(sec[end:])
			end += w2
		}
		b.pairs = append(b.pairs, metricPair{id, at, end})
		at = end
	}
	slices.SortStableFunc(b.pairs, func(x, y metricPair) int { return cmp.Compare(x.id, y.id) })
	out := make([]byte, 0, len(sec))
	for i, p := range b.pairs {
		if i+1 < len(b.pairs) && b.pairs[i+1].id == p.id {
			continue // a later value of the same id replaces this one
		}
		out = append(out, sec[p.start:p.end]...)
	}
	b.sec[k], b.messy[k] = out, false
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
