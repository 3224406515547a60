package iceberg

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/twpayne/go-geom/encoding/wkb"
	"github.com/twpayne/go-geom/encoding/wkt"
)

func TestGeoTypesParseAndPrint(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Type
		text string
	}{
		{"geometry", GeometryType{}, "geometry(OGC:CRS84)"},
		{"geometry(OGC:CRS84)", GeometryType{}, "geometry(OGC:CRS84)"},
		{"geometry( ogc:crs84 )", GeometryType{}, "geometry(OGC:CRS84)"},
		{"geometry(srid:4326)", GeometryType{CRS: "srid:4326"}, "geometry(srid:4326)"},
		{"GEOMETRY(EPSG:3857)", GeometryType{CRS: "EPSG:3857"}, "geometry(EPSG:3857)"},
		{"geometry(projjson:my_crs)", GeometryType{CRS: "projjson:my_crs"}, "geometry(projjson:my_crs)"},
		{"geography", GeographyType{}, "geography(OGC:CRS84, spherical)"},
		{"geography(EPSG:4326)", GeographyType{CRS: "EPSG:4326"}, "geography(EPSG:4326, spherical)"},
		{"geography(srid:4326, spherical)", GeographyType{CRS: "srid:4326"}, "geography(srid:4326, spherical)"},
		{"geography(OGC:CRS84,vincenty)", GeographyType{Algorithm: EdgeVincenty}, "geography(OGC:CRS84, vincenty)"},
		{"geography( EPSG:4326 , THOMAS )", GeographyType{CRS: "EPSG:4326", Algorithm: EdgeThomas}, "geography(EPSG:4326, thomas)"},
		{"geography(EPSG:4326, andoyer)", GeographyType{CRS: "EPSG:4326", Algorithm: EdgeAndoyer}, "geography(EPSG:4326, andoyer)"},
		{"geography(EPSG:4326, karney)", GeographyType{CRS: "EPSG:4326", Algorithm: EdgeKarney}, "geography(EPSG:4326, karney)"},
	} {
		got, err := ParsePrimitiveType(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got != c.want || got.String() != c.text {
			t.Errorf("%q: got %#v printed %q, want %#v printed %q", c.in, got, got.String(), c.want, c.text)
		}
		// The printed form parses back to the same type, through JSON too.
		raw, err := TypeToJSON(got)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseTypeJSON(raw)
		if err != nil || back != got {
			t.Errorf("%q: JSON %s reads back as %v, %v", c.in, raw, back, err)
		}
	}
	for _, bad := range []string{"geometry()", "geometry(a, b)", "geography(EPSG:4326, planar)",
		"geography(, spherical)", "geographyx", "geometry(EPSG:4326"} {
		if got, err := ParsePrimitiveType(bad); err == nil {
			t.Errorf("%q parsed as %v", bad, got)
		}
	}
}

func TestGeoColumnsMustDefaultToNull(t *testing.T) {
	raw := `{"type":"struct","fields":[{"id":1,"name":"g","required":false,"type":"geometry","initial-default":"POINT (1 2)"}]}`
	if _, err := ParseTypeJSON(json.RawMessage(raw)); err == nil {
		t.Error("a geometry column with a non-null initial-default was accepted")
	}
	raw = `{"type":"struct","fields":[{"id":1,"name":"g","required":false,"type":"geography","write-default":null}]}`
	if _, err := ParseTypeJSON(json.RawMessage(raw)); err != nil {
		t.Errorf("a null default was refused: %v", err)
	}
}

func TestIdentityRefusesGeo(t *testing.T) {
	for _, typ := range []Type{GeometryType{}, GeographyType{}} {
		if _, err := (IdentityTransform{}).ResultType(typ); err == nil {
			t.Errorf("identity of %v accepted", typ)
		}
		if _, err := (BucketTransform{N: 4}).ResultType(typ); err == nil {
			t.Errorf("bucket of %v accepted", typ)
		}
	}
}

