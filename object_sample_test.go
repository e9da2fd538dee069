package infergate_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// typeGen makes random Go types of the kinds typed answers hold, with the tags SchemaFor reads.
type typeGen struct {
	r      *rand.Rand
	fields int
}

var leafTypes = []reflect.Type{
	reflect.TypeFor[bool](), reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[uint16](),
	reflect.TypeFor[float32](), reflect.TypeFor[float64](), reflect.TypeFor[string](),
	reflect.TypeFor[time.Time](), reflect.TypeFor[infergate.Decimal](), reflect.TypeFor[infergate.Money](),
	reflect.TypeFor[percent](), reflect.TypeFor[shelf](), reflect.TypeFor[[]byte](), reflect.TypeFor[json.Number](),
}

// percent writes itself as text ("12.5%"), and says so in its schema: a type whose text has a
// grammar of its own declares it for a sample (or a model) to follow. (celsius does not: a
// sample of its schema, any string, need not decode.)
type percent float64

func (p percent) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%g%%", float64(p)), nil }

func (p *percent) UnmarshalText(b []byte) error {
	_, err := fmt.Sscanf(string(b), "%g%%", (*float64)(p))
	return err
}

func (percent) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":"string","pattern":"^[0-9]+(\\.[0-9]+)?%$"}`)
}

func (g *typeGen) typ(depth int) reflect.Type {
	if depth <= 0 || g.r.IntN(3) == 0 {
		return leafTypes[g.r.IntN(len(leafTypes))]
	}
	switch g.r.IntN(5) {
	case 0:
		return reflect.SliceOf(g.typ(depth - 1))
	case 1:
		return reflect.ArrayOf(1+g.r.IntN(2), g.typ(depth-1))
	case 2:
		return reflect.MapOf(reflect.TypeFor[string](), g.typ(depth-1))
	case 3:
		return reflect.PointerTo(g.typ(depth - 1))
	}
	return g.structType(depth - 1)
}

func (g *typeGen) structType(depth int) reflect.Type {
	var fields []reflect.StructField
	for i := range 1 + g.r.IntN(5) {
		g.fields++
		f := reflect.StructField{Name: fmt.Sprintf("F%d", g.fields), Type: g.typ(depth)}
		tag := fmt.Sprintf("f%d", i)
		switch k := f.Type.Kind(); {
		case g.r.IntN(4) == 0:
			tag += ",omitempty"
		case k >= reflect.Bool && k <= reflect.Float64 && f.Type.PkgPath() == "" && g.r.IntN(2) == 0:
			// Not on a type that encodes itself: encoding/json writes it as the type does, and
			// before Go 1.27 reads it back only from a string within a string.
			tag += ",string"
		}
		f.Tag = reflect.StructTag(fmt.Sprintf(`json:%q`, tag))
		if f.Type.Kind() == reflect.String && f.Type.Name() == "string" && g.r.IntN(3) == 0 {
			f.Tag += ` enum:"red,green"`
		}
		fields = append(fields, f)
	}
	return reflect.StructOf(fields)
}

// TestSampleOfEveryTypeIsAccepted derives the schema of random types as an object request sends it,
// has the fake sample it, and checks that the sample passes the schema that checks answers and
// decodes into the type: with nothing scripted, gatewaytest answers any typed request.
func TestSampleOfEveryTypeIsAccepted(t *testing.T) {
	t.Parallel()
	g := &typeGen{r: rand.New(rand.NewPCG(7, 21))}
	for i := range infergate.Scaled(400) { // a tenth under the race detector: one goroutine's reflection
		typ := g.structType(3)
		if i%4 == 3 {
			typ = g.typ(3)
		}
		sent, check, wrapped, err := infergate.ObjectSchemasOf(typ)
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		var schema any
		if err := json.Unmarshal(sent, &schema); err != nil {
			t.Fatal(err)
		}
		sample := gatewaytest.SampleFromSchema(schema)
		if err := check.Validate(sample); err != nil {
			t.Fatalf("%v: sample %s of %s refused: %v", typ, mustMarshal(t, sample), sent, err)
		}
		if wrapped {
			sample = sample.(map[string]any)["value"]
		}
		if err := json.Unmarshal([]byte(mustMarshal(t, sample)), reflect.New(typ).Interface()); err != nil {
			t.Fatalf("%v: sample %s does not decode: %v", typ, mustMarshal(t, sample), err)
		}
	}
}
