package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// celsius writes itself as text ("21.5C") and reads it back.
type celsius float64

func (c celsius) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%gC", float64(c)), nil }

func (c *celsius) UnmarshalText(b []byte) error {
	_, err := fmt.Sscanf(string(b), "%gC", (*float64)(c))
	return err
}

// shelf writes itself as an array, with a pointer receiver.
type shelf struct{ books []string }

func (s *shelf) MarshalJSON() ([]byte, error) {
	if s.books == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(s.books)
}

func (s *shelf) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &s.books) }

// invoice holds types whose JSON is not their Go structure.
type invoice struct {
	Total    infergate.Decimal  `json:"total"`
	Paid     infergate.Money    `json:"paid"`
	Issued   time.Time          `json:"issued"`
	Due      *time.Time         `json:"due,omitempty"`
	Lines    int                `json:"lines,string"`
	Rate     float64            `json:"rate,string"`
	Final    bool               `json:"final,string"`
	Discount *int               `json:"discount,string,omitempty"`
	Temp     celsius            `json:"temp"`
	Shelf    shelf              `json:"shelf"`
	Extra    map[string]celsius `json:"extra,omitempty"`
}

// invoiceJSON is what encoding/json writes for an invoice.
func invoiceJSON(t *testing.T) (invoice, string) {
	t.Helper()
	total, _ := infergate.ParseDecimal("1234.50")
	paid, _ := infergate.ParseDecimal("0.000125")
	due := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	five := 5
	v := invoice{Total: total, Paid: infergate.Money{Amount: paid, Currency: infergate.CurrencyMOR},
		Issued: time.Date(2026, 2, 1, 9, 30, 0, 0, time.UTC), Due: &due, Lines: 3, Rate: 0.25, Final: true,
		Discount: &five, Temp: 21.5, Shelf: shelf{books: []string{"Dune"}}, Extra: map[string]celsius{"oven": 180}}
	raw, err := json.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	return v, string(raw)
}

// A tool whose arguments hold self-encoding types and ",string" fields takes the JSON encoding/json
// writes for them: the schema describes that JSON, not the Go structure.
func TestToolTakesTheJSONItsTypesWrite(t *testing.T) {
	t.Parallel()
	want, raw := invoiceJSON(t)
	var got invoice
	tool, err := infergate.NewTool("book", "Books an invoice", func(_ context.Context, in invoice) (string, error) {
		got = in
		return "booked", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tool.Call(context.Background(), raw)
	if err != nil || out != "booked" {
		t.Fatalf("valid arguments %s refused: %q, %v", raw, out, err)
	}
	if !got.Total.Equal(want.Total) || !got.Paid.Equal(want.Paid) || !got.Issued.Equal(want.Issued) ||
		got.Lines != 3 || got.Rate != 0.25 || !got.Final || *got.Discount != 5 || got.Temp != 21.5 ||
		!cmp.Equal(got.Shelf.books, []string{"Dune"}) || got.Extra["oven"] != 180 {
		t.Fatalf("decoded %+v", got)
	}
	// What the schema refuses is what encoding/json refuses too.
	for name, bad := range map[string]string{
		"an unquoted ,string number":   strings.Replace(raw, `"lines":"3"`, `"lines":3`, 1),
		"a decimal with a unit":        strings.Replace(raw, `"total":"1234.5"`, `"total":"1234.5 USD"`, 1),
		"an object for a decimal":      strings.Replace(raw, `"total":"1234.5"`, `"total":{}`, 1),
		"a number for a text type":     strings.Replace(raw, `"temp":"21.5C"`, `"temp":21.5`, 1),
		"an object for a writer array": strings.Replace(raw, `"shelf":["Dune"]`, `"shelf":{}`, 1),
	} {
		if bad == raw {
			t.Fatalf("%s: the replacement did not apply to %s", name, raw)
		}
		var te *infergate.ToolError
		if _, err := tool.Call(context.Background(), bad); !errors.As(err, &te) || te.Stage != infergate.ToolStageArguments {
			t.Errorf("%s accepted: %v", name, err)
		}
	}
}

func TestSchemaOfSelfEncodingTypes(t *testing.T) {
	t.Parallel()
	raw, err := infergate.SchemaFor[invoice]()
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			Properties map[string]struct{ Type, Pattern string }
		}
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var whole struct{ Properties json.RawMessage }
	if err := json.Unmarshal(raw, &whole); err != nil {
		t.Fatal(err)
	}
	got := whole.Properties
	for _, want := range []string{
		`"total":{"type":"string","pattern":"^-?[0-9]+(\\.[0-9]+)?$"}`,
		`"issued":{"type":"string","format":"date-time"}`,
		`"due":{"type":["null","string"],"format":"date-time"}`,
		`"lines":{"type":"string","pattern":"^-?[0-9]+$"}`,
		`"final":{"type":"string","enum":["true","false"]}`,
		`"discount":{"type":["string","null"],"pattern":"^-?[0-9]+$"}`,
		`"temp":{"type":"string"}`,
		`"shelf":{"type":"array"}`,
		`"extra":{"type":"object","additionalProperties":{"type":"string"}}`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("schema lacks %s:\n%s", want, got)
		}
	}
	if amount := s.Properties["paid"].Properties["amount"]; amount.Type != "string" || amount.Pattern == "" {
		t.Errorf("Money's amount: %+v", amount)
	}
}

// A typed answer holding amounts and times is accepted in the JSON encoding/json writes for it, in
// every mode: a Decimal's schema is a string, never an object no string could satisfy.
func TestGenerateObjectAcceptsTheJSONItsTypesWrite(t *testing.T) {
	t.Parallel()
	want, raw := invoiceJSON(t)
	for _, mode := range []infergate.ObjectMode{infergate.ObjectModeTool, infergate.ObjectModeJSONSchema, infergate.ObjectModePrompt} {
		reply := gatewaytest.Reply{Content: raw}
		if mode == infergate.ObjectModeTool {
			reply = gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "invoice", Arguments: raw}}}
		}
		gw := gatewaytest.New(t, gatewaytest.WithReplies(reply))
		obj, err := infergate.GenerateObject[invoice](context.Background(), gw.Client().Chat, recipeRequest(),
			infergate.ObjectSpec{Mode: mode, MaxAttempts: 1})
		if err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		if v := obj.Value; !v.Total.Equal(want.Total) || !v.Paid.Equal(want.Paid) || !v.Issued.Equal(want.Issued) || v.Lines != 3 {
			t.Fatalf("%v: value %+v", mode, v)
		}
	}
}

// An enum on a ",string" string field lists the values as encoding/json writes them there: JSON
// strings within the string.
func TestQuotedEnum(t *testing.T) {
	t.Parallel()
	type args struct {
		Unit string `json:"unit,string" enum:"c,f"`
	}
	tool, err := infergate.NewTool("t", "", func(_ context.Context, in args) (string, error) { return in.Unit, nil })
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(args{Unit: "f"})
	if out, err := tool.Call(context.Background(), string(raw)); err != nil || out != "f" {
		t.Fatalf("%s: %q, %v", raw, out, err)
	}
	var te *infergate.ToolError
	if _, err := tool.Call(context.Background(), `{"unit":"\"k\""}`); !errors.As(err, &te) ||
		te.Feedback() != `Invalid arguments for t: "unit" must be one of "\"c\"", "\"f\"".` {
		t.Fatalf("%v", err)
	}
}
