package expr

// Op is a predicate operator.
type Op uint8

// The operators, in the order of the REST spec's expression types.
const (
	OpEq Op = iota
	OpNotEq
	OpLt
	OpLtEq
	OpGt
	OpGtEq
	OpIn
	OpNotIn
	OpIsNull
	OpNotNull
	OpIsNaN
	OpNotNaN
	OpStartsWith
	OpNotStartsWith
	opCount
)

var opJSONNames = [opCount]string{"eq", "not-eq", "lt", "lt-eq", "gt", "gt-eq", "in", "not-in", "is-null", "not-null", "is-nan", "not-nan", "starts-with", "not-starts-with"}

var opTextNames = [opCount]string{"=", "!=", "<", "<=", ">", ">=", "in", "not in", "is null", "is not null", "is nan", "is not nan", "like", "not like"}

// String gives the operator as the text syntax writes it.
func (o Op) String() string {
	if o < opCount {
		return opTextNames[o]
	}
	return "invalid-op"
}

// JSONName gives the operator's REST expression type ("lt-eq", "not-in"…).
func (o Op) JSONName() string {
	if o < opCount {
		return opJSONNames[o]
	}
	return "invalid-op"
}

func opFromJSONName(name string) (Op, bool) {
	for i, n := range opJSONNames {
		if n == name {
			return Op(i), true
		}
	}
	return 0, false
}

// IsUnary reports whether the operator takes no literal.
func (o Op) IsUnary() bool { return o >= OpIsNull && o <= OpNotNaN }

// IsSet reports whether the operator takes a set of literals.
func (o Op) IsSet() bool { return o == OpIn || o == OpNotIn }

// Negate gives the operator that holds exactly when o does not, ignoring
// nulls (as Iceberg's own negation does).
func (o Op) Negate() Op {
	switch o {
	case OpEq:
		return OpNotEq
	case OpNotEq:
		return OpEq
	case OpLt:
		return OpGtEq
	case OpLtEq:
		return OpGt
	case OpGt:
		return OpLtEq
	case OpGtEq:
		return OpLt
	case OpIn:
		return OpNotIn
	case OpNotIn:
		return OpIn
	case OpIsNull:
		return OpNotNull
	case OpNotNull:
		return OpIsNull
	case OpIsNaN:
		return OpNotNaN
	case OpNotNaN:
		return OpIsNaN
	case OpStartsWith:
		return OpNotStartsWith
	}
	return OpStartsWith
}

// flip gives the operator for the same comparison with its sides swapped
// ("10 > a" is "a < 10").
func (o Op) flip() Op {
	switch o {
	case OpLt:
		return OpGt
	case OpLtEq:
		return OpGtEq
	case OpGt:
		return OpLt
	case OpGtEq:
		return OpLtEq
	}
	return o
}
