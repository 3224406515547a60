package lineitem

import (
	"math/rand/v2"
	"time"
)

// columns is one row group's values, column by column.
type columns struct {
	orderKey      []int64
	partKey       []int64
	suppKey       []int64
	quantity      []int64 // unscaled, scale QuantityScale
	extendedPrice []float64
	discount      []float64
	returnFlag    []uint8 // index into returnFlags
	shipDate      []int32 // days since 1970-01-01
	commentBytes  []byte
	commentEnds   []int32 // comment i is commentBytes[commentEnds[i-1]:commentEnds[i]]
}

// returnFlags are sorted, so comparing indexes compares the strings.
var (
	returnFlags     = [...]string{"A", "N", "R"}
	returnFlagBytes = [...][]byte{[]byte("A"), []byte("N"), []byte("R")}
)

// TPC-H's ranges: orders from 1992-01-01 over about 6.6 years, lines
// shipped 1 to 121 days after the order, returns only before 1995-06-17.
var (
	firstOrderDay  = int32(time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	returnCutoff   = int32(time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	orderDaySpread = int32(2405)
)

const (
	partCount = 2_000_000
	suppCount = 100_000
)

var commentWords = []string{
	"furiously", "carefully", "blithely", "quickly", "slyly", "fluffily",
	"final", "regular", "express", "ironic", "pending", "special", "even",
	"bold", "unusual", "silent", "deposits", "requests", "accounts",
	"packages", "theodolites", "instructions", "foxes", "pinto", "beans",
	"asymptotes", "dependencies", "platelets", "ideas", "excuses", "sleep",
	"haggle", "nag", "wake", "cajole", "boost", "use", "among", "above",
	"across", "the", "of", "against",
}

// generator produces one file's rows. Each file has its own random
// stream, so files can be generated in parallel and still come out the
// same.
type generator struct {
	rnd       *rand.Rand
	nextOrder int64 // order key of the next order
	linesLeft int   // lines still to emit for the current order
	orderKey  int64
	orderDay  int32
	row       int64 // global row index of the next row
	totalRows int64
}

func newGenerator(seed uint64, file int, firstRow, totalRows int64) *generator {
	// Order keys grow by one per order of 1–7 lines, so a file of R rows
	// uses about R/4 keys; starting each file's keys at its first row
	// keeps them sorted across files (with gaps, as TPC-H's are).
	return &generator{
		rnd:       rand.New(rand.NewPCG(seed, uint64(file))),
		nextOrder: firstRow + 1,
		row:       firstRow,
		totalRows: totalRows,
	}
}

// fill generates n rows into c, reusing its slices.
func (g *generator) fill(c *columns, n int) {
	c.orderKey = c.orderKey[:0]
	c.partKey = c.partKey[:0]
	c.suppKey = c.suppKey[:0]
	c.quantity = c.quantity[:0]
	c.extendedPrice = c.extendedPrice[:0]
	c.discount = c.discount[:0]
	c.returnFlag = c.returnFlag[:0]
	c.shipDate = c.shipDate[:0]
	c.commentBytes = c.commentBytes[:0]
	c.commentEnds = c.commentEnds[:0]
	r := g.rnd
	for i := 0; i < n; i++ {
		if g.linesLeft == 0 {
			g.orderKey = g.nextOrder
			g.nextOrder++
			g.linesLeft = 1 + r.IntN(7)
			// Order dates follow the row position, so ship dates are
			// clustered: each row group covers a narrow date range.
			g.orderDay = firstOrderDay + int32(g.row*int64(orderDaySpread)/max(g.totalRows, 1))
		}
		g.linesLeft--
		g.row++

		part := 1 + r.Int64N(partCount)
		qty := int64(1 + r.IntN(50))
		ship := g.orderDay + 1 + int32(r.IntN(121))
		flag := uint8(1) // N
		if ship <= returnCutoff {
			flag = uint8(r.IntN(2)) * 2 // A or R
		}
		c.orderKey = append(c.orderKey, g.orderKey)
		c.partKey = append(c.partKey, part)
		c.suppKey = append(c.suppKey, 1+r.Int64N(suppCount))
		c.quantity = append(c.quantity, qty*100)
		c.extendedPrice = append(c.extendedPrice, float64(qty*retailPriceCents(part))/100)
		c.discount = append(c.discount, float64(r.IntN(11))/100)
		c.returnFlag = append(c.returnFlag, flag)
		c.shipDate = append(c.shipDate, ship)
		c.commentBytes = appendComment(c.commentBytes, r)
		c.commentEnds = append(c.commentEnds, int32(len(c.commentBytes)))
	}
}

// retailPriceCents is TPC-H's P_RETAILPRICE formula, in cents.
func retailPriceCents(part int64) int64 {
	return 90000 + (part/10)%20001 + 100*(part%1000)
}

// appendComment appends random words, cut to 10–40 bytes.
func appendComment(dst []byte, r *rand.Rand) []byte {
	start := len(dst)
	want := 10 + r.IntN(31)
	for len(dst)-start < want {
		if len(dst) > start {
			dst = append(dst, ' ')
		}
		dst = append(dst, commentWords[r.IntN(len(commentWords))]...)
	}
	return dst[:start+want]
}

func (c *columns) comment(i int) []byte {
	start := int32(0)
	if i > 0 {
		start = c.commentEnds[i-1]
	}
	return c.commentBytes[start:c.commentEnds[i]]
}
