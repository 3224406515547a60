package table

import (
	"strings"

	"github.com/floedb/floe/errkind"
)

// CommitOptions are what a caller attaches to one commit.
type CommitOptions struct {
	// Token makes the commit idempotent: it is recorded in the snapshot
	// summary (SummaryToken), and a commit whose token is already in one of
	// the table's snapshots commits nothing and returns that snapshot's id.
	// A pipeline passes a key of the step that does not change between
	// attempts, so a step that committed and was killed before hearing back
	// does not commit its data twice when it is retried.
	Token string
	// Properties are free-form entries for the snapshot summary. They may
	// not replace the summary's standard entries or floe's own.
	Properties map[string]string
	// RunID names the pipeline run a commit belongs to (SummaryRunID). It
	// changes what ReplacePartitions removes: see there.
	RunID string
	// Branch is the branch to commit to; "" is main. A branch that does not
	// exist yet is created from main's current snapshot.
	Branch string
	// WapID is a write-audit-publish id, recorded in the snapshot summary
	// (SummaryWAPID, "wap.id"). On a table whose write.wap.enabled is
	// "true" it stages the snapshot (StageOnly); on any other table a
	// commit with it is refused unless StageOnly is set.
	WapID string
	// StageOnly adds the snapshot to the table without moving any branch:
	// its parent is the head of Branch, it is read by its id, and
	// CherryPick publishes it. Branch is not created when missing.
	StageOnly bool
}

// Summary keys floe writes besides the spec's standard ones.
const (
	SummaryToken = "floe.commit-token"
	SummaryRunID = "floe.run-id"
)

// Errors commits wrap, for errors.Is.
var (
	// ErrConflict: another writer changed the table in a way this commit
	// cannot be applied on top of (files it removes are gone, partitions it
	// replaces were written to), or commits kept winning every retry.
	// Nothing was committed; the caller may plan again and retry.
	ErrConflict = errkind.New(errkind.Conflict, "commit conflict")
	// ErrTableExists: Create found a table at the location.
	ErrTableExists = errkind.New(errkind.Conflict, "table already exists")
)

// Table properties that steer commits, and their defaults (those of the
// reference implementation).
const (
	PropCommitNumRetries          = "commit.retry.num-retries"
	PropCommitMinWaitMs           = "commit.retry.min-wait-ms"
	PropCommitMaxWaitMs           = "commit.retry.max-wait-ms"
	PropCommitTotalTimeoutMs      = "commit.retry.total-timeout-ms"
	PropManifestMergeEnabled      = "commit.manifest-merge.enabled"
	PropManifestMinCountToMerge   = "commit.manifest.min-count-to-merge"
	PropManifestTargetSizeBytes   = "commit.manifest.target-size-bytes"
	PropMetadataDeleteAfterCommit = "write.metadata.delete-after-commit.enabled"
	PropMetadataPreviousVersions  = "write.metadata.previous-versions-max"
	PropMetadataPath              = "write.metadata.path"
	PropMaxSnapshotAgeMs          = "history.expire.max-snapshot-age-ms"
	PropMinSnapshotsToKeep        = "history.expire.min-snapshots-to-keep"
	PropMaxRefAgeMs               = "history.expire.max-ref-age-ms"
	PropGCEnabled                 = "gc.enabled"

	defaultCommitNumRetries        = 4
	defaultCommitMinWaitMs         = 100
	defaultCommitMaxWaitMs         = 60_000
	defaultCommitTotalTimeoutMs    = 30 * 60_000
	defaultManifestMinCountToMerge = 100
	defaultManifestTargetSizeBytes = DefaultManifestTargetSizeBytes
	defaultPreviousVersionsMax     = 100
	defaultMaxSnapshotAgeMs        = 5 * 24 * 3600_000
	defaultMinSnapshotsToKeep      = 1
)

// DefaultManifestTargetSizeBytes is commit.manifest.target-size-bytes
// when the table does not set it (Java's 8 MiB).
const DefaultManifestTargetSizeBytes = 8 << 20

// reservedSummaryKeys are written by floe; a caller's property may not set
// them.
var reservedSummaryKeys = map[string]bool{
	"operation": true, SummaryToken: true, SummaryRunID: true, "replace-partitions": true,
	SummaryWAPID: true, SummaryPublishedWAPID: true, SummarySourceSnapshotID: true,
}

func (o *CommitOptions) check() error {
	for k := range o.Properties {
		if k == "" {
			return errkind.New(errkind.InvalidArgument, "commit properties: empty key")
		}
		if reservedSummaryKeys[k] || isStandardSummaryKey(k) {
			return errkind.Errorf(errkind.InvalidArgument, "commit properties: %q is a summary entry floe writes itself", k)
		}
	}
	if strings.TrimSpace(o.Branch) != o.Branch {
		return errkind.Errorf(errkind.InvalidArgument, "branch %q has surrounding spaces", o.Branch)
	}
	if strings.TrimSpace(o.WapID) != o.WapID {
		return errkind.Errorf(errkind.InvalidArgument, "wap id %q has surrounding spaces", o.WapID)
	}
	return nil
}

func (o *CommitOptions) branch() string {
	if o.Branch == "" {
		return "main"
	}
	return o.Branch
}
