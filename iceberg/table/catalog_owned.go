package table

import (
	"github.com/floedb/floe/errkind"
)

// checkPathCommit refuses a commit by path (a table with no Publisher)
// into a table a catalog owns. floe tells the two apart by the name of
// the current metadata file: path tables, floe's own and Hadoop-style
// ones (what Java's HadoopTableOperations requires), name theirs
// v<N>.metadata.json beside a version hint; catalogs (floe's SQL catalog,
// Java's, pyiceberg's, iceberg-go's, REST servers) name theirs
// <NNNNN>-<uuid>.metadata.json and record which one is current in the
// catalog. A v<N+1>.metadata.json written beside a catalog's file is one
// the catalog never sees, and its next commit forks the history: the rows
// committed by path vanish.
func checkPathCommit(metadataLocation string) error {
	name := lastElem(metadataLocation)
	if _, ok := parseMetadataFileName(name); !ok {
		return nil // no version at all: metadataVersion says so
	}
	if stem, _ := trimMetadataSuffix(name); stem[0] == 'v' {
		return nil
	}
	return errkind.Errorf(errkind.InvalidArgument,
		"commit: %s is named as a catalog names its metadata files (<NNNNN>-<uuid>.metadata.json), so a catalog owns this table: "+
			"a commit by path would be one the catalog never sees, and its next commit would fork the history; "+
			"load the table through its catalog and commit there (floe CMD --catalog URI NS.TABLE; floe.load_catalog(uri=URI).load_table(\"ns.table\") in Python)",
		metadataLocation)
}
