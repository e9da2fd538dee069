package gatewaytest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
)

// Model resolution, as the deployed gateway does it for chat and embeddings: a request's model
// is a catalogue model's hex id (exactly, case and all), its name (without case), the slug of its
// name, or a name whose slug is one of those. A model of the wrong type is a 400
// model_type_mismatch. A name that is none of them but near some is a 400
// model_not_found_near_miss naming them; a name near none, or no name, is served by the route's
// default model, silently, and the answer names that model.

// nearMissCutoff and maxSuggestions are the gateway's: difflib's ratio a key must reach, and how
// many catalogue names a near miss names at most.
const (
	nearMissCutoff = 0.72
	maxSuggestions = 5
)

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
	byHex  map[string]int // blockchain id → model
	byKey  map[string]int // lower-case name, or the slug of one name alone → model
	keys   []string       // byKey's keys, sorted, which near misses are sought among
}

func newCatalog(models []CatalogModel) *catalog {
	c := &catalog{models: models, byHex: map[string]int{}, byKey: map[string]int{}}
	slugs := map[string][]int{}
	for i, m := range models {
		if _, dup := c.byHex[m.BlockchainID]; !dup {
			c.byHex[m.BlockchainID] = i
		}
		if _, dup := c.byKey[strings.ToLower(m.ID)]; !dup {
			c.byKey[strings.ToLower(m.ID)] = i
		}
		slugs[slug(m.ID)] = append(slugs[slug(m.ID)], i)
	}
	// A slug is an alias only when one model claims it, and a name always wins over it.
	for s, claims := range slugs {
		if _, taken := c.byKey[s]; !taken && len(claims) == 1 && s != "" {
			c.byKey[s] = claims[0]
		}
	}
	for k := range c.byKey {
		c.keys = append(c.keys, k)
	}
	slices.Sort(c.keys)
	return c
}

// slug is the gateway's kebab slug of a name: lower case, each run of white space or
// underscores a hyphen, runs of hyphens one, none at either end. Dots and colons stay.
func slug(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsSpace(r) || r == '_' || r == '-' {
			hyphen = true
			continue
		}
		if hyphen && b.Len() > 0 {
			b.WriteByte('-')
		}
		hyphen = false
		b.WriteRune(r)
	}
	return b.String()
}

// lookup finds the model a name resolves to.
func (c *catalog) lookup(name string) (CatalogModel, bool) {
	i, ok := c.byHex[name]
	if !ok {
		i, ok = c.byKey[strings.ToLower(name)]
	}
	if !ok {
		i, ok = c.byKey[slug(name)]
	}
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

// suggestions are the catalogue names the gateway offers for a name it does not know: the names
// the slug reaches once a trailing -turbo or -instruct-turbo is cut off (repeatedly), then the
// names of the keys difflib finds close to the slug, to the name in lower case and to each cut
// form; each name once, at most maxSuggestions.
func (c *catalog) suggestions(name string) []string {
	cut := []string{}
	for s := slug(name); ; {
		trimmed, ok := strings.CutSuffix(s, "-instruct-turbo")
		if !ok {
			trimmed, ok = strings.CutSuffix(s, "-turbo")
		}
		if !ok {
			break
		}
		s = trimmed
		cut = append(cut, s)
	}
	var out []string
	add := func(key string) {
		if n := c.models[c.byKey[key]].ID; len(out) < maxSuggestions && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, s := range cut {
		if _, ok := c.byKey[s]; ok {
			add(s)
		}
	}
	for _, needle := range append([]string{slug(name), strings.ToLower(name)}, cut...) {
		for _, key := range closeMatches(needle, c.keys, maxSuggestions, nearMissCutoff) {
			add(key)
		}
	}
	return out
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
	near := s.catalog.suggestions(requested)
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
