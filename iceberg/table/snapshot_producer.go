package table

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"strconv"
	"time"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// snapshotUpdate describes one snapshot-producing change. The producer
// applies it to the base of every commit attempt.
type snapshotUpdate struct {
	what  string // the method, for error messages
	opts  CommitOptions
	added []manifest.DataFile
	// plan decides, against an attempt's base, which live files (by path as
	// written) the snapshot removes, and fails when the change conflicts
	// with what other writers committed. Nil removes nothing.
	plan func(ctx context.Context, b *commitBase) (*removal, error)
	// operation names the snapshot's operation once the removal is known.
	operation func(r *removal) string
	// addedDataSequenceNumber, when positive, is the data sequence number
	// the added data files carry instead of the commit's (a rewrite keeps
	// its starting snapshot's, so later equality deletes still apply).
	addedDataSequenceNumber int64
	// addedDeleteSequenceNumbers, by fileKey, are the data sequence numbers
	// of added delete files that keep those of the files they replace.
	addedDeleteSequenceNumbers map[string]int64
	// manifests, when set, gives the new snapshot's manifests in place of
	// carrying the head's forward and merging them (a manifest rewrite),
	// with summary entries beyond the counts.
	manifests func(ctx context.Context, p *snapshotProducer, b *commitBase) ([]manifest.ManifestFile, map[string]string, error)
}

// removal is what a plan removes from the head snapshot, by fileKey.
type removal struct {
	keys map[string]bool
	// summary entries beyond the counts (replace-partitions).
	summary map[string]string
}

func newRemoval() *removal {
	return &removal{keys: map[string]bool{}, summary: map[string]string{}}
}

func (r *removal) add(df *manifest.DataFile) { r.keys[fileKey(df)] = true }

func (r *removal) count() int {
	if r == nil {
		return 0
	}
	return len(r.keys)
}

// fileKey identifies a file entry: its path, and for a deletion vector
// also its offset, since one Puffin file holds the vectors of many data
// files.
func fileKey(df *manifest.DataFile) string {
	if df.ContentOffset != nil {
		return df.FilePath + "#" + strconv.FormatInt(*df.ContentOffset, 10)
	}
	return df.FilePath
}

// snapshotProducer carries what a change has written across its attempts:
// the snapshot id (kept, so manifests of added files are written once and
// reused on retry) and every file written, so the files a failed or
// superseded attempt left behind can be deleted.
type snapshotProducer struct {
	t          *Table
	u          *snapshotUpdate
	snapshotID int64
	commitID   string
	counter    int

	// The manifests of the added files, unassigned sequence numbers and
	// all, with their entries for merging.
	addedManifests []manifest.ManifestFile
	// writtenEntries are the entries of every manifest written, by path.
	writtenEntries map[string][]manifest.Entry
	written        []string
	// listPath is the manifest list of the last attempt built, listed the
	// manifests it holds.
	listPath string
	listed   []string
	// existingID is set when the token was found in an earlier snapshot.
	existingID int64
	// own are the snapshots the transaction's earlier steps made in the
	// attempt being built, set by the transaction (commitBase.own).
	own map[int64]bool
	// stagedOn is the ref whose head the last attempt's snapshot was
	// staged on (added, no ref moved); "" when it moved its branch.
	stagedOn string
}

// commitSnapshot commits a snapshot-producing change alone, as a
// transaction of one step, and says which snapshot holds it, and whether
// this call committed it or found its token already committed.
func (t *Table) commitSnapshot(ctx context.Context, u *snapshotUpdate) (CommitResult, error) {
	tx := t.Transaction()
	if err := tx.addSnapshot(u, nil); err != nil {
		return CommitResult{}, err
	}
	res, err := tx.Commit(ctx)
	if err != nil {
		return CommitResult{}, err
	}
	return CommitResult{SnapshotID: res.SnapshotIDs[0], TokenFound: res.TokenFound}, nil
}

