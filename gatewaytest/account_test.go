package gatewaytest_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
)

func TestEmbeddingsBothEncodingsCarryTheSameVector(t *testing.T) {
	s := gatewaytest.New(t)
	want := gatewaytest.Embed("the cat sat", 8)
	_, floatBody := send(t, s, "POST", "/embeddings", map[string]any{"input": "the cat sat", "dimensions": 8})
	var asFloat struct {
		Data []struct {
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(floatBody, &asFloat); err != nil || len(asFloat.Data) != 1 {
		t.Fatalf("float answer %s: %v", floatBody, err)
	}
	_, b64Body := send(t, s, "POST", "/embeddings", map[string]any{"input": []string{"the cat sat", "dogs"}, "dimensions": 8, "encoding_format": "base64"})
	var asBase64 struct {
		Data []struct {
			Index     int    `json:"index"`
			Embedding string `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b64Body, &asBase64); err != nil || len(asBase64.Data) != 2 || asBase64.Data[1].Index != 1 {
		t.Fatalf("base64 answer %s: %v", b64Body, err)
	}
	raw, err := base64.StdEncoding.DecodeString(asBase64.Data[0].Embedding)
	if err != nil {
		t.Fatal(err)
	}
	decoded := make([]float32, len(raw)/4)
	if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, decoded); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if asFloat.Data[0].Embedding[i] != want[i] || decoded[i] != want[i] {
			t.Fatalf("dimension %d: float %v, base64 %v, want %v", i, asFloat.Data[0].Embedding[i], decoded[i], want[i])
		}
	}
	if len(s.Usage()) != 2 {
		t.Errorf("usage records = %d, want one per embeddings call", len(s.Usage()))
	}
}

func TestEmbedIsUnitLengthAndRelatesSharedWords(t *testing.T) {
	a, b, c := gatewaytest.Embed("rain in Paris", 64), gatewaytest.Embed("Paris rain today", 64), gatewaytest.Embed("stock prices", 64)
	dot := func(x, y []float32) (d float64) {
		for i := range x {
			d += float64(x[i] * y[i])
		}
		return d
	}
	if n := dot(a, a); math.Abs(n-1) > 1e-6 {
		t.Errorf("|a|² = %v, want 1", n)
	}
	if dot(a, b) <= dot(a, c) {
		t.Errorf("sharing words should be closer: %v <= %v", dot(a, b), dot(a, c))
	}
}

// TestEmbedSpreadsOverEveryDimension: the fake's vectors look like a model's, spread over all their
// dimensions, not a few ±1 entries among zeros, and keep the sizes of the angles between texts.
func TestEmbedSpreadsOverEveryDimension(t *testing.T) {
	t.Parallel()
	for _, dims := range []int{64, 1024} {
		for _, text := range []string{"Paris", "first text", "The stock market fell on Monday.", "a b c d e f g h i j k l m n o p"} {
			v := gatewaytest.Embed(text, dims)
			zeros, largest := 0, 0.0
			for _, x := range v {
				if math.Abs(float64(x)) < 1e-6 {
					zeros++
				}
				largest = max(largest, math.Abs(float64(x)))
			}
			if zeros > dims/100 || largest > 0.5 {
				t.Errorf("Embed(%q, %d) has %d zeros and a largest value of %.3f; want values spread over the dimensions: %v",
					text, dims, zeros, largest, v[:8])
			}
		}
	}
	dot := func(x, y []float32) (d float64) {
		for i := range x {
			d += float64(x[i]) * float64(y[i])
		}
		return d
	}
	if d := dot(gatewaytest.Embed("Paris", 64), gatewaytest.Embed("Bananas", 64)); math.Abs(d) > 1e-6 {
		t.Errorf("texts with no word in common have a cosine of %v, want 0", d)
	}
	if d := dot(gatewaytest.Embed("Paris", 64), gatewaytest.Embed("paris, PARIS!", 64)); math.Abs(d-1) > 1e-6 {
		t.Errorf("texts with the same words have a cosine of %v, want 1", d)
	}
}

func TestSpeechAnswersEachFormat(t *testing.T) {
	s := gatewaytest.New(t)
	magic := map[string]string{"mp3": "\xff\xfb", "opus": "OggS", "aac": "\xff\xf1", "flac": "fLaC", "wav": "RIFF", "pcm": ""}
	for format, prefix := range magic {
		resp, body := send(t, s, "POST", "/audio/speech", map[string]any{"input": "hello", "response_format": format})
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "audio/") {
			t.Fatalf("%s: %d %s", format, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if len(body) == 0 || !bytes.HasPrefix(body, []byte(prefix)) || !bytes.Equal(body, gatewaytest.SpeechAudio(format)) {
			t.Errorf("%s: body starts %q", format, body[:min(len(body), 8)])
		}
	}
	resp, body := send(t, s, "POST", "/audio/speech", map[string]any{"input": "x", "response_format": "ogg"})
	if resp.StatusCode != 400 || !strings.Contains(string(body), "proxy_error") {
		t.Errorf("unknown format: %d %s", resp.StatusCode, body)
	}
}

func TestUsagePagesNewestFirstWithFilters(t *testing.T) {
	s := gatewaytest.New(t)
	base := time.Date(2025, 9, 30, 23, 0, 0, 0, time.UTC)
	for i := range 5 {
		s.AddUsage(gatewaytest.UsageRecord{ID: string(rune('a' + i)), CreatedAt: base.Add(time.Duration(i) * time.Hour),
			ModelName: "m", AmountTotal: "0.5"})
	}
	_, body := send(t, s, "GET", "/billing/usage?limit=2&offset=1", nil)
	jsonPage := decode(t, body)
	items := jsonPage["items"].([]any)
	if len(items) != 2 || items[0].(map[string]any)["id"] != "d" || jsonPage["has_more"] != true || jsonPage["total"] != 5.0 {
		t.Errorf("page: %s", body)
	}
	_, body = send(t, s, "GET", "/billing/usage/month?year=2025&month=10", nil)
	if got := decode(t, body)["total"]; got != 4.0 {
		t.Errorf("October records = %v, want 4: %s", got, body)
	}
	resp, _ := send(t, s, "GET", "/billing/usage/month?year=2025", nil)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("month missing: %d", resp.StatusCode)
	}
}

func TestKeysTakeTheAccessTokenOnly(t *testing.T) {
	s := gatewaytest.New(t)
	if resp, _ := call(t, s, "GET", "/auth/keys", gatewaytest.DefaultAPIKey, nil, ""); resp.StatusCode != 401 {
		t.Fatalf("API key on key routes: %d, want 401", resp.StatusCode)
	}
	tok := gatewaytest.DefaultAccessToken
	_, body := call(t, s, "POST", "/auth/keys", tok, strings.NewReader(`{"name":"ci"}`), "application/json")
	created := decode(t, body)
	if !strings.HasPrefix(created["key"].(string), created["key_prefix"].(string)) {
		t.Fatalf("created: %s", body)
	}
	call(t, s, "POST", "/auth/keys", tok, strings.NewReader(`{}`), "application/json")
	_, body = call(t, s, "GET", "/auth/keys/default", tok, nil, "")
	if decode(t, body)["id"] != 1.0 {
		t.Errorf("default without one set is the oldest: %s", body)
	}
	call(t, s, "PUT", "/auth/keys/2/default", tok, nil, "")
	_, body = call(t, s, "DELETE", "/auth/keys/2", tok, nil, "")
	if decode(t, body)["is_active"] != false {
		t.Errorf("deleted: %s", body)
	}
	if resp, _ := call(t, s, "PUT", "/auth/keys/2/default", tok, nil, ""); resp.StatusCode != 404 {
		t.Errorf("default on a revoked key: %d", resp.StatusCode)
	}
	call(t, s, "DELETE", "/auth/keys/1", tok, nil, "")
	_, body = call(t, s, "GET", "/auth/keys/default", tok, nil, "")
	if string(bytes.TrimSpace(body)) != "null" {
		t.Errorf("no active key: %s", body)
	}
	if keys := s.APIKeys(); len(keys) != 2 || keys[0].IsActive {
		t.Errorf("keys: %+v", keys)
	}
}

func TestHealthIsOutsideTheAPIAndOpen(t *testing.T) {
	s := gatewaytest.New(t)
	resp, err := http.Get(s.URL() + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct {
		Status       string
		ModelService struct {
			ModelCount int `json:"model_count"`
		} `json:"model_service"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != 200 || h.Status != "ok" || h.ModelService.ModelCount == 0 {
		t.Errorf("health: %d %+v %v", resp.StatusCode, h, err)
	}
}
