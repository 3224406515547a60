package iceberg

// VariantType is the v3 semi-structured type: each value is a Parquet
// Variant (a metadata dictionary of object keys and a self-describing
// value), so rows of one column may hold objects, arrays or primitives of
// any kind. The spec calls it neither primitive nor nested; floe treats it
// as a leaf, because it has no fields with ids of its own (its Parquet
// group's metadata and value children carry none). It has no single-value
// JSON or binary form, so it can only default to null, cannot be
// partitioned, sorted or filtered on, and has no bounds.
type VariantType struct{}

func (VariantType) String() string { return "variant" }
func (VariantType) isType()        {}
func (VariantType) isPrimitive()   {}

// IsVariant reports whether t is the variant type.
func IsVariant(t Type) bool {
	_, ok := t.(VariantType)
	return ok
}
