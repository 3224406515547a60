package kernels

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// CmpOp is a comparison of a column with literals.
type CmpOp int

const (
	CmpEq CmpOp = iota
	CmpNotEq
	CmpLt
	CmpLtEq
	CmpGt
	CmpGtEq
	CmpIn
	CmpNotIn
	CmpIsNull
	CmpNotNull
	CmpIsNaN
	CmpNotNaN
	CmpStartsWith
	CmpNotStartsWith
)

// CompareToBitmap sets bit i of dst (n = arr.Len() bits, cleared first)
// where row i satisfies op against lits, with SQL's null rule: a null
// satisfies only CmpIsNull (not even CmpNotNaN). lits are in the Go form of the
// column's Arrow type: int32/int64 (also dates, times, timestamps),
// float32/float64, bool, string, []byte, decimal128.Num. Sets (CmpIn,
// CmpNotIn) take any number of literals; the others one, the null and NaN
// tests none.
func CompareToBitmap(arr arrow.Array, op CmpOp, lits []any, dst []byte) error {
	n := arr.Len()
	clear(dst[:bitutil.BytesForBits(int64(n))])
	valid := func(i int) bool { return arr.IsValid(i) }
	switch op {
	case CmpIsNull, CmpNotNull:
		want := op == CmpNotNull
		for i := 0; i < n; i++ {
			if valid(i) == want {
				bitutil.SetBit(dst, i)
			}
		}
		return nil
	}
	if compareFast(arr, op, lits, dst) {
		return nil
	}
	return compareGeneral(arr, op, lits, dst)
}

// compareGeneral is CompareToBitmap by a test per row, for every type
// and op (dst cleared).
func compareGeneral(arr arrow.Array, op CmpOp, lits []any, dst []byte) error {
	n := arr.Len()
	valid := func(i int) bool { return arr.IsValid(i) }
	var test func(i int) bool
	var err error
	switch a := arr.(type) {
	case *array.Int32:
		test, err = orderedTest(a.Int32Values(), op, lits)
	case *array.Int64:
		test, err = orderedTest(a.Int64Values(), op, lits)
	case *array.Date32:
		test, err = orderedTest(view32(a.Date32Values()), op, lits)
	case *array.Time64:
		test, err = orderedTest(view64(a.Time64Values()), op, lits)
	case *array.Timestamp:
		test, err = orderedTest(view64ts(a.TimestampValues()), op, lits)
	case *array.Float32:
		test, err = floatTest(a.Float32Values(), op, lits)
	case *array.Float64:
		test, err = floatTest(a.Float64Values(), op, lits)
	case *array.String:
		test, err = stringTest(a.Value, op, lits)
	case *array.Binary:
		test, err = bytesTest(a.Value, op, lits)
	case *array.FixedSizeBinary:
		test, err = bytesTest(a.Value, op, lits)
	case *array.Boolean:
		test, err = boolTest(a, op, lits)
	case *array.Decimal128:
		test, err = decimalTest(a, op, lits)
	default:
		return fmt.Errorf("kernels: cannot compare a %s column", arr.DataType())
	}
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if valid(i) && test(i) {
			bitutil.SetBit(dst, i)
		}
	}
	return nil
}

func view32(v []arrow.Date32) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

