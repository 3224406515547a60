package manifest

import (
	"encoding/binary"
	"maps"
	"slices"
)

// Metrics are a file's column metrics, keyed by field id: the manifest's
// column_sizes, value_counts, null_value_counts, nan_value_counts,
// lower_bounds and upper_bounds (bounds in the binary single-value
// encoding, maybe truncated). They are one read-only byte string rather
// than six maps: planning a table of a million files spent 60-65% of its
// CPU decoding entries, most of it building those maps (an allocation per
// map, GC write barriers, then scanning them), and a scan holding every
// task kept 3.9 GB of them; yet pruning asks about the few columns a
// filter names, and most files are never asked at all. Lookups walk the
// bytes (a few dozen at most per kind); Maps builds the maps for callers
// that want them, and MetricsOf makes Metrics from them.
//
// The encoding is canonical, so two Metrics hold the same metrics exactly
// when their bytes are equal (reflect.DeepEqual compares them): for each
// kind that has an entry, in kind order, the kind's byte, the uvarint
// length of its pairs, then the pairs in ascending field id, each id once:
// the id as a varint, then a count as a varint or a bound as its uvarint
// length and bytes. No metrics at all is the zero Metrics (nil bytes).
//
// The zero value is valid and empty. A Metrics may share memory with
// others read from the same manifest; bounds it returns must not be
// modified.
type Metrics struct{ enc []byte }

// MetricMaps are Metrics as maps keyed by field id, the form writers
// build them in. A nil or empty map means none of that kind.
type MetricMaps struct {
	ColumnSizes     map[int]int64
	ValueCounts     map[int]int64
	NullValueCounts map[int]int64
	NaNValueCounts  map[int]int64
	LowerBounds     map[int][]byte
	UpperBounds     map[int][]byte
}

// metricKind is a section of the encoding; the order is the sections'.
type metricKind byte

const (
	kindColumnSizes metricKind = iota
	kindValueCounts
	kindNullCounts
	kindNaNCounts
	kindLowerBounds
	kindUpperBounds
	numMetricKinds
)

func (k metricKind) isBound() bool { return k >= kindLowerBounds }

// MetricsOf is the Metrics of m (copied: m may change afterwards).
func MetricsOf(m MetricMaps) Metrics {
	b := metricsBuilder{exact: true}
	counts := [...]map[int]int64{m.ColumnSizes, m.ValueCounts, m.NullValueCounts, m.NaNValueCounts}
	for k, c := range counts {
		for _, id := range slices.Sorted(maps.Keys(c)) {
			b.addCount(metricKind(k), int64(id), c[id])
		}
	}
	for k, c := range [...]map[int][]byte{m.LowerBounds, m.UpperBounds} {
		for _, id := range slices.Sorted(maps.Keys(c)) {
			b.addBound(kindLowerBounds+metricKind(k), int64(id), c[id])
		}
	}
	return b.finish()
}

// Maps returns the metrics as maps, nil for each kind without an entry.
func (m Metrics) Maps() MetricMaps {
	var out MetricMaps
	counts := [...]*map[int]int64{&out.ColumnSizes, &out.ValueCounts, &out.NullValueCounts, &out.NaNValueCounts}
	for k, dst := range counts {
		m.eachCount(metricKind(k), func(id, v int64) {
			if *dst == nil {
				*dst = map[int]int64{}
			}
			(*dst)[int(id)] = v
		})
	}
	for k, dst := range [...]*map[int][]byte{&out.LowerBounds, &out.UpperBounds} {
		m.eachBound(kindLowerBounds+metricKind(k), func(id int64, v []byte) {
			if *dst == nil {
				*dst = map[int][]byte{}
			}
			(*dst)[int(id)] = v
		})
	}
	return out
}

// IsEmpty reports whether there are no metrics at all.
func (m Metrics) IsEmpty() bool { return len(m.enc) == 0 }

// Clone is m in memory of its own, so that it does not keep alive the
// memory it shares with the other files of its manifest.
func (m Metrics) Clone() Metrics {
	if len(m.enc) == 0 {
		return Metrics{}
	}
	return Metrics{enc: slices.Clip(slices.Clone(m.enc))}
}

// ColumnSize is column id's size in bytes, if recorded.
func (m Metrics) ColumnSize(id int) (int64, bool) { return m.count(kindColumnSizes, id) }

// ValueCount is column id's count of values (nulls and NaNs included).
func (m Metrics) ValueCount(id int) (int64, bool) { return m.count(kindValueCounts, id) }

// NullCount is column id's count of nulls.
func (m Metrics) NullCount(id int) (int64, bool) { return m.count(kindNullCounts, id) }

// NaNCount is column id's count of NaNs.
func (m Metrics) NaNCount(id int) (int64, bool) { return m.count(kindNaNCounts, id) }

// LowerBound is column id's lower bound, if recorded (maybe empty: the
// empty string's bound).
func (m Metrics) LowerBound(id int) ([]byte, bool) { return m.bound(kindLowerBounds, id) }

// UpperBound is column id's upper bound, if recorded.
func (m Metrics) UpperBound(id int) ([]byte, bool) { return m.bound(kindUpperBounds, id) }

