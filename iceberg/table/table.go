package table

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/metadata"
)

// Options configure how a table is found and read.
type Options struct {
	// LocationMap maps location prefixes written in the table's metadata
	// (hdfs://…, /test-warehouse/…) onto where the files are now.
	LocationMap map[string]string
	// NoRelocate turns off the mapping Open adds for a table found away
	// from the location its metadata records (see relocate): paths are
	// then read as recorded, through LocationMap only. Writes and deletes
	// still stay inside the directory the table was opened from, so such
	// a table can be read but not committed to or expired.
	NoRelocate bool
	// Warehouse is the root under which dataset names ("ns.table") live;
	// empty means the FLOE_WAREHOUSE environment variable. It may be an
	// object store URI such as s3://bucket/prefix.
	Warehouse string
	// S3 configures s3:// and s3a:// locations (endpoint, credentials, …);
	// nil means the AWS_* environment alone. Clients are shared between
	// tables opened with the same settings.
	S3 *fileio.S3Options
	// GCS configures gs:// locations (service host, token, …); nil means
	// the environment alone (STORAGE_EMULATOR_HOST, application default
	// credentials). Shared between tables as S3's clients are.
	GCS *fileio.GCSOptions
	// Azure configures abfs://, abfss://, wasb:// and wasbs:// locations
	// (account, key, SAS tokens, …); nil means the AZURE_STORAGE_*
	// environment alone. Shared between tables as S3's clients are.
	Azure *fileio.AzureOptions
}

// FileIO is the FileIO these options give for a table at location: the
// location map, and S3 configured as the options say. Create and
// EnsureTable take it, since they have no Options of their own.
func (o Options) FileIO(location string) (fileio.FileIO, error) {
	locations, err := fileio.NewLocationMap(o.LocationMap)
	if err != nil {
		return nil, err
	}
	return fileio.ForLocation(location, o.fileIOOptions(locations))
}

func (o Options) fileIOOptions(locations fileio.LocationMap) fileio.Options {
	return fileio.Options{LocationMap: locations, S3: o.S3, GCS: o.GCS, Azure: o.Azure}
}

// Table is one version of a table's metadata and the FileIO to read it with.
type Table struct {
	Metadata *metadata.Metadata
	// MetadataLocation is the metadata file this version was read from.
	MetadataLocation string
	// IO reads every path found in metadata, manifests and delete files,
	// with the location map applied.
	IO fileio.FileIO
	// Locations is the location map, for callers that must compare paths
	// (position deletes name data files by path).
	Locations fileio.LocationMap
	// Publisher is the catalog the table's commits go through; nil: the
	// table's own metadata directory (see Publisher).
	Publisher Publisher
	// Planner, when set, plans the table's scans (StreamScan): a catalog
	// that plans on its server. nil: manifests are read here.
	Planner Planner
}

// Open opens the table at location: a metadata JSON file, a table
// directory, or a dataset name "ns.table" under the warehouse.
func Open(ctx context.Context, location string, opts Options) (*Table, error) {
	if location == "" {
		return nil, fmt.Errorf("open table: empty location")
	}
	locations, err := fileio.NewLocationMap(opts.LocationMap)
	if err != nil {
		return nil, fmt.Errorf("open table: %w", err)
	}
	if isDatasetName(location) {
		if _, statErr := os.Stat(location); statErr != nil {
			if location, err = WarehouseLocation(opts.Warehouse, location); err != nil {
				return nil, fmt.Errorf("open table: %w", err)
			}
		}
	}
	files, err := fileio.ForLocation(location, opts.fileIOOptions(locations))
	if err != nil {
		return nil, fmt.Errorf("open table %s: %w", location, err)
	}
	metadataPath, err := LocateMetadata(ctx, files, location)
	if err != nil {
		return nil, fmt.Errorf("open table %s: %w", location, err)
	}
	t, err := load(ctx, files, locations, metadataPath)
	if err != nil {
		return nil, err
	}
	t, err = relocate(ctx, t, location, opts, locations)
	if err != nil {
		return nil, fmt.Errorf("open table %s: %w", location, err)
	}
	return t, nil
}

