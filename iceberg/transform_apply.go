package iceberg

import "fmt"

// TEMPORARY: the transforms helper replaces this file with the real
// ResultType/Apply implementations (murmur3 bucket, truncate, temporal).

func (IdentityTransform) ResultType(t Type) (Type, error) { return t, nil }
func (VoidTransform) ResultType(t Type) (Type, error)     { return t, nil }
func (YearTransform) ResultType(Type) (Type, error)       { return IntType{}, nil }
func (MonthTransform) ResultType(Type) (Type, error)      { return IntType{}, nil }
func (DayTransform) ResultType(Type) (Type, error)        { return DateType{}, nil }
func (HourTransform) ResultType(Type) (Type, error)       { return IntType{}, nil }
func (BucketTransform) ResultType(Type) (Type, error)     { return IntType{}, nil }
func (TruncateTransform) ResultType(t Type) (Type, error) { return t, nil }
func (t UnknownTransform) ResultType(Type) (Type, error) {
	return nil, fmt.Errorf("unknown transform %q", t.Name)
}

func (IdentityTransform) Apply(_ Type, v any) (any, error) { return v, nil }
func (VoidTransform) Apply(Type, any) (any, error)         { return nil, nil }
func (YearTransform) Apply(Type, any) (any, error)         { return nil, fmt.Errorf("todo") }
func (MonthTransform) Apply(Type, any) (any, error)        { return nil, fmt.Errorf("todo") }
func (DayTransform) Apply(Type, any) (any, error)          { return nil, fmt.Errorf("todo") }
func (HourTransform) Apply(Type, any) (any, error)         { return nil, fmt.Errorf("todo") }
func (BucketTransform) Apply(Type, any) (any, error)       { return nil, fmt.Errorf("todo") }
func (TruncateTransform) Apply(Type, any) (any, error)     { return nil, fmt.Errorf("todo") }
func (t UnknownTransform) Apply(Type, any) (any, error) {
	return nil, fmt.Errorf("unknown transform %q", t.Name)
}