// deleteUnused deletes, best effort, what the producer wrote and keep does
// not hold.
func (p *snapshotProducer) deleteUnused(ctx context.Context, keep map[string]bool) {
	ctx = context.WithoutCancel(ctx)
	for _, path := range p.written {
		if !keep[path] {
			_ = p.t.IO.Delete(ctx, path)
		}
	}
}

// build is the buildFunc of one attempt.
func (p *snapshotProducer) build(ctx context.Context, base *Table, attempt int) (*metadata.Changes, error) {
	md := base.Metadata
	if id, ok, err := SnapshotWithToken(md, p.u.opts.Token); err != nil {
		return nil, err
	} else if ok {
		p.existingID = id
		return nil, nil
	}
	if err := checkFilesForTable(md, p.u.added); err != nil {
		return nil, err
	}
	stage, err := p.u.opts.staged(md)
	if err != nil {
		return nil, err
	}
	b, err := newCommitBase(base, p.u.opts.branch())
	if err != nil {
		return nil, err
	}
	b.own = p.own
	var rm *removal
	if p.u.plan != nil {
		if rm, err = p.u.plan(ctx, b); err != nil {
			return nil, err
		}
	}
	if p.snapshotID == 0 || md.SnapshotByID(p.snapshotID) != nil {
		if len(p.addedManifests) > 0 {
			return nil, fmt.Errorf("snapshot id %d was taken by another writer", p.snapshotID)
		}
		p.snapshotID = newSnapshotID(md)
	}
	if err := p.writeAddedManifests(ctx, base); err != nil {
		return nil, err
	}
	commitStep("manifests")
	sb := newSummaryBuilder()
	for i := range p.u.added {
		sb.addedFile(&p.u.added[i])
	}
	var manifests []manifest.ManifestFile
	var extraSummary map[string]string
	if p.u.manifests != nil {
		manifests, extraSummary, err = p.u.manifests(ctx, p, b)
	} else if manifests, err = p.carryForward(ctx, b, rm, sb); err == nil {
		manifests, err = p.merge(ctx, b, manifests)
	}
	if err != nil {
		return nil, err
	}

	now := max(time.Now().UnixMilli(), md.LastUpdatedMs)
	snap := metadata.Snapshot{
		SnapshotID:       p.snapshotID,
		ParentSnapshotID: b.headID(),
		TimestampMs:      now,
	}
	if md.FormatVersion >= 2 {
		snap.SequenceNumber = md.LastSequenceNumber + 1
	}
	schemaID := md.CurrentSchemaID
	snap.SchemaID = &schemaID
	listOpts := manifest.ManifestListWriteOptions{
		FormatVersion: md.FormatVersion, SnapshotID: snap.SnapshotID, ParentSnapshotID: snap.ParentSnapshotID,
		SequenceNumber: snap.SequenceNumber, FirstRowID: md.NextRowID,
	}
	p.listed = p.listed[:0]
	for _, mf := range manifests {
		p.listed = append(p.listed, mf.Path)
	}
	var buf bytes.Buffer
	_, assigned, err := manifest.WriteManifestList(&buf, listOpts, manifests)
	if err != nil {
		return nil, fmt.Errorf("manifest list: %w", err)
	}
	p.listPath = p.metadataFilePath(md, fmt.Sprintf("snap-%d-%d-%s.avro", p.snapshotID, attempt+1, p.commitID))
	if err := p.writeFile(ctx, p.listPath, buf.Bytes()); err != nil {
		return nil, err
	}
	commitStep("manifest-list")
	snap.ManifestList = p.listPath

	op := OpAppend
	if p.u.operation != nil {
		op = p.u.operation(rm)
	}
	snap.Summary = sb.build(op, b.head)
	maps.Copy(snap.Summary, p.u.opts.Properties)
	if rm != nil {
		maps.Copy(snap.Summary, rm.summary)
	}
	maps.Copy(snap.Summary, extraSummary)
	if p.u.opts.Token != "" {
		snap.Summary[SummaryToken] = p.u.opts.Token
	}
	if p.u.opts.RunID != "" {
		snap.Summary[SummaryRunID] = p.u.opts.RunID
	}
	if p.u.opts.WapID != "" {
		snap.Summary[SummaryWAPID] = p.u.opts.WapID
	}

	if md.FormatVersion >= 3 {
		first, added := md.NextRowID, assigned
		snap.FirstRowID, snap.AddedRows = &first, &added
	}
	changes := metadata.Edit(md)
	p.stagedOn = ""
	if stage {
		// Staged: the snapshot is added and no ref moves (Java's
		// stageOnly); the transaction requires the ref it was built on.
		p.stagedOn = b.headRef()
		if err := changes.Apply(metadata.AddSnapshot{Snapshot: snap}); err != nil {
			return nil, err
		}
		return changes, nil
	}
	ref, ok := md.Refs[b.branch]
	if !ok {
		ref = metadata.Ref{Type: metadata.RefBranch}
	}
	ref.SnapshotID = snap.SnapshotID
	if err := changes.Apply(metadata.AddSnapshot{Snapshot: snap}, metadata.SetSnapshotRef{Name: b.branch, Ref: ref}); err != nil {
		return nil, err
	}
	return changes, nil
}