func load(ctx context.Context, files fileio.FileIO, locations fileio.LocationMap, metadataPath string) (*Table, error) {
	data, err := fileio.ReadFileLimited(ctx, files, metadataPath, MaxMetadataBytes)
	if err != nil {
		return nil, fmt.Errorf("read table metadata %s: %w", metadataPath, err)
	}
	md, err := metadata.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("table metadata %s: %w", metadataPath, err)
	}
	return &Table{Metadata: md, MetadataLocation: metadataPath, IO: files, Locations: locations}, nil
}

// isDatasetName tells a warehouse dataset name ("ns.table", "a.b.t") from a
// path: no separators, no scheme, and at least one dot between non-empty
// parts.
func isDatasetName(s string) bool {
	if strings.ContainsAny(s, `/\:`) || strings.HasSuffix(s, ".json") {
		return false
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
	}
	return true
}

// SnapshotSelector picks a snapshot; the zero value means the current one.
// At most one field may be set.
type SnapshotSelector struct {
	SnapshotID *int64
	AsOfMs     *int64
	Ref        string
}

// NoSnapshot as a selector's snapshot id pins a read to the table as it
// was before its first snapshot: no rows, whatever was committed since. It
// is the current-snapshot-id metadata gives a table without snapshots, so
// a caller that recorded that id while the table was empty keeps reading
// the same (empty) data.
const NoSnapshot int64 = -1

// Snapshot resolves a selector. It returns nil, with no error, for the
// current snapshot of a table that has none.
func (t *Table) Snapshot(sel SnapshotSelector) (*metadata.Snapshot, error) {
	set := 0
	if sel.SnapshotID != nil {
		set++
	}
	if sel.AsOfMs != nil {
		set++
	}
	if sel.Ref != "" {
		set++
	}
	if set > 1 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "choose a snapshot by one of snapshot id, timestamp or ref, not several")
	}
	md := t.Metadata
	switch {
	case sel.SnapshotID != nil && *sel.SnapshotID == NoSnapshot:
		return nil, nil
	case sel.SnapshotID != nil:
		s := md.SnapshotByID(*sel.SnapshotID)
		if s == nil {
			return nil, errkind.Errorf(errkind.NotFound, "table has no snapshot %d", *sel.SnapshotID)
		}
		return s, nil
	case sel.AsOfMs != nil:
		return md.SnapshotAsOf(*sel.AsOfMs)
	case sel.Ref != "":
		return md.SnapshotByRef(sel.Ref)
	}
	return md.CurrentSnapshot(), nil
}

// SchemaFor is the schema a read of the selected snapshot sees
// (ReadSchema).
func (t *Table) SchemaFor(sel SnapshotSelector) (*iceberg.Schema, error) {
	snap, err := t.Snapshot(sel)
	if err != nil {
		return nil, err
	}
	return t.ReadSchema(sel, snap)
}

// ReadSchema is the schema a read of snap, selected by sel, sees, chosen
// as Iceberg's Java scans and pyiceberg choose it: the table's current
// schema for the current snapshot and for a branch's head (a column added
// since the last commit reads as null; a column dropped is gone), and the
// schema the snapshot was written with when travelling in time to it (by
// id, timestamp or tag).
func (t *Table) ReadSchema(sel SnapshotSelector, snap *metadata.Snapshot) (*iceberg.Schema, error) {
	md := t.Metadata
	timeTravel := sel.SnapshotID != nil || sel.AsOfMs != nil
	if sel.Ref != "" {
		ref, ok := md.Refs[sel.Ref]
		timeTravel = ok && ref.Type != metadata.RefBranch
	}
	if snap == nil || !timeTravel {
		if s := md.CurrentSchema(); s != nil {
			return s, nil
		}
		return nil, errkind.Errorf(errkind.Corrupt, "current schema %d is not in the table metadata", md.CurrentSchemaID)
	}
	return md.SchemaForSnapshot(snap)
}
