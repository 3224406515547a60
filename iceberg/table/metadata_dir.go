package table

import (
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/metadata"
)

// MetadataDirFile is where a new metadata-side file named name goes (a
// statistics file, as Java's metadataFileLocation places it):
// write.metadata.path, else the table location's metadata directory.
// Manifests and manifest lists follow the same rule (snapshotProducer's
// metadataFilePath).
func MetadataDirFile(md *metadata.Metadata, name string) string {
	if dir := md.Properties[PropMetadataPath]; dir != "" {
		return fileio.JoinPath(dir, name)
	}
	return fileio.JoinPath(md.Location, "metadata", name)
}