// recordPrevious adds the base's metadata file to the metadata log and
// stamps the update time.
func recordPrevious(next *metadata.Metadata, base *Table, now int64) error {
	keep, err := next.PropertyInt(PropMetadataPreviousVersions, defaultPreviousVersionsMax)
	if err != nil {
		return err
	}
	next.AddPreviousMetadata(base.MetadataLocation, base.Metadata.LastUpdatedMs, int(min(keep, math.MaxInt32)))
	next.LastUpdatedMs = now
	return nil
}

// writeAddedManifests writes the added files' manifests, once: one per
// partition spec and content (data or deletes).
func (p *snapshotProducer) writeAddedManifests(ctx context.Context, base *Table) error {
	if p.addedManifests != nil || len(p.u.added) == 0 {
		return nil
	}
	type group struct {
		spec    int
		content manifest.ManifestContent
	}
	var order []group
	byGroup := map[group][]manifest.Entry{}
	for _, df := range p.u.added {
		g := group{spec: df.SpecID, content: manifest.ManifestContentData}
		if df.Content != manifest.ContentData {
			g.content = manifest.ManifestContentDeletes
		}
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		df.FirstRowID = nil // new rows get their ids from the manifest list
		e := manifest.Entry{Status: manifest.StatusAdded, SnapshotID: p.snapshotID, DataFile: df}
		if df.Content == manifest.ContentData && p.u.addedDataSequenceNumber > 0 {
			e.SequenceNumber = p.u.addedDataSequenceNumber
		}
		if seq, ok := p.u.addedDeleteSequenceNumbers[fileKey(&df)]; ok && df.Content != manifest.ContentData {
			e.SequenceNumber = seq
		}
		byGroup[g] = append(byGroup[g], e)
	}
	var manifests []manifest.ManifestFile
	for _, g := range order {
		mf, err := p.writeManifest(ctx, base, g.spec, g.content, byGroup[g])
		if err != nil {
			return err
		}
		manifests = append(manifests, mf)
	}
	p.addedManifests = manifests
	return nil
}

