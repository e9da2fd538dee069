package gatewaytest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/infergate/infergate-go/internal/modelname"
)

// Model resolution, as the deployed gateway does it for chat and embeddings: a request's model
// is a catalogue model's hex id (exactly, case and all), its name (without case), the slug of its
// name, or a name whose slug is one of those. A model of the wrong type is a 400
// model_type_mismatch. A name that is none of them but near some is a 400
// model_not_found_near_miss naming them; a name near none, or no name, is served by the route's
// default model, silently, and the answer names that model.

// modelUse is what a route asks of a model.
type modelUse struct {
	modelType string // the catalogue type it serves
	requests  string // how the gateway's type-mismatch message names its requests
	fallback  string // the default when the catalogue has no model of modelType
}

var (
	chatUse       = modelUse{modelType: "LLM", requests: "LLM", fallback: DefaultModel}
	embeddingsUse = modelUse{modelType: "EMBEDDING", requests: "EMBEDDINGS", fallback: DefaultEmbeddingModel}
	speechUse     = modelUse{modelType: "TTS", fallback: DefaultSpeechModel}
	sttUse        = modelUse{modelType: "STT", fallback: DefaultTranscriptionModel}
)

// catalog is the catalogue indexed the way the gateway resolves names; built once, read only.
type catalog struct {
	models []CatalogModel
	index  *modelname.Index
}

func newCatalog(models []CatalogModel) *catalog {
	names, hexIDs := make([]string, len(models)), make([]string, len(models))
	for i, m := range models {
		names[i], hexIDs[i] = m.ID, m.BlockchainID
	}
	return &catalog{models: models, index: modelname.NewIndex(names, hexIDs)}
}

// lookup finds the model a name resolves to.
func (c *catalog) lookup(name string) (CatalogModel, bool) {
	i, ok := c.index.Lookup(name)
	if !ok {
		return CatalogModel{}, false
	}
	return c.models[i], true
}

// defaultFor is the name of the model a route serves when the request names none it knows: the
// catalogue's first model of the route's type.
func (c *catalog) defaultFor(use modelUse) string {
	for _, m := range c.models {
		if m.ModelType == use.modelType {
			return m.ID
		}
	}
	return use.fallback
}

// resolveModel is the name of the model that serves a request naming requested on a route that
// uses models as use says; when the gateway refuses the name, it writes the gateway's 400 and
// reports false. With WithAnyModel every name is served as itself.
func (s *Server) resolveModel(w http.ResponseWriter, requested string, use modelUse) (string, bool) {
	if requested == "" {
		return s.catalog.defaultFor(use), true
	}
	if s.cfg.anyModel {
		return requested, true
	}
	m, ok := s.catalog.lookup(requested)
	switch {
	case ok && (m.ModelType == use.modelType || m.ModelType == "UNKNOWN"):
		return m.ID, true
	case ok:
		w.Header().Set("X-Morpheus-Error", "model_type_mismatch")
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("Model '%s' is type '%s' and cannot be used for '%s' requests; %s.",
				requested, m.ModelType, use.requests, typeHint(m.ModelType)),
			"type": "model_type_mismatch", "requested_model": requested, "resolved_model": m.ID,
			"resolved_id": m.BlockchainID, "requested_type": use.requests, "model_type": m.ModelType,
			"code": "model_type_mismatch",
		}})
		return "", false
	}
	near := s.catalog.index.Suggestions(requested)
	if len(near) == 0 {
		return s.catalog.defaultFor(use), true
	}
	quoted := make([]string, len(near))
	for i, n := range near {
		quoted[i] = "'" + n + "'"
	}
	w.Header().Set("X-Morpheus-Error", "model_not_found_near_miss")
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
		"message": fmt.Sprintf("Model '%s' was not found in active models. Did you mean: %s?",
			requested, strings.Join(quoted, ", ")),
		"type": "model_not_found", "requested_model": requested, "suggestions": near,
		"code": "model_not_found_near_miss",
	}})
	return "", false
}

// typeHint says where a model of a type is used, for the type-mismatch message (the wording is
// the fake's own).
func typeHint(modelType string) string {
	switch modelType {
	case "LLM":
		return "send it to /api/v1/chat/completions"
	case "EMBEDDING":
		return "send it to /api/v1/embeddings"
	case "TTS":
		return "send it to /api/v1/audio/speech"
	case "STT":
		return "send it to /api/v1/audio/transcriptions"
	}
	return "choose a model of the request's type from GET /api/v1/models"
}
