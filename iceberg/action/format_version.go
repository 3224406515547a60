package action

import (
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
)

// UpgradeFormatVersion raises the table's format version (pyiceberg's
// upgrade_table_version): 1→2→3, never down. The same version changes
// nothing. Moving to v3 starts row lineage at next-row-id 0: rows written
// before have no row ids, as the spec allows.
type UpgradeFormatVersion struct{ FormatVersion int }

func (UpgradeFormatVersion) Name() string { return "upgrade-format-version" }

func (a UpgradeFormatVersion) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	switch {
	case a.FormatVersion > metadata.MaxFormatVersion:
		return nil, errkind.Errorf(errkind.Unsupported, "format version %d is newer than the newest floe writes, %d", a.FormatVersion, metadata.MaxFormatVersion)
	case a.FormatVersion < 1:
		return nil, invalid("format version %d does not exist", a.FormatVersion)
	case a.FormatVersion < md.FormatVersion:
		return nil, invalid("cannot downgrade format version %d to %d", md.FormatVersion, a.FormatVersion)
	case a.FormatVersion == md.FormatVersion:
		return nil, nil
	}
	return []metadata.Update{metadata.UpgradeFormatVersion{FormatVersion: a.FormatVersion}}, nil
}