// ColumnMetrics are the metrics of one column, each with whether it was
// recorded.
type ColumnMetrics struct {
	ColumnSize, ValueCount, NullCount, NaNCount             int64
	HasColumnSize, HasValueCount, HasNullCount, HasNaNCount bool
	Lower, Upper                                            []byte
	HasLower, HasUpper                                      bool
}

// Column is every metric of column id, in one walk of the bytes: what
// pruning by a predicate on the column reads (a plain loop, not sections'
// iterator: pruning asks this of every file a filter reaches, three
// times for the benchmark's filter).
func (m Metrics) Column(id int) ColumnMetrics {
	var c ColumnMetrics
	b, want := m.enc, int64(id)
	for len(b) > 0 {
		k := metricKind(b[0])
		n, w := binary.Uvarint(b[1:])
		sec := b[1+w : 1+w+int(n)]
		b = b[1+w+int(n):]
		switch k {
		case kindColumnSizes:
			c.ColumnSize, c.HasColumnSize = findCount(sec, want)
		case kindValueCounts:
			c.ValueCount, c.HasValueCount = findCount(sec, want)
		case kindNullCounts:
			c.NullCount, c.HasNullCount = findCount(sec, want)
		case kindNaNCounts:
			c.NaNCount, c.HasNaNCount = findCount(sec, want)
		case kindLowerBounds:
			c.Lower, c.HasLower = findBound(sec, want)
		case kindUpperBounds:
			c.Upper, c.HasUpper = findBound(sec, want)
		}
	}
	return c
}

// sections yields each kind present and its pairs. The bytes are this
// package's own (a reader or MetricsOf made them), so they are trusted.
func (m Metrics) sections() func(yield func(metricKind, []byte) bool) {
	return func(yield func(metricKind, []byte) bool) {
		b := m.enc
		for len(b) > 0 {
			k := metricKind(b[0])
			n, w := binary.Uvarint(b[1:])
			sec := b[1+w : 1+w+int(n)]
			b = b[1+w+int(n):]
			if !yield(k, sec) {
				return
			}
		}
	}
}

func (m Metrics) section(kind metricKind) []byte {
	for k, sec := range m.sections() {
		if k == kind {
			return sec
		}
		if k > kind {
			break
		}
	}
	return nil
}

func (m Metrics) count(kind metricKind, id int) (int64, bool) {
	return findCount(m.section(kind), int64(id))
}

func (m Metrics) bound(kind metricKind, id int) ([]byte, bool) {
	return findBound(m.section(kind), int64(id))
}

// findCount finds id among a count section's pairs, which ascend by id.
func findCount(sec []byte, id int64) (int64, bool) {
	for len(sec) > 0 {
		k, w := binary.Varint(sec)
		v, w2 := binary.Varint(sec[w:])
		if k >= id {
			if k != id {
				return 0, false
			}
			return v, true
		}
		sec = sec[w+w2:]
	}
	return 0, false
}

// findBound finds id among a bound section's pairs.
func findBound(sec []byte, id int64) ([]byte, bool) {
	for len(sec) > 0 {
		k, w := binary.Varint(sec)
		n, w2 := binary.Uvarint(sec[w:])
		start := w + w2
		if k >= id {
			if k != id {
				return nil, false
			}
			return sec[start : start+int(n) : start+int(n)], true
		}
		sec = sec[start+int(n):]
	}
	return nil, false
}

func (m Metrics) eachCount(kind metricKind, fn func(id, v int64)) {
	sec := m.section(kind)
	for len(sec) > 0 {
		k, w := binary.Varint(sec)
		v, w2 := binary.Varint(sec[w:])
		fn(k, v)
		sec = sec[w+w2:]
	}
}

func (m Metrics) eachBound(kind metricKind, fn func(id int64, v []byte)) {
	sec := m.section(kind)
	for len(sec) > 0 {
		k, w := binary.Varint(sec)
		n, w2 := binary.Uvarint(sec[w:])
		start := w + w2
		fn(k, sec[start:start+int(n):start+int(n)])
		sec = sec[start+int(n):]
	}
}

// kindLen is how many pairs of kind m has.
func (m Metrics) kindLen(kind metricKind) int {
	n := 0
	if kind.isBound() {
		m.eachBound(kind, func(int64, []byte) { n++ })
	} else {
		m.eachCount(kind, func(int64, int64) { n++ })
	}
	return n
}

// MetricsStore keeps Metrics that outlive their manifest in memory of
// its own, packed many to an allocation. A Metrics read from a manifest
// shares a chunk with its neighbours, so keeping a few files of each
// manifest (a filtered scan) would keep every chunk; cloning each instead
// cost a million small allocations, 5% of scan.New on a million files.
// The zero value is ready; a store is not safe for concurrent use.
type MetricsStore struct{ chunk []byte }

// metricsStoreChunk is the size of a store's allocations.
const metricsStoreChunk = 64 << 10

// Keep returns m copied into the store.
func (s *MetricsStore) Keep(m Metrics) Metrics {
	n := len(m.enc)
	if n == 0 {
		return Metrics{}
	}
	if n > metricsStoreChunk/4 {
		return m.Clone() // a chunk of its own
	}
	if cap(s.chunk)-len(s.chunk) < n {
		s.chunk = make([]byte, 0, metricsStoreChunk)
	}
	start := len(s.chunk)
	s.chunk = append(s.chunk, m.enc...)
	return Metrics{enc: s.chunk[start : start+n : start+n]}
}
