package gatewaytest_test

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
)

var hex64 = regexp.MustCompile(`^0x[0-9a-f]{64}$`)

func TestModelsDefaultCatalogue(t *testing.T) {
	s := gatewaytest.New(t)
	resp, body := send(t, s, "GET", "/models", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var got struct {
		Object string                     `json:"object"`
		Data   []gatewaytest.CatalogModel `json:"data"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Object != "list" || !reflect.DeepEqual(got.Data, gatewaytest.DefaultModels()) {
		t.Errorf("catalogue = %+v", got)
	}
	types := map[string]string{}
	for _, m := range got.Data {
		types[m.ID] = m.ModelType
		if !hex64.MatchString(m.BlockchainID) || m.BlockchainID != gatewaytest.HexID(m.ID) {
			t.Errorf("%s: blockchainID %q", m.ID, m.BlockchainID)
		}
	}
	want := map[string]string{"llama-3.3-70b": "LLM", "llama-3.3-70b:web": "LLM", "qwen2.5-vl-72b": "LLM",
		"text-embedding-bge-m3": "EMBEDDING", "tts-kokoro": "TTS", "whisper-v3-large-turbo": "STT"}
	if !reflect.DeepEqual(types, want) {
		t.Errorf("models = %v", types)
	}
}

func TestModelsCustomCatalogue(t *testing.T) {
	s := gatewaytest.New(t, gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "glm-5.1:web", Created: 5}))
	_, body := send(t, s, "GET", "/models", nil)
	jsonEqual(t, body, `{"object":"list","data":[{"id":"glm-5.1:web","blockchainID":"`+gatewaytest.HexID("glm-5.1:web")+
		`","created":5,"tags":[],"modelType":"LLM"}]}`)
}

func TestRatedBidsDeployedShape(t *testing.T) {
	s := gatewaytest.New(t)
	id := gatewaytest.HexID("llama-3.3-70b")
	resp, body := send(t, s, "GET", "/models/ratedbids?model_id="+id, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var got struct {
		Bids []struct {
			ID    string
			Bid   map[string]any
			Score float64
		} `json:"bids"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Bids) != 2 || got.Bids[0].Score != 0.73 || got.Bids[0].ID != gatewaytest.HexID("llama-3.3-70b/bid/1") {
		t.Fatalf("bids = %+v", got.Bids)
	}
	b := got.Bids[0].Bid
	want := map[string]any{"Id": got.Bids[0].ID, "Provider": b["Provider"], "ModelAgentId": id,
		"PricePerSecond": "1000000000000", "Nonce": "1", "CreatedAt": "1757993282", "DeletedAt": "0"}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("Bid = %v", b)
	}
	if p, _ := b["Provider"].(string); !regexp.MustCompile(`^0x[0-9a-f]{40}$`).MatchString(p) {
		t.Errorf("Provider %q", p)
	}
}

func TestRatedBidsContractShapeAndCustomBids(t *testing.T) {
	model := gatewaytest.HexID("m")
	s := gatewaytest.NewServer(gatewaytest.WithContractBids(), gatewaytest.WithBids(
		gatewaytest.Bid{ID: "0xb1", ModelID: model, Provider: "0xp1", PricePerSecondWei: "123456789000000000000",
			Rating: 4.5, TotalSessions: 9, Availability: "offline", MinDuration: 1, MaxDuration: 2},
		gatewaytest.Bid{ID: "0xother", ModelID: gatewaytest.HexID("other")},
	))
	defer s.Close()
	_, body := send(t, s, "GET", "/models/ratedbids?model_id="+model, nil)
	jsonEqual(t, body, `{"bids":[{"bid_id":"0xb1","provider":"0xp1","model_id":"`+model+`","price_per_second":"123.456789",
		"rating":4.5,"total_sessions":9,"availability":"offline","min_duration":1,"max_duration":2}]}`)
}

func TestRatedBidsRejections(t *testing.T) {
	s := gatewaytest.New(t)
	tests := []struct {
		query  string
		status int
		want   string
	}{
		{"?model_id=llama-3.3-70b", 400, `{"detail":"Invalid model_id format. Must be a hex blockchain ID (0x followed by 64 hex characters)"}`},
		{"", 422, `{"detail":[{"type":"missing","loc":["query","model_id"],"msg":"Field required","input":null}]}`},
		{"?model_id=" + gatewaytest.HexID("unknown"), 200, `{"bids":[]}`},
	}
	for _, tt := range tests {
		resp, body := send(t, s, "GET", "/models/ratedbids"+tt.query, nil)
		if resp.StatusCode != tt.status {
			t.Errorf("%q: status %d", tt.query, resp.StatusCode)
		}
		jsonEqual(t, body, tt.want)
	}
}

func TestSessions(t *testing.T) {
	s := gatewaytest.New(t)
	post := func(path string) map[string]any {
		resp, body := call(t, s, "POST", path, gatewaytest.DefaultAPIKey, stringReader(`{"sessionDuration":3600,"directPayment":false,"failover":false}`), "application/json")
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		return decode(t, body)
	}
	if got := post("/session/pingsession"); !reflect.DeepEqual(got, map[string]any{"status": "no_session", "message": "No active session found", "success": false}) {
		t.Errorf("ping without session = %v", got)
	}
	opened := post("/session/bidsession?bid_id=" + gatewaytest.HexID("llama-3.3-70b/bid/1"))
	id, _ := opened["session_id"].(string)
	if !hex64.MatchString(id) || opened["success"] != true || opened["api_key_prefix"] != "sk-tes" || s.Session() != id {
		t.Errorf("bidsession = %v", opened)
	}
	if got := post("/session/pingsession"); got["status"] != "alive" || got["session_id"] != id || got["success"] != true {
		t.Errorf("ping = %v", got)
	}
	byModel := post("/session/modelsession?model_id=llama-3.3-70b")
	if byModel["model"] != "llama-3.3-70b" || byModel["session_id"] == id || s.Session() != byModel["session_id"] {
		t.Errorf("modelsession = %v", byModel)
	}
	if got := post("/session/closesession"); got["session_id"] != byModel["session_id"] || got["success"] != true {
		t.Errorf("close = %v", got)
	}
	if got := post("/session/closesession"); got["session_id"] != nil || s.Session() != "" {
		t.Errorf("second close = %v", got)
	}
	if resp, _ := call(t, s, "POST", "/session/bidsession", gatewaytest.DefaultAPIKey, nil, ""); resp.StatusCode != 422 {
		t.Errorf("bidsession without bid_id: %d", resp.StatusCode)
	}
}

func TestSessionsUnknownModelAndDisabled(t *testing.T) {
	s := gatewaytest.New(t, gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "m"}))
	resp, body := send(t, s, "POST", "/session/modelsession?model_id=nope", nil)
	if resp.StatusCode != 404 {
		t.Errorf("unknown model: %d", resp.StatusCode)
	}
	jsonEqual(t, body, `{"detail":"Model 'nope' not found"}`)

	off := gatewaytest.New(t, gatewaytest.WithoutSessions())
	for _, p := range []string{"bidsession?bid_id=0x1", "modelsession?model_id=m", "closesession", "pingsession"} {
		if resp, _ := send(t, off, "POST", "/session/"+p, nil); resp.StatusCode != 404 {
			t.Errorf("%s with sessions off: %d", p, resp.StatusCode)
		}
	}
}