// wktCases are texts in the form AppendWKT writes, so each must come back
// unchanged.
var wktCases = []string{
	"POINT (30 10)",
	"POINT Z (1 2 3)",
	"POINT M (1 2 4)",
	"POINT ZM (1 2 3 4)",
	"POINT EMPTY",
	"POINT (-122.4194 37.7749)",
	"LINESTRING (30 10, 10 30, 40 40)",
	"LINESTRING EMPTY",
	"POLYGON ((30 10, 40 40, 20 40, 10 20, 30 10))",
	"POLYGON ((35 10, 45 45, 15 40, 10 20, 35 10), (20 30, 35 35, 30 20, 20 30))",
	"POLYGON Z ((0 0 1, 1 0 1, 1 1 1, 0 0 1))",
	"MULTIPOINT ((10 40), (40 30), (20 20), (30 10))",
	"MULTILINESTRING ((10 10, 20 20, 10 40), (40 40, 30 30, 40 20, 30 10))",
	"MULTIPOLYGON (((30 20, 45 40, 10 40, 30 20)), ((15 5, 40 10, 10 20, 5 10, 15 5)))",
	"MULTIPOLYGON EMPTY",
	"GEOMETRYCOLLECTION (POINT (40 10), LINESTRING (10 10, 20 20, 10 40), POLYGON ((40 40, 20 45, 45 30, 40 40)))",
	"GEOMETRYCOLLECTION (POINT Z (1 2 3), GEOMETRYCOLLECTION EMPTY)",
	"GEOMETRYCOLLECTION EMPTY",
	"POINT (1e+300 -2.5e-10)",
}

func TestWKTRoundTrip(t *testing.T) {
	for _, text := range wktCases {
		b, err := WKTToWKB(text)
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		back, err := WKBToWKT(b)
		if err != nil || back != text {
			t.Errorf("%q: WKB %x reads back as %q, %v", text, b, back, err)
		}
	}
}

// TestWKBAgainstGoGeom checks floe's WKB against go-geom's independent
// encoder and decoder, in both directions and both byte orders.
func TestWKBAgainstGoGeom(t *testing.T) {
	for _, text := range wktCases {
		if text == "POINT EMPTY" || text == "GEOMETRYCOLLECTION (POINT Z (1 2 3), GEOMETRYCOLLECTION EMPTY)" {
			continue // go-geom spells these differently
		}
		g, err := wkt.Unmarshal(text)
		if err != nil {
			t.Fatalf("go-geom cannot read %q: %v", text, err)
		}
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			theirs, err := wkb.Marshal(g, order)
			if err != nil {
				t.Fatal(err)
			}
			got, err := WKBToWKT(theirs)
			if err != nil || got != text {
				t.Errorf("go-geom's WKB of %q (%v) reads as %q, %v", text, order, got, err)
			}
		}
		ours, err := WKTToWKB(text)
		if err != nil {
			t.Fatal(err)
		}
		back, err := wkb.Unmarshal(ours)
		if err != nil {
			t.Errorf("go-geom cannot read floe's WKB of %q: %v", text, err)
			continue
		}
		if theirs, _ := wkb.Marshal(back, binary.LittleEndian); !bytes.Equal(theirs, ours) {
			t.Errorf("%q: floe wrote %x, go-geom rewrites it as %x", text, ours, theirs)
		}
	}
}

