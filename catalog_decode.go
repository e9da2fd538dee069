package infergate

import (
	"encoding/json"

	"github.com/infergate/infergate-go/internal/jsonscan"
)

// catalogList is the catalogue's answer, {"object":"list","data":[...]} or a bare list. The usual
// shape goes through jsonscan.DecodeCatalog in one pass, with a handful of allocations for a
// thousand models; anything else through encoding/json.
type catalogList struct{ items []Model }

func (l *catalogList) decodeFast(raw []byte) bool {
	models, ok := decodeCatalog(raw)
	l.items = models
	return ok
}

// UnmarshalJSON decodes what decodeFast declined, with encoding/json.
func (l *catalogList) UnmarshalJSON(raw []byte) error {
	out := listOf[Model]{field: "data"}
	err := json.Unmarshal(raw, &out)
	l.items = out.items
	return err
}

// decodeCatalog returns the models of a catalogue in the gateway's usual shape; ok is false when
// the scanner declines. The models' strings share one copy of raw, never raw itself.
func decodeCatalog(raw []byte) ([]Model, bool) {
	models := make([]Model, 0, len(raw)/160) // the gateway's entries are about 160 bytes
	ok := jsonscan.DecodeCatalog(raw, func(m jsonscan.CatalogModel) {
		models = append(models, Model{ID: m.ID, BlockchainID: m.BlockchainID, Created: m.Created, Tags: m.Tags,
			Type: ModelType(m.Type), OwnedBy: m.OwnedBy})
	})
	return models, ok
}
