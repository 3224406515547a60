package maintain

import (
	"strconv"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/writer"
)

// RewriteDataFilesOptions steer compaction. Zero values take Java's
// defaults; the JSON names are Java's option names.
type RewriteDataFilesOptions struct {
	// Strategy is how a group's rows are written: "binpack" (the default,
	// in the order read), "sort" (sorted by SortOrderID, default the
	// table's sort order; each file's entry records it) or "zorder"
	// (sorted by the z-order of ZOrderColumns; no order recorded) or
	// "hilbert" (by their Hilbert order, likewise). Files are chosen
	// and grouped alike either way, as in Java.
	Strategy string `json:"strategy,omitempty"`
	// SortOrderID names one of the table's sort orders for "sort".
	SortOrderID *int `json:"sort-order-id,omitempty"`
	// ZOrderColumns are the top-level primitive columns the "zorder" and
	// "hilbert" strategies order by, in order (rewrite_zorder.go); only
	// for them.
	ZOrderColumns []string `json:"zorder-columns,omitempty"`
	// OutputSpecID is the partition spec the new files are written in;
	// nil means the table's default spec (Java's output-spec-id). Files
	// of another spec are rewritten into it, their rows partitioned anew
	// (see PlanRewrite for how they are grouped).
	OutputSpecID *int `json:"output-spec-id,omitempty"`
	// TargetFileSizeBytes is the size written files aim at; 0 means the
	// table's write.target-file-size-bytes, else 512 MiB.
	TargetFileSizeBytes int64 `json:"target-file-size-bytes,omitempty"`
	// MinFileSizeBytes: smaller files are rewritten; 0 means 75% of the
	// target.
	MinFileSizeBytes int64 `json:"min-file-size-bytes,omitempty"`
	// MaxFileSizeBytes: larger files are rewritten (split); 0 means 180%
	// of the target.
	MaxFileSizeBytes int64 `json:"max-file-size-bytes,omitempty"`
	// MinInputFiles is how many files a group needs to be rewritten for
	// their number alone; 0 means 5.
	MinInputFiles int `json:"min-input-files,omitempty"`
	// DeleteFileThreshold: a file with at least this many delete files is
	// rewritten; 0 means never for that reason.
	DeleteFileThreshold int `json:"delete-file-threshold,omitempty"`
	// DeleteRatioThreshold: a file whose rows its own position deletes
	// (those naming only it) remove at this ratio or more is rewritten;
	// 0 means 0.3, a negative value never.
	DeleteRatioThreshold float64 `json:"delete-ratio-threshold,omitempty"`
	// RewriteAll rewrites every file the filter selects.
	RewriteAll bool `json:"rewrite-all,omitempty"`
	// MaxFileGroupSizeBytes bounds the input of one group; 0 means 100 GiB.
	MaxFileGroupSizeBytes int64 `json:"max-file-group-size-bytes,omitempty"`
	// PartialProgress commits groups as they finish, in at most
	// PartialProgressMaxCommits commits (0 means 10); a group that fails
	// or conflicts leaves the others committed. Without it everything is
	// one commit, or none.
	PartialProgress           bool `json:"partial-progress.enabled,omitempty"`
	PartialProgressMaxCommits int  `json:"partial-progress.max-commits,omitempty"`
	// MaxConcurrentGroups rewrites this many groups at once; 0 means 1.
	MaxConcurrentGroups int `json:"max-concurrent-file-group-rewrites,omitempty"`
	// Filter limits the rewrite to files that may hold rows it selects
	// (unbound, over the current schema); whole files are rewritten.
	Filter expr.Expr `json:"-"`
	// Token makes the commits idempotent (table.CommitOptions.Token): one
	// commit takes it as given (a run with a token committed already does
	// nothing); a partial-progress commit takes Token/<hash of the files
	// it replaces>, so a run retried after a crash commits what the first
	// did not, and nothing twice.
	Token string `json:"token,omitempty"`
	// Branch is the branch compacted; "" is main.
	Branch string `json:"branch,omitempty"`
	// Progress, when set, is called (from the goroutine that called
	// RewriteDataFiles) as each group is done: committed, failed, or
	// rewritten and left for the final commit; done counts them.
	Progress func(done, total int, group GroupOutcome) `json:"-"`
}

// Strategies.
const (
	StrategyBinPack = "binpack"
	StrategySort    = "sort"
	StrategyZOrder  = "zorder"
	StrategyHilbert = "hilbert"
)

// Java's defaults.
const (
	defaultMinInputFiles         = 5
	defaultDeleteRatioThreshold  = 0.3
	defaultMaxFileGroupSizeBytes = 100 << 30
	defaultMaxCommits            = 10
)