func TestWKTInputForms(t *testing.T) {
	for in, want := range map[string]string{
		"point(1 2)":              "POINT (1 2)",
		"  Point  (  1   2 )  ":   "POINT (1 2)",
		"POINT (1 2 3)":           "POINT Z (1 2 3)",
		"POINT (1 2 3 4)":         "POINT ZM (1 2 3 4)",
		"MULTIPOINT (1 2, 3 4)":   "MULTIPOINT ((1 2), (3 4))",
		"LINESTRING(1 2 3,4 5 6)": "LINESTRING Z (1 2 3, 4 5 6)",
		"MULTIPOLYGON (((0 0 0, 1 1 1, 0 1 0, 0 0 0)))": "MULTIPOLYGON Z (((0 0 0, 1 1 1, 0 1 0, 0 0 0)))",
	} {
		b, err := WKTToWKB(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got, _ := WKBToWKT(b); got != want {
			t.Errorf("%q reads as %q, want %q", in, got, want)
		}
	}
	for _, bad := range []string{"", "POINT", "POINT (1)", "POINT (1 2", "POINT (1 2) x", "CIRCLE (1 2)",
		"LINESTRING (1 2, 1 2 3)", "POINT Z (1 2)", "POINT (a b)", "POINT (1 Inf)", "MULTIPOINT ((1 2), (1 2 3))"} {
		if _, err := WKTToWKB(bad); !errors.Is(err, ErrInvalidWKT) {
			t.Errorf("%q: error %v, want ErrInvalidWKT", bad, err)
		}
	}
}

func TestWKBErrors(t *testing.T) {
	point := mustHex(t, "01010000000000000000003e400000000000002440") // POINT (30 10), OGC's example
	if got, err := WKBToWKT(point); err != nil || got != "POINT (30 10)" {
		t.Fatalf("OGC's POINT (30 10) reads as %q, %v", got, err)
	}
	for name, b := range map[string][]byte{
		"empty":       nil,
		"truncated":   point[:len(point)-1],
		"trailing":    append(append([]byte{}, point...), 0),
		"byte order":  append([]byte{2}, point[1:]...),
		"type":        mustHex(t, "0109000000"),
		"huge count":  mustHex(t, "0102000000ffffffff"),
		"ewkb srid":   mustHex(t, "0101000020e61000000000000000003e400000000000002440"),
		"mixed multi": mustHex(t, "01040000000100000001020000000000000000"),
	} {
		if _, err := ParseWKB(b); !errors.Is(err, ErrInvalidWKB) {
			t.Errorf("%s: error %v, want ErrInvalidWKB", name, err)
		}
		var box GeoBox
		if err := box.AddWKB(b); !errors.Is(err, ErrInvalidWKB) && name != "mixed multi" {
			t.Errorf("%s: bounding box error %v, want ErrInvalidWKB", name, err)
		}
	}
}

func TestGeoJSONValueIsWKT(t *testing.T) {
	b, err := ValueFromJSON(GeometryType{}, json.RawMessage(`"POINT (30 10)"`))
	if err != nil {
		t.Fatal(err)
	}
	if want := mustHex(t, "01010000000000000000003e400000000000002440"); !bytes.Equal(b.([]byte), want) {
		t.Errorf("POINT (30 10) is %x, want %x", b, want)
	}
	raw, err := ValueToJSON(GeographyType{}, b)
	if err != nil || string(raw) != `"POINT (30 10)"` {
		t.Errorf("JSON form %s, %v", raw, err)
	}
	if err := CheckValue(GeometryType{}, b); err != nil {
		t.Error(err)
	}
	// The binary single-value form is the WKB itself.
	if bin, err := ValueToBytes(GeometryType{}, b); err != nil || !bytes.Equal(bin, b.([]byte)) {
		t.Errorf("binary form %x, %v", bin, err)
	}
}

func TestGeoBoundLayout(t *testing.T) {
	le := func(vs ...float64) []byte {
		var out []byte
		for _, v := range vs {
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
		}
		return out
	}
	nan := math.NaN()
	for _, c := range []struct {
		wkt        string
		lower, upp []byte
	}{
		{"POINT (30 10)", le(30, 10), le(30, 10)},
		{"LINESTRING (30 10, 10 30, 40 40)", le(10, 10), le(40, 40)},
		{"POINT Z (1 2 3)", le(1, 2, 3), le(1, 2, 3)},
		{"LINESTRING M (1 2 5, 3 -4 6)", le(1, -4, nan, 5), le(3, 2, nan, 6)},
		{"MULTIPOINT ZM ((1 2 3 4), (-1 5 -3 8))", le(-1, 2, -3, 4), le(1, 5, 3, 8)},
		// NaN coordinates are skipped per dimension.
		{"LINESTRING Z (1 NaN 3, 2 7 NaN)", le(1, 7, 3), le(2, 7, 3)},
	} {
		b, err := WKTToWKB(c.wkt)
		if err != nil {
			t.Fatal(err)
		}
		var box GeoBox
		if err := box.AddWKB(b); err != nil {
			t.Fatal(err)
		}
		lo, hi, ok := box.Bounds()
		if !ok {
			t.Fatalf("%s: no bounds", c.wkt)
		}
		gotLo, gotHi := AppendGeoBound(nil, lo), AppendGeoBound(nil, hi)
		// NaN payloads may differ; compare through the decoded form.
		if !sameBits(gotLo, c.lower) || !sameBits(gotHi, c.upp) {
			t.Errorf("%s: bounds %x / %x, want %x / %x", c.wkt, gotLo, gotHi, c.lower, c.upp)
		}
		back, err := ParseGeoBound(gotLo)
		if err != nil || back != lo {
			t.Errorf("%s: lower bound reads back as %+v, %v", c.wkt, back, err)
		}
	}
	// Only NaN in y: no box at all.
	b, _ := WKTToWKB("POINT (1 NaN)")
	var box GeoBox
	if err := box.AddWKB(b); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := box.Bounds(); ok {
		t.Error("a box without y values was produced")
	}
	if _, err := ParseGeoBound(make([]byte, 20)); err == nil {
		t.Error("a 20-byte bound was accepted")
	}
}

// sameBits compares doubles, any NaN equal to any NaN.
func sameBits(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i += 8 {
		x := math.Float64frombits(binary.LittleEndian.Uint64(a[i:]))
		y := math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))
		if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			return false
		}
	}
	return true
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzGeoCodecs feeds arbitrary bytes to the WKB reader and arbitrary text
// to the WKT reader: neither may panic, and whatever one accepts must
// survive a round trip through the other.
func FuzzGeoCodecs(f *testing.F) {
	for _, text := range wktCases {
		b, _ := WKTToWKB(text)
		f.Add(b, text)
	}
	f.Fuzz(func(t *testing.T, b []byte, text string) {
		var box GeoBox
		boxErr := box.AddWKB(b)
		if g, err := ParseWKB(b); err == nil {
			if boxErr != nil {
				t.Fatalf("WKB %x parses but its box fails: %v", b, boxErr)
			}
			w := string(AppendWKT(nil, &g))
			b2, err := WKTToWKB(w)
			if err != nil {
				t.Fatalf("WKT %q of WKB %x does not parse: %v", w, b, err)
			}
			if w2, _ := WKBToWKT(b2); w2 != w {
				t.Fatalf("WKT %q comes back as %q", w, w2)
			}
		}
		if wkbOut, err := WKTToWKB(text); err == nil {
			w, err := WKBToWKT(wkbOut)
			if err != nil {
				t.Fatalf("WKB of %q does not parse: %v", text, err)
			}
			again, err := WKTToWKB(w)
			if err != nil || !bytes.Equal(again, wkbOut) && !hasNaN(wkbOut) {
				t.Fatalf("%q → %q → %x, %v; first WKB %x", text, w, again, err, wkbOut)
			}
		}
	})
}

func hasNaN(b []byte) bool {
	g, err := ParseWKB(b)
	if err != nil {
		return false
	}
	var walk func(g *Geom) bool
	walk = func(g *Geom) bool {
		for _, v := range g.Coords {
			if math.IsNaN(v) {
				return true
			}
		}
		for i := range g.Parts {
			if walk(&g.Parts[i]) {
				return true
			}
		}
		return false
	}
	return walk(&g)
}
