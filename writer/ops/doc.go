// Package ops is the one path from rows to a commit: it writes data files
// (and, for row-level changes, delete files and rewrites) where the
// table's properties say, commits them under the caller's token, and
// removes the files it wrote exactly when they are not part of the table.
//
// Every operation (Append, ReplacePartitions, Overwrite, DeleteRows,
// OverwriteRows, and AppendFiles and CommitFiles for files written
// elsewhere) returns a Result that says which snapshot holds the change
// and whether this call committed it or found its token already
// committed. The files a call wrote are deleted when its commit failed
// with a known outcome, or when its token was found (another attempt
// won, perhaps while this one wrote); never when the outcome is unknown
// (table.ErrCommitStateUnknown: a stray file is harmless, a missing one
// breaks the table). Files given to AppendFiles or CommitFiles are never
// deleted: they are not this call's.
//
// Row-level changes by filter read the rows they change through package
// reader, which is why they live here and not in package writer.
//
//	rows ──writer──▶ data files ──table.Append/…──▶ CommitResult
//	                     │                              │
//	                     └── removed unless committed ◀─┘ (kept if unknown)
package ops
