package expr

// Constant columns. A column can hold one value for every row of a data
// file without being stored in it: a file without field ids whose name
// mapping does not map the column, a file written before the column was
// added (its initial-default, or null), a file lacking an identity
// partition's source column (the partition value). Such a column's
// predicates are decided by that value alone, and never by the file's
// statistics or the manifest's metrics for the field id, which describe
// something the reader does not return, nor by the schema's required
// flag, which a missing column does not honour. This is the one place
// where they are decided; the reader folds them before any pruning level
// or kernel sees the filter.

// FoldConstants replaces every predicate of a bound expression whose
// column valueOf reports as constant by the outcome of the predicate on
// that value (nil: null), and simplifies the and/or/not around it. The
// expression must have been bound with BindNullable for those columns, so
// that no "is null" was folded away by a required flag.
func FoldConstants(e Bound, valueOf func(fieldID int) (value any, ok bool)) Bound {
	switch e := e.(type) {
	case *And:
		return NewAnd(FoldConstants(e.Left, valueOf), FoldConstants(e.Right, valueOf))
	case *Or:
		return NewOr(FoldConstants(e.Left, valueOf), FoldConstants(e.Right, valueOf))
	case *Not:
		return NewNot(FoldConstants(e.Child, valueOf))
	case *BoundPredicate:
		if v, ok := valueOf(e.FieldID); ok {
			return constant(testValue(e.Op, v, e.Values))
		}
	}
	return e
}

// ForgetFields replaces every predicate on a field forget reports by
// assume: what a pruner does with statistics it cannot trust for those
// fields. An inclusive pruner (may a row match?) assumes true, so that it
// keeps every file such a predicate might accept; a strict one (do all
// rows match?) assumes false. Only sound where no negation is left above
// a predicate (after Bind or RewriteNot).
func ForgetFields(e Bound, forget func(fieldID int) bool, assume bool) Bound {
	switch e := e.(type) {
	case *And:
		return NewAnd(ForgetFields(e.Left, forget, assume), ForgetFields(e.Right, forget, assume))
	case *Or:
		return NewOr(ForgetFields(e.Left, forget, assume), ForgetFields(e.Right, forget, assume))
	case *BoundPredicate:
		if forget(e.FieldID) {
			return constant(assume)
		}
	}
	return e
}
