package partialjson

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type plainLeaf struct {
	S    string   `json:"s"`
	P    *string  `json:"p"`
	F    float64  `json:"f"`
	Tags []string `json:"tags"`
}

type PlainEmbedded struct {
	Promoted int8 `json:"promoted"`
}

type plainHidden struct {
	Hidden string `json:"hidden"`
}

type PlainByPointer struct {
	Far float32 `json:"far"`
}

// plainKinds has a field of each kind the plain path takes, and a few it leaves to the general
// path, side by side.
type plainKinds struct {
	PlainEmbedded
	plainHidden
	*PlainByPointer
	I8    int8                 `json:"i8"`
	I16   int16                `json:"i16"`
	I32   int32                `json:"i32"`
	I64   int64                `json:"i64"`
	I     int                  `json:"i"`
	U     uint                 `json:"u"`
	U8    uint8                `json:"u8"`
	F32   float32              `json:"f32"`
	F64   float64              `json:"f64"`
	PF    *float64             `json:"pf"`
	PPS   **string             `json:"pps"`
	B     bool                 `json:"b"`
	PB    *bool                `json:"pb"`
	S     string               `json:"s"`
	E     string               `json:"e" enum:"x,y"`
	Q     int                  `json:"q,string"`
	N     json.Number          `json:"n"`
	Strs  []string             `json:"strs"`
	PStrs []*string            `json:"pstrs"`
	Ints  []int16              `json:"ints"`
	Leaf  plainLeaf            `json:"leaf"`
	PLeaf *plainLeaf           `json:"pleaf"`
	Leafs []plainLeaf          `json:"leafs"`
	Grid  [][]string           `json:"grid"`
	Arr   [2]float64           `json:"arr"`
	M     map[string]int       `json:"m"`
	Any   any                  `json:"any"`
	Raw   json.RawMessage      `json:"raw"`
	Self  *plainKinds          `json:"self"`
	MLeaf map[string]plainLeaf `json:"mleaf"`
	Units []struct{}           `json:"units"`
	Big   [][200]byte          `json:"big"`
}

// randomJSON writes a random value for type t: mostly one that fits, sometimes any other.
func randomJSON(rng *rand.Rand, t reflect.Type, depth int, w *strings.Builder) {
	if rng.IntN(12) == 0 || depth > 4 {
		w.WriteString([]string{`null`, `true`, `"x"`, `-3`, `1.5`, `[1,"a"]`, `{"s":"k"}`, `1e400`, `"12"`}[rng.IntN(9)])
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		randomJSON(rng, t.Elem(), depth, w)
	case reflect.Bool:
		w.WriteString(strconv.FormatBool(rng.IntN(2) == 0))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		w.WriteString(randomNumber(rng))
	case reflect.String:
		if t == numberType {
			w.WriteString(randomNumber(rng))
			return
		}
		b, _ := json.Marshal(strings.Repeat("ab\"é\\", rng.IntN(3)) + strconv.Itoa(rng.IntN(100)))
		w.Write(b)
	case reflect.Slice, reflect.Array:
		w.WriteByte('[')
		for i := range rng.IntN(4) {
			if i > 0 {
				w.WriteByte(',')
			}
			randomJSON(rng, t.Elem(), depth+1, w)
		}
		w.WriteByte(']')
	case reflect.Map:
		w.WriteByte('{')
		for i := range rng.IntN(3) {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, `"k%d":`, rng.IntN(3))
			randomJSON(rng, t.Elem(), depth+1, w)
		}
		w.WriteByte('}')
	case reflect.Struct:
		plan := planOf(t)
		w.WriteByte('{')
		for i := range rng.IntN(len(plan.list) + 2) {
			if len(plan.list) == 0 {
				break
			}
			if i > 0 {
				w.WriteByte(',')
			}
			f := plan.list[rng.IntN(len(plan.list))] // keys met again too
			name := f.name
			if rng.IntN(10) == 0 {
				name = strings.ToUpper(name)
			}
			fmt.Fprintf(w, "%q:", name)
			if f.quoted && rng.IntN(4) > 0 {
				fmt.Fprintf(w, `"%d"`, rng.IntN(1000))
				continue
			}
			randomJSON(rng, f.typ, depth+1, w)
		}
		w.WriteByte('}')
	default:
		w.WriteString(`{"a":[1,{"b":"c"}]}`)
	}
}

// The plain path shows what the general path shows at every cut of random texts for a type of
// every kind it takes (and some it does not, beside them), and once complete both hold
// encoding/json's value.
func TestPlainPathMatchesGeneralPath(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	for range 400 {
		var w strings.Builder
		randomJSON(rng, reflect.TypeFor[plainKinds](), 0, &w)
		text := w.String()
		var plain, general plainKinds
		dp := NewDecoder(reflect.ValueOf(&plain).Elem())
		dg := NewDecoder(reflect.ValueOf(&general).Elem())
		dg.b.general = true
		for i := 0; i < len(text); {
			end := min(len(text), i+1+rng.IntN(12))
			cp, errP := dp.WriteString(text[i:end])
			cg, errG := dg.WriteString(text[i:end])
			if (errP == nil) != (errG == nil) || cp != cg {
				t.Fatalf("%s\nafter %q: plain changed %v, error %v; general changed %v, error %v", text, text[:end], cp, errP, cg, errG)
			}
			if !reflect.DeepEqual(general, plain) { // cmp only to say how: it costs more at every cut
				t.Fatalf("%s\nafter %q (-general +plain):\n%s", text, text[:end], cmp.Diff(general, plain, cmp.AllowUnexported(plainKinds{})))
			}
			i = end
		}
		var want plainKinds
		if json.Unmarshal([]byte(text), &want) != nil {
			continue
		}
		if diff := cmp.Diff(want, plain, cmp.AllowUnexported(plainKinds{})); diff != "" {
			t.Fatalf("%s (-encoding/json +plain):\n%s", text, diff)
		}
	}
}