func view64(v []arrow.Time64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

func view64ts(v []arrow.Timestamp) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

func litsAs[T any](lits []any) ([]T, error) {
	out := make([]T, len(lits))
	for i, l := range lits {
		v, ok := l.(T)
		if !ok {
			var zero T
			return nil, fmt.Errorf("kernels: literal %v (%T) does not fit a %T column", l, l, zero)
		}
		out[i] = v
	}
	return out, nil
}

func one[T any](lits []any, op CmpOp) (T, error) {
	var zero T
	if len(lits) != 1 {
		return zero, fmt.Errorf("kernels: comparison %d takes one literal, got %d", op, len(lits))
	}
	vs, err := litsAs[T](lits)
	if err != nil {
		return zero, err
	}
	return vs[0], nil
}

func orderedTest[T cmp.Ordered](vals []T, op CmpOp, lits []any) (func(int) bool, error) {
	if op == CmpIn || op == CmpNotIn {
		set, err := litsAs[T](lits)
		if err != nil {
			return nil, err
		}
		m := make(map[T]struct{}, len(set))
		for _, v := range set {
			m[v] = struct{}{}
		}
		in := op == CmpIn
		return func(i int) bool { _, ok := m[vals[i]]; return ok == in }, nil
	}
	lit, err := one[T](lits, op)
	if err != nil {
		return nil, err
	}
	return cmpTest(func(i int) int { return cmp.Compare(vals[i], lit) }, op)
}

// cmpTest turns a three-way comparison with the literal into a test.
func cmpTest(c func(int) int, op CmpOp) (func(int) bool, error) {
	switch op {
	case CmpEq:
		return func(i int) bool { return c(i) == 0 }, nil
	case CmpNotEq:
		return func(i int) bool { return c(i) != 0 }, nil
	case CmpLt:
		return func(i int) bool { return c(i) < 0 }, nil
	case CmpLtEq:
		return func(i int) bool { return c(i) <= 0 }, nil
	case CmpGt:
		return func(i int) bool { return c(i) > 0 }, nil
	case CmpGtEq:
		return func(i int) bool { return c(i) >= 0 }, nil
	}
	return nil, fmt.Errorf("kernels: comparison %d does not apply to this column", op)
}

// floatTest follows SQL for NaN: NaN equals nothing and orders nowhere;
// the NaN tests pick it out.
func floatTest[T float32 | float64](vals []T, op CmpOp, lits []any) (func(int) bool, error) {
	switch op {
	case CmpIsNaN:
		return func(i int) bool { return math.IsNaN(float64(vals[i])) }, nil
	case CmpNotNaN:
		return func(i int) bool { return !math.IsNaN(float64(vals[i])) }, nil
	}
	test, err := orderedTest(vals, op, lits)
	if err != nil {
		return nil, err
	}
	if op == CmpNotEq || op == CmpNotIn {
		return test, nil
	}
	return func(i int) bool { return !math.IsNaN(float64(vals[i])) && test(i) }, nil
}

func bytesTest(value func(int) []byte, op CmpOp, lits []any) (func(int) bool, error) {
	asBytes := make([][]byte, len(lits))
	for i, l := range lits {
		switch v := l.(type) {
		case string:
			asBytes[i] = []byte(v)
		case []byte:
			asBytes[i] = v
		default:
			return nil, fmt.Errorf("kernels: literal %v (%T) does not fit a string or binary column", l, l)
		}
	}
	switch op {
	case CmpIn, CmpNotIn:
		m := make(map[string]struct{}, len(asBytes))
		for _, b := range asBytes {
			m[string(b)] = struct{}{}
		}
		in := op == CmpIn
		return func(i int) bool { _, ok := m[string(value(i))]; return ok == in }, nil
	case CmpStartsWith, CmpNotStartsWith:
		if len(asBytes) != 1 {
			return nil, fmt.Errorf("kernels: starts with takes one literal")
		}
		prefix, want := asBytes[0], op == CmpStartsWith
		return func(i int) bool { return bytes.HasPrefix(value(i), prefix) == want }, nil
	}
	if len(asBytes) != 1 {
		return nil, fmt.Errorf("kernels: comparison %d takes one literal, got %d", op, len(asBytes))
	}
	lit := asBytes[0]
	return cmpTest(func(i int) int { return bytes.Compare(value(i), lit) }, op)
}

func stringTest(value func(int) string, op CmpOp, lits []any) (func(int) bool, error) {
	strs := make([]string, len(lits))
	for i, l := range lits {
		switch v := l.(type) {
		case string:
			strs[i] = v
		case []byte:
			strs[i] = string(v)
		default:
			return nil, fmt.Errorf("kernels: literal %v (%T) does not fit a string column", l, l)
		}
	}
	switch op {
	case CmpIn, CmpNotIn:
		m := make(map[string]struct{}, len(strs))
		for _, v := range strs {
			m[v] = struct{}{}
		}
		in := op == CmpIn
		return func(i int) bool { _, ok := m[value(i)]; return ok == in }, nil
	case CmpStartsWith, CmpNotStartsWith:
		if len(strs) != 1 {
			return nil, fmt.Errorf("kernels: starts with takes one literal")
		}
		prefix, want := strs[0], op == CmpStartsWith
		return func(i int) bool { return strings.HasPrefix(value(i), prefix) == want }, nil
	}
	if len(strs) != 1 {
		return nil, fmt.Errorf("kernels: comparison %d takes one literal, got %d", op, len(strs))
	}
	lit := strs[0]
	return cmpTest(func(i int) int { return strings.Compare(value(i), lit) }, op)
}

func boolTest(a *array.Boolean, op CmpOp, lits []any) (func(int) bool, error) {
	vals, err := litsAs[bool](lits)
	if err != nil {
		return nil, err
	}
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	switch op {
	case CmpIn, CmpNotIn:
		has := [2]bool{}
		for _, v := range vals {
			has[b2i(v)] = true
		}
		in := op == CmpIn
		return func(i int) bool { return has[b2i(a.Value(i))] == in }, nil
	}
	if len(vals) != 1 {
		return nil, fmt.Errorf("kernels: comparison %d takes one literal", op)
	}
	lit := b2i(vals[0])
	return cmpTest(func(i int) int { return cmp.Compare(b2i(a.Value(i)), lit) }, op)
}

func decimalTest(a *array.Decimal128, op CmpOp, lits []any) (func(int) bool, error) {
	vals, err := litsAs[decimal128.Num](lits)
	if err != nil {
		return nil, err
	}
	switch op {
	case CmpIn, CmpNotIn:
		m := make(map[decimal128.Num]struct{}, len(vals))
		for _, v := range vals {
			m[v] = struct{}{}
		}
		in := op == CmpIn
		return func(i int) bool { _, ok := m[a.Value(i)]; return ok == in }, nil
	}
	if len(vals) != 1 {
		return nil, fmt.Errorf("kernels: comparison %d takes one literal", op)
	}
	lit := vals[0]
	return cmpTest(func(i int) int { return a.Value(i).Cmp(lit) }, op)
}
