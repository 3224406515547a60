package writer

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/iceberg"
)

// partitionState is one partition the writer has seen: its tuple, its
// directory and the file open for it.
type partitionState struct {
	key   string
	tuple []any
	dir   string // partition path under the data location; "" unpartitioned
	file  *dataFile
	// rows are this batch's rows of the partition; all is set when they
	// are every row of the batch, which is then written as a range.
	rows    []int32
	all     bool
	touched bool // has rows in the batch being split
}

// partitioner routes a batch's rows to partitions.
type partitioner struct {
	spec     *iceberg.PartitionSpec
	partType *iceberg.StructType
	sources  []*partitionSource
	byKey    map[string]*partitionState
	order    []*partitionState // in the order first seen
	key      []byte
	touched  []*partitionState
}

func newPartitioner(spec *iceberg.PartitionSpec, schema *iceberg.Schema, fs *fileSchema) (*partitioner, error) {
	p := &partitioner{spec: spec, byKey: map[string]*partitionState{}}
	var err error
	if p.partType, err = spec.PartitionType(schema); err != nil {
		return nil, err
	}
	if p.sources, err = newPartitionSources(spec, schema, fs); err != nil {
		return nil, err
	}
	return p, nil
}

// bind points the partition sources at a batch's columns.
func (p *partitioner) bind(rec arrow.RecordBatch, fs *fileSchema, b *batchBinding) error {
	for _, s := range p.sources {
		if err := s.bind(rec, fs, b); err != nil {
			return err
		}
	}
	return nil
}

// split groups the batch's n rows by partition and returns the partitions
// that got rows, in the order first seen in the batch.
func (p *partitioner) split(n int) ([]*partitionState, error) {
	p.touched = p.touched[:0]
	if len(p.sources) == 0 {
		p.key = p.key[:0]
		st := p.byKey[""]
		if st == nil {
			st = p.state(0)
		}
		st.rows, st.all = nil, true
		return append(p.touched, st), nil
	}
	for _, s := range p.sources {
		if err := s.compute(nil, 0, n); err != nil {
			return nil, err
		}
	}
	var prev *partitionState
	for k := 0; k < n; k++ {
		p.key = p.key[:0]
		for _, s := range p.sources {
			p.key = s.appendKey(p.key, k)
		}
		// Rows usually come clustered by partition: compare with the
		// previous row's key before hashing.
		st := prev
		if st == nil || string(p.key) != st.key {
			if st = p.byKey[string(p.key)]; st == nil {
				st = p.state(k)
			}
		}
		if !st.touched {
			st.touched, st.all = true, false
			st.rows = st.rows[:0]
			p.touched = append(p.touched, st)
		}
		st.rows = append(st.rows, int32(k))
		prev = st
	}
	for _, st := range p.touched {
		st.touched = false
	}
	if len(p.touched) == 1 {
		p.touched[0].all = true
	}
	return p.touched, nil
}

// state makes the partition of slot k's key (already in p.key).
func (p *partitioner) state(k int) *partitionState {
	st := &partitionState{}
	if len(p.spec.Fields) > 0 {
		st.tuple = make([]any, len(p.spec.Fields))
	}
	for _, s := range p.sources {
		st.tuple[s.position] = s.value(k)
	}
	if !p.spec.IsUnpartitioned() {
		st.dir = p.spec.PartitionPath(p.partType, st.tuple)
	}
	st.key = string(p.key)
	p.byKey[st.key] = st
	p.order = append(p.order, st)
	return st
}
