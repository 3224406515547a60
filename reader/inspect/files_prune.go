package inspect

import (
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// manifestPruner skips the manifests whose partition summaries show that
// none of their files passes a filter on the files or entries table's
// partition struct, as Java's files tables do (BaseFilesTable's
// transformSpec): each spec seen as identity partitions of that struct's
// fields, the filter projected through them and evaluated on the
// summaries. Other predicates project to true; the reader's own filter
// still decides every row, so pruning only saves reads.
//
// A filter on the file's content (content, data_file.content) also skips
// the manifests that cannot hold such files, as Java's entries tables do
// (ManifestContentEvaluator): a data manifest holds content 0 only, a
// delete manifest 1 and 2.
type manifestPruner struct {
	evals   map[int]*table.ManifestEvaluator // by spec id; nil: keep
	content *bounds.Evaluator                // nil: keep
}

// newManifestPruner is nil when there is nothing to prune by (no filter,
// or one that does not bind: the reader reports that).
func newManifestPruner(t *table.Table, schema *iceberg.Schema, opts Options) *manifestPruner {
	if opts.Filter == nil {
		return nil
	}
	bound, err := expr.Bind(opts.Filter, schema, opts.CaseInsensitive)
	if err != nil {
		return nil
	}
	p := &manifestPruner{evals: map[int]*table.ManifestEvaluator{}}
	if ev, err := bounds.New(bound); err == nil {
		for _, l := range ev.Leaves() {
			if l.FieldID == contentFieldID {
				p.content = ev
				break
			}
		}
	}
	for i := range t.Metadata.PartitionSpecs {
		spec := &t.Metadata.PartitionSpecs[i]
		if len(spec.Fields) == 0 {
			continue
		}
		partType, err := t.PartitionType(spec)
		if err != nil {
			continue
		}
		// The partition struct's fields have the partition field ids, so
		// field f of the spec is the identity of column f.FieldID.
		ident := iceberg.PartitionSpec{ID: spec.ID}
		for _, pf := range spec.Fields {
			ident.Fields = append(ident.Fields, iceberg.PartitionField{SourceID: pf.FieldID, FieldID: pf.FieldID, Name: pf.Name, Transform: iceberg.IdentityTransform{}})
		}
		partFilter, err := expr.ProjectInclusive(bound, &ident, partType)
		if err != nil {
			continue
		}
		if _, all := partFilter.(expr.AlwaysTrue); all {
			continue
		}
		if ev, err := table.NewManifestEvaluator(partFilter, partType); err == nil {
			p.evals[spec.ID] = ev
		}
	}
	return p
}

// keep reports whether mf may list a file the filter accepts.
func (p *manifestPruner) keep(mf *manifest.ManifestFile) bool {
	if p == nil {
		return true
	}
	if p.content != nil && !p.content.MightMatch(contentSummary{mf.Content}) {
		return false
	}
	ev := p.evals[mf.PartitionSpecID]
	return ev == nil || ev.MightMatch(mf)
}

// contentFieldID is the id of a content file's content column.
const contentFieldID = 134

// contentSummary is what a manifest's kind says of its files' content,
// and nothing of any other column.
type contentSummary struct{ kind manifest.ManifestContent }

func (contentSummary) Rows() int64 { return -1 }

func (c contentSummary) Summary(l *bounds.Leaf) bounds.Summary {
	if l.FieldID != contentFieldID {
		return bounds.Summary{}
	}
	s := bounds.Summary{HasLower: true, HasUpper: true, Exact: true, HasNulls: true}
	if c.kind == manifest.ManifestContentDeletes {
		s.Lower, s.Upper = bounds.Value{Int: int64(manifest.ContentPositionDeletes)}, bounds.Value{Int: int64(manifest.ContentEqualityDeletes)}
	}
	return s
}