// resolved fills the defaults from the table's properties and checks the
// sizes are in order.
func (o RewriteDataFilesOptions) resolved(md *metadata.Metadata) (RewriteDataFilesOptions, error) {
	if o.TargetFileSizeBytes == 0 {
		o.TargetFileSizeBytes = writer.DefaultTargetFileSize
		if v, ok := md.Properties[writer.PropTargetFileSize]; ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return o, errkind.Errorf(errkind.InvalidArgument, "table property %s=%q: want a positive number of bytes", writer.PropTargetFileSize, v)
			}
			o.TargetFileSizeBytes = n
		}
	}
	if o.MinFileSizeBytes == 0 {
		o.MinFileSizeBytes = o.TargetFileSizeBytes * 3 / 4
	}
	if o.MaxFileSizeBytes == 0 {
		o.MaxFileSizeBytes = o.TargetFileSizeBytes * 18 / 10
	}
	if o.MinInputFiles == 0 {
		o.MinInputFiles = defaultMinInputFiles
	}
	if o.DeleteRatioThreshold == 0 {
		o.DeleteRatioThreshold = defaultDeleteRatioThreshold
	}
	if o.MaxFileGroupSizeBytes == 0 {
		o.MaxFileGroupSizeBytes = defaultMaxFileGroupSizeBytes
	}
	if o.PartialProgressMaxCommits == 0 {
		o.PartialProgressMaxCommits = defaultMaxCommits
	}
	if o.MaxConcurrentGroups == 0 {
		o.MaxConcurrentGroups = 1
	}
	if o.OutputSpecID == nil {
		id := md.DefaultSpecID
		o.OutputSpecID = &id
	}
	outSpec := md.SpecByID(*o.OutputSpecID)
	if outSpec == nil {
		return o, errkind.Errorf(errkind.NotFound, "rewrite data files: output spec %d is not in the table", *o.OutputSpecID)
	}
	curve := o.Strategy == StrategyZOrder || o.Strategy == StrategyHilbert
	if !curve && len(o.ZOrderColumns) > 0 {
		return o, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: zorder columns are for the zorder and hilbert strategies, not %q", o.Strategy)
	}
	switch o.Strategy {
	case StrategyZOrder, StrategyHilbert:
		if o.SortOrderID != nil {
			return o, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: a sort order is for the sort strategy, not %s", o.Strategy)
		}
		cols, err := curveColumns(md.CurrentSchema(), outSpec, o.ZOrderColumns)
		if err != nil {
			return o, err
		}
		o.ZOrderColumns = cols
	case "", StrategyBinPack:
		o.Strategy = StrategyBinPack
		if o.SortOrderID != nil {
			return o, errkind.New(errkind.InvalidArgument, "rewrite data files: a sort order is for the sort strategy")
		}
	case StrategySort:
		id := md.DefaultSortOrderID
		if o.SortOrderID != nil {
			id = *o.SortOrderID
		}
		order := md.SortOrderByID(id)
		switch {
		case order == nil:
			return o, errkind.Errorf(errkind.NotFound, "rewrite data files: sort order %d is not in the table", id)
		case len(order.Fields) == 0:
			return o, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: sort order %d sorts by nothing (the table is unsorted: give a sort order)", id)
		}
		o.SortOrderID = &id
	default:
		return o, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: unknown strategy %q (binpack, sort, zorder or hilbert)", o.Strategy)
	}
	switch {
	case o.TargetFileSizeBytes < 0 || o.MinFileSizeBytes < 0 || o.MaxFileSizeBytes < 0 || o.MaxFileGroupSizeBytes < 0:
		return o, errkind.New(errkind.InvalidArgument, "rewrite data files: sizes must not be negative")
	case o.MinFileSizeBytes > o.TargetFileSizeBytes:
		return o, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: min-file-size-bytes %d is above target-file-size-bytes %d", o.MinFileSizeBytes, o.TargetFileSizeBytes)
	case o.MaxFileSizeBytes < o.TargetFileSizeBytes:
		return o, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: max-file-size-bytes %d is below target-file-size-bytes %d", o.MaxFileSizeBytes, o.TargetFileSizeBytes)
	case o.MinInputFiles < 1:
		return o, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: min-input-files %d is below 1", o.MinInputFiles)
	case o.DeleteFileThreshold < 0:
		return o, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: delete-file-threshold %d is negative", o.DeleteFileThreshold)
	case o.PartialProgressMaxCommits < 1:
		return o, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: partial-progress.max-commits %d is below 1", o.PartialProgressMaxCommits)
	case o.MaxConcurrentGroups < 1:
		return o, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: max-concurrent-file-group-rewrites %d is below 1", o.MaxConcurrentGroups)
	}
	return o, nil
}
