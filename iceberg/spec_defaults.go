package iceberg

import "strconv"

// The defaults the reference implementation applies where a partition or
// sort field leaves them out, shared by table creation and by spec and
// sort-order evolution so a field is named the same whichever made it.

// DefaultPartitionName names a partition field of source (the column's
// dotted full name) as Java's and pyiceberg's spec updates do:
// identity keeps the column's name, bucket[16] gives "<source>_bucket_16",
// truncate[4] "<source>_trunc_4", void "<source>_null", the time
// transforms "<source>_day" and so on.
func DefaultPartitionName(source string, t Transform) string {
	switch t := t.(type) {
	case IdentityTransform:
		return source
	case BucketTransform:
		return source + "_bucket_" + strconv.Itoa(t.N)
	case TruncateTransform:
		return source + "_trunc_" + strconv.Itoa(t.Width)
	case VoidTransform:
		return source + "_null"
	}
	return source + "_" + t.String()
}

// DefaultNullOrder is the null order of a sort field that names none:
// nulls first ascending, nulls last descending, so nulls sort as the
// smallest value either way.
func DefaultNullOrder(direction string) string {
	if direction == "desc" {
		return "nulls-last"
	}
	return "nulls-first"
}
