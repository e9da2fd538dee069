package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
)

// refModel is a model of the catalogue as encoding/json reads it.
type refModel struct {
	ID           string   `json:"id"`
	BlockchainID string   `json:"blockchainID"`
	OwnedBy      string   `json:"owned_by"`
	Type         string   `json:"modelType"`
	Created      int64    `json:"created"`
	Tags         []string `json:"tags"`

	ContextLength int64     `json:"context_length"`
	MaxModelLen   int64     `json:"max_model_len"`
	ContextWindow int64     `json:"context_window"`
	InputPrice    priceText `json:"input_price_per_million"`
	OutputPrice   priceText `json:"output_price_per_million"`
	Capabilities  []string  `json:"capabilities"`
	TEE           bool      `json:"tee"`
}

// priceText is a price as DecodeCatalog reads it: a number's text, or a string's content.
type priceText string

func (p *priceText) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, (*string)(p))
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*p = priceText(n)
	return nil
}

// checkCatalog reports how DecodeCatalog and encoding/json differ on b, when the decoder accepts it.
func checkCatalog(b []byte) (declined bool, diff string) {
	var got []CatalogModel
	if !DecodeCatalog(b, func(m CatalogModel) { got = append(got, m) }) {
		return true, ""
	}
	var want []refModel
	var err error
	if bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("[")) {
		err = json.Unmarshal(b, &want)
	} else {
		var list struct {
			Object string     `json:"object"`
			Data   []refModel `json:"data"`
		}
		err = json.Unmarshal(b, &list)
		want = list.Data
	}
	if err != nil {
		return false, "accepted, but encoding/json refuses it: " + err.Error()
	}
	var wantModels []CatalogModel
	for _, m := range want {
		wantModels = append(wantModels, CatalogModel{ID: m.ID, BlockchainID: m.BlockchainID, OwnedBy: m.OwnedBy,
			Type: m.Type, Created: m.Created, Tags: m.Tags, ContextLength: m.ContextLength, MaxModelLen: m.MaxModelLen,
			ContextWindow: m.ContextWindow, InputPrice: string(m.InputPrice), OutputPrice: string(m.OutputPrice),
			Capabilities: m.Capabilities, TEE: m.TEE})
	}
	return false, diffOf(wantModels, got)
}

var catalogSeeds = []string{
	`{"object":"list","data":[{"id":"m","blockchainID":"0xab","created":1731000000,"tags":["llm","fast"],"modelType":"LLM"}]}`,
	`[{"id":"a"},{"id":"b","tags":[]}]`,
	`{"data":[]}`,
	`{"object":"list","data":[{"id":"é","owned_by":"x","created":0}]} `,
	`{"data":[{"id":"a","tags":["x","y","y"]}]}`,
	`{"data":[{"id":"glm-5.1","context_length":202752,"input_price_per_million":1.5,"output_price_per_million":"5.00","capabilities":["tools","reasoning"],"tee":true}]}`,
	`[{"id":"m","max_model_len":131072,"context_window":0,"input_price_per_million":"0.1","output_price_per_million":2.5e-1,"tee":false,"capabilities":[]}]`,
}

func TestDecodeCatalog(t *testing.T) {
	t.Parallel()
	checkCases(t, checkCatalog, []decodeCase{
		{catalogSeeds[0], false},
		{catalogSeeds[1], false},
		{catalogSeeds[2], false},
		{catalogSeeds[3], false},
		{catalogSeeds[4], false},
		{`{"data":[{"id":"a\u00e9\n","modelType":"LLM"},{"id":"b","modelType":"LLM"}]}`, false},
		{catalogSeeds[5], false},
		{catalogSeeds[6], false},
		{`{"data":[{"id":"a","extra":1}]}`, true},
		{`{"data":[{"id":"a","context_length":1.5}]}`, true},
		{`{"data":[{"id":"a","context_length":null}]}`, true},
		{`{"data":[{"id":"a","input_price_per_million":null}]}`, true},
		{`{"data":[{"id":"a","input_price_per_million":01}]}`, true},
		{`{"data":[{"id":"a","tee":"true"}]}`, true},
		{`{"data":[{"id":"a","tee":nul}]}`, true},
		{`{"data":[{"id":"a","capabilities":[1]}]}`, true},
		{`{"data":[{"id":"a","prices":{}}]}`, true},
		{`{"data":[{"id":null}]}`, true},
		{`{"data":null}`, true},
		{`{"data":[{"id":"a","id":"b"}]}`, true},
		{`{"data":[{"created":1.5}]}`, true},
		{`{"data":[],"more":1}`, true},
		{`[{"id":"a"}] x`, true},
	})
}

// FuzzDecodeCatalog holds DecodeCatalog to encoding/json: whatever it accepts, encoding/json reads
// to the same models.
func FuzzDecodeCatalog(f *testing.F) {
	for _, seed := range catalogSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if _, diff := checkCatalog([]byte(body)); diff != "" {
			t.Fatalf("%q: differs from encoding/json (-json +decoder):\n%s", body, diff)
		}
	})
}
