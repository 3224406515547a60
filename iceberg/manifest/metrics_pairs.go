package manifest

import (
	"encoding/binary"
	"iter"
)

// The pairs of one kind of metric in ascending field id, for callers that
// show every metric of a file (metadata tables) without building maps.

// ColumnSizes yields each column's size in bytes.
func (m Metrics) ColumnSizes() iter.Seq2[int, int64] { return m.countPairs(kindColumnSizes) }

// ValueCounts yields each column's value count.
func (m Metrics) ValueCounts() iter.Seq2[int, int64] { return m.countPairs(kindValueCounts) }

// NullCounts yields each column's null count.
func (m Metrics) NullCounts() iter.Seq2[int, int64] { return m.countPairs(kindNullCounts) }

// NaNCounts yields each column's NaN count.
func (m Metrics) NaNCounts() iter.Seq2[int, int64] { return m.countPairs(kindNaNCounts) }

// LowerBounds yields each column's lower bound (not to be modified).
func (m Metrics) LowerBounds() iter.Seq2[int, []byte] { return m.boundPairs(kindLowerBounds) }

// UpperBounds yields each column's upper bound (not to be modified).
func (m Metrics) UpperBounds() iter.Seq2[int, []byte] { return m.boundPairs(kindUpperBounds) }

func (m Metrics) countPairs(kind metricKind) iter.Seq2[int, int64] {
	return func(yield func(int, int64) bool) {
		sec := m.section(kind)
		for len(sec) > 0 {
			id, w := binary.Varint(sec)
			v, w2 := binary.Varint(sec[w:])
			if !yield(int(id), v) {
				return
			}
			sec = sec[w+w2:]
		}
	}
}

func (m Metrics) boundPairs(kind metricKind) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		sec := m.section(kind)
		for len(sec) > 0 {
			id, w := binary.Varint(sec)
			n, w2 := binary.Uvarint(sec[w:])
			start := w + w2
			if !yield(int(id), sec[start:start+int(n):start+int(n)]) {
				return
			}
			sec = sec[start+int(n):]
		}
	}
}
