package writer

import (
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
)

// orderedGroup is a Parquet group whose fields keep the Iceberg schema's
// order; parquet.Group is a map and sorts its fields by name, which would
// scramble the column order other engines show.
type orderedGroup struct {
	fields []parquet.Field
}

var groupType = parquet.Group{}.Type()

func (g *orderedGroup) ID() int                     { return 0 }
func (g *orderedGroup) Type() parquet.Type          { return groupType }
func (g *orderedGroup) Optional() bool              { return false }
func (g *orderedGroup) Repeated() bool              { return false }
func (g *orderedGroup) Required() bool              { return true }
func (g *orderedGroup) Leaf() bool                  { return false }
func (g *orderedGroup) Fields() []parquet.Field     { return g.fields }
func (g *orderedGroup) Encoding() encoding.Encoding { return nil }
func (g *orderedGroup) Compression() compress.Codec { return nil }

// GoType and String only serve parquet-go's reflection and printing; the
// unordered group gives the same answers.
func (g *orderedGroup) GoType() reflect.Type { return g.unordered().GoType() }
func (g *orderedGroup) String() string       { return g.unordered().String() }

func (g *orderedGroup) unordered() parquet.Group {
	u := parquet.Group{}
	for _, f := range g.fields {
		u[f.Name()] = f
	}
	return u
}

// namedField names a node within its parent group.
type namedField struct {
	parquet.Node
	name string
}

func (f namedField) Name() string                      { return f.name }
func (f namedField) Value(reflect.Value) reflect.Value { return reflect.Value{} }