// writeManifest writes entries as a new manifest of this snapshot.
func (p *snapshotProducer) writeManifest(ctx context.Context, base *Table, specID int, content manifest.ManifestContent, entries []manifest.Entry) (manifest.ManifestFile, error) {
	md := base.Metadata
	spec := md.SpecByID(specID)
	if spec == nil {
		return manifest.ManifestFile{}, fmt.Errorf("partition spec %d is not in the table", specID)
	}
	partType, err := base.PartitionType(spec)
	if err != nil {
		return manifest.ManifestFile{}, err
	}
	var buf bytes.Buffer
	mf, err := manifest.WriteManifest(&buf, manifest.ManifestWriteOptions{
		FormatVersion: md.FormatVersion, Spec: *spec, PartitionType: partType,
		Schema: md.CurrentSchema(), Content: content, SnapshotID: p.snapshotID,
	}, entries)
	if err != nil {
		return manifest.ManifestFile{}, fmt.Errorf("write manifest: %w", err)
	}
	p.counter++
	mf.Path = p.metadataFilePath(md, fmt.Sprintf("%s-m%d.avro", p.commitID, p.counter-1))
	if err := p.writeFile(ctx, mf.Path, buf.Bytes()); err != nil {
		return manifest.ManifestFile{}, err
	}
	p.writtenEntries[mf.Path] = entries
	return mf, nil
}

