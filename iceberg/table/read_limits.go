package table

// The most floe reads of each kind of metadata file. These files are read
// whole into memory, so a hostile or damaged table (a manifest list that
// is /dev/zero, a pipe, a sparse file of terabytes) would otherwise be
// read until memory ran out. Each cap is far above what real tables
// write, so only such a file meets it; the refusal is errkind.Corrupt
// naming the file and the cap.
const (
	// MaxMetadataBytes caps a table metadata JSON file. The largest seen
	// from real tables (Java writers with long snapshot histories and
	// many schemas) are tens of MB; parsing one takes several times its
	// size in memory.
	MaxMetadataBytes = 512 << 20
	// MaxVersionHintBytes caps version-hint.text, which holds a version
	// number or a metadata file's name.
	MaxVersionHintBytes = 1 << 20
	// MaxManifestListBytes caps a manifest list: an entry is a few hundred
	// bytes before compression, so 256 MiB holds about a million
	// manifests, more than any table commits to one snapshot.
	MaxManifestListBytes = 256 << 20
	// MaxManifestBytes caps a manifest. Writers aim at 8 MiB
	// (commit.manifest.target-size-bytes); one that ignores the target
	// (a single commit of millions of files with metrics of many columns)
	// still stays well below 512 MiB.
	MaxManifestBytes = 512 << 20
)
