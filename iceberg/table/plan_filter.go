package table

import (
	"context"
	"fmt"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

// PlanFilesFiltered lists the files of the selected snapshot that may hold
// rows filter accepts, and gives each data file the filter's residual for
// its partition. filter is unbound (nil plans every file, as PlanFiles
// does); it is bound to the snapshot's schema, so an unknown column or a
// literal of the wrong type is an error.
//
// Pruning follows the spec's scan planning. The filter is projected
// inclusively through each manifest's own partition spec; manifests whose
// partition summaries rule that projection out are not read
// (Plan.ManifestsSkipped), and data files are dropped by their partition
// tuple and by their column metrics (Plan.DataFilesSkipped). Delete files
// are dropped only by partition: a delete file applies within its own
// partition (or everywhere, under an unpartitioned spec), and its metrics
// describe deleted rows, not the rows a scan returns.
func (t *Table) PlanFilesFiltered(ctx context.Context, sel SnapshotSelector, filter expr.Expr, caseInsensitive bool) (*Plan, error) {
	var tasks []DataFileTask
	plan, err := t.StreamFiles(ctx, sel, filter, caseInsensitive, collectFiles(&tasks))
	if err != nil {
		return nil, err
	}
	plan.Tasks = tasks
	return plan, nil
}

// filePruner holds a bound filter compiled for every partition spec the
// snapshot's manifests use. It is built before manifests are read in
// parallel and only read afterwards.
type filePruner struct {
	t       *Table
	filter  expr.Expr
	metrics *MetricsEvaluator
	specs   map[int]*specPruner
	// keepDeleted keeps DELETED entries (pruned as live ones): a
	// changelog reads the files a snapshot removed.
	keepDeleted bool
}

// specPruner is the filter as one partition spec sees it.
type specPruner struct {
	manifests  *ManifestEvaluator
	partitions *expr.TupleEvaluator // the inclusive projection, on partition tuples
	residuals  *expr.ResidualEvaluator
}

func (p *filePruner) spec(id int) (*specPruner, error) {
	if sp, ok := p.specs[id]; ok {
		return sp, nil
	}
	spec := p.t.Metadata.SpecByID(id)
	if spec == nil {
		return nil, fmt.Errorf("a manifest uses partition spec %d, which the table does not have", id)
	}
	partType, err := p.t.PartitionType(spec)
	if err != nil {
		return nil, fmt.Errorf("partition spec %d: %w", id, err)
	}
	projected, err := expr.ProjectInclusive(p.filter, spec, partType)
	if err != nil {
		return nil, fmt.Errorf("partition spec %d: %w", id, err)
	}
	sp := &specPruner{}
	if sp.manifests, err = NewManifestEvaluator(projected, partType); err != nil {
		return nil, err
	}
	if sp.partitions, err = expr.NewTupleEvaluator(projected, partType); err != nil {
		return nil, err
	}
	if sp.residuals, err = expr.NewResidualEvaluator(p.filter, spec, partType); err != nil {
		return nil, err
	}
	p.specs[id] = sp
	return sp, nil
}

// keepManifests drops the manifests whose partition summaries rule the
// filter out, and prepares the specs of the others.
func (p *filePruner) keepManifests(manifests []manifest.ManifestFile) ([]manifest.ManifestFile, error) {
	kept := make([]manifest.ManifestFile, 0, len(manifests))
	for i := range manifests {
		sp, err := p.spec(manifests[i].PartitionSpecID)
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %w", manifests[i].Path, err)
		}
		if sp.manifests.MightMatch(&manifests[i]) {
			kept = append(kept, manifests[i])
		}
	}
	return kept, nil
}

// pruneEntries keeps the live entries of one manifest that may matter to
// the scan, in place, and sets residuals (one per kept entry, nil for
// delete files) and the count of data files dropped.
func (p *filePruner) pruneEntries(mf *manifest.ManifestFile, entries []manifest.Entry, residuals *[]expr.Expr, skipped *int) ([]manifest.Entry, error) {
	sp := p.specs[mf.PartitionSpecID]
	if sp == nil {
		return nil, fmt.Errorf("manifest %s: partition spec %d was not prepared", mf.Path, mf.PartitionSpecID)
	}
	kept := entries[:0]
	res := make([]expr.Expr, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		if e.Status == manifest.StatusDeleted && !p.keepDeleted {
			continue
		}
		part := e.DataFile.Partition
		var residual expr.Expr
		if e.DataFile.Content == manifest.ContentData {
			if !sp.partitions.Eval(part) || !p.metrics.MightMatch(&e.DataFile) {
				*skipped++
				continue
			}
			residual = sp.residuals.Residual(part)
			if _, none := residual.(expr.AlwaysFalse); none {
				*skipped++
				continue
			}
		} else if !sp.partitions.Eval(part) {
			continue
		}
		kept = append(kept, *e) // index len(kept) <= i: never overwrites an unread entry
		res = append(res, residual)
	}
	*residuals = res
	return kept, nil
}