func (p *snapshotProducer) writeFile(ctx context.Context, path string, data []byte) error {
	p.written = append(p.written, path)
	if err := p.t.IO.WriteFile(ctx, path, data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// metadataFilePath places a new manifest or manifest list where the
// reference implementation does: write.metadata.path, else the table
// location's metadata directory.
func (p *snapshotProducer) metadataFilePath(md *metadata.Metadata, name string) string {
	if dir := md.Properties[PropMetadataPath]; dir != "" {
		return fileio.JoinPath(dir, name)
	}
	return fileio.JoinPath(md.Location, "metadata", name)
}

// carryForward gives the new snapshot's manifest list before merging: the
// added files' manifests, then the head's manifests, those holding removed
// files rewritten with the removed entries marked DELETED and the rest
// EXISTING. Removed files are counted into the summary; a removed path
// the head does not hold is a conflict.
func (p *snapshotProducer) carryForward(ctx context.Context, b *commitBase, rm *removal, sb *summaryBuilder) ([]manifest.ManifestFile, error) {
	out := append([]manifest.ManifestFile(nil), p.addedManifests...)
	list, err := b.headManifests(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.removeDanglingVectors(ctx, b, rm); err != nil {
		return nil, err
	}
	found := map[string]bool{}
	for i, mf := range list {
		entries := b.entries[i]
		if rm.count() == 0 || entries == nil || !holdsAny(entries, rm.keys) {
			out = append(out, mf)
			continue
		}
		rewritten := make([]manifest.Entry, 0, len(entries))
		for _, e := range entries {
			if e.Status == manifest.StatusDeleted {
				continue // an earlier snapshot's deletion; its manifest list has it
			}
			if key := fileKey(&e.DataFile); rm.keys[key] {
				if found[key] {
					return nil, fmt.Errorf("file %s is listed twice in snapshot %d", key, b.head.SnapshotID)
				}
				found[key] = true
				sb.removedFile(&e.DataFile)
				e.Status = manifest.StatusDeleted
				e.SnapshotID = p.snapshotID
			} else {
				e.Status = manifest.StatusExisting
			}
			rewritten = append(rewritten, e)
		}
		nmf, err := p.writeManifest(ctx, b.t, mf.PartitionSpecID, mf.Content, rewritten)
		if err != nil {
			return nil, err
		}
		out = append(out, nmf)
	}
	if len(found) != rm.count() {
		for path := range rm.keys {
			if !found[path] {
				return nil, fmt.Errorf("file %s is not in the table's current snapshot: %w", path, ErrConflict)
			}
		}
	}
	return out, nil
}

// removeDanglingVectors adds to a v3 removal the deletion vectors of the
// data files it removes: the spec removes a data file's vectors with it.
func (p *snapshotProducer) removeDanglingVectors(ctx context.Context, b *commitBase, rm *removal) error {
	if rm.count() == 0 || b.t.Metadata.FormatVersion < 3 {
		return nil
	}
	removedData := map[string]bool{}
	for _, entries := range b.entries {
		for i := range entries {
			df := &entries[i].DataFile
			if entries[i].Status != manifest.StatusDeleted && df.Content == manifest.ContentData && rm.keys[fileKey(df)] {
				removedData[df.FilePath] = true
			}
		}
	}
	if len(removedData) == 0 {
		return nil
	}
	return b.liveFiles(ctx, func(mf *manifest.ManifestFile) bool { return mf.Content == manifest.ManifestContentDeletes }, func(lf liveFile) error {
		if df := &lf.entry.DataFile; df.ContentOffset != nil && removedData[df.ReferencedDataFile] {
			rm.add(df)
		}
		return nil
	})
}

func holdsAny(entries []manifest.Entry, paths map[string]bool) bool {
	for i := range entries {
		if entries[i].Status != manifest.StatusDeleted && paths[fileKey(&entries[i].DataFile)] {
			return true
		}
	}
	return false
}

// checkFilesForTable refuses files the table cannot hold: an unknown spec,
// a partition tuple of the wrong arity or type, delete files in a v1 table,
// position delete files in v3 (deletion vectors replace them), deletion
// vectors before v3, and a path given twice.
func checkFilesForTable(md *metadata.Metadata, files []manifest.DataFile) error {
	seen := make(map[string]bool, len(files))
	for i := range files {
		df := &files[i]
		if df.FilePath == "" {
			return fmt.Errorf("file %d has an empty path", i)
		}
		key := fileKey(df)
		if seen[key] {
			return fmt.Errorf("file %s is given twice", key)
		}
		seen[key] = true
		if df.FileFormat == "" {
			return fmt.Errorf("file %s has no file format", df.FilePath)
		}
		if df.RecordCount < 0 || df.FileSizeInBytes < 0 {
			return fmt.Errorf("file %s has a negative record count or size", df.FilePath)
		}
		spec := md.SpecByID(df.SpecID)
		if spec == nil {
			return fmt.Errorf("file %s uses partition spec %d, which the table does not have", df.FilePath, df.SpecID)
		}
		if len(df.Partition) != len(spec.Fields) {
			return fmt.Errorf("file %s has %d partition values, partition spec %d has %d fields", df.FilePath, len(df.Partition), spec.ID, len(spec.Fields))
		}
		dv := df.ContentOffset != nil
		switch df.Content {
		case manifest.ContentData:
			if dv || len(df.EqualityIDs) > 0 {
				return fmt.Errorf("data file %s carries delete file fields", df.FilePath)
			}
		case manifest.ContentPositionDeletes, manifest.ContentEqualityDeletes:
			switch {
			case md.FormatVersion < 2:
				return fmt.Errorf("delete file %s: format version 1 tables have no delete files", df.FilePath)
			case df.Content == manifest.ContentEqualityDeletes && len(df.EqualityIDs) == 0:
				return fmt.Errorf("equality delete file %s has no equality field ids", df.FilePath)
			case df.Content == manifest.ContentPositionDeletes && md.FormatVersion >= 3 && !dv:
				return fmt.Errorf("position delete file %s: format version 3 tables take deletion vectors instead", df.FilePath)
			case dv && md.FormatVersion < 3:
				return fmt.Errorf("deletion vector %s: deletion vectors need format version 3", df.FilePath)
			case dv && (df.ReferencedDataFile == "" || df.ContentSizeInBytes == nil):
				return fmt.Errorf("deletion vector %s needs its referenced data file, content offset and size", df.FilePath)
			}
		default:
			return fmt.Errorf("file %s has unknown content %d", df.FilePath, df.Content)
		}
	}
	return nil
}

// newSnapshotID draws a positive random id the table does not use.
func newSnapshotID(md *metadata.Metadata) int64 {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
		}
		id := int64(binary.LittleEndian.Uint64(b[:]) & math.MaxInt64)
		if id != 0 && md.SnapshotByID(id) == nil {
			return id
		}
	}
}
