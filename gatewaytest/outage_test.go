package gatewaytest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
)

func postChat(t *testing.T, gw *gatewaytest.Server, model string, stream bool) (int, string) {
	t.Helper()
	body := `{"model":"` + model + `","stream":` + map[bool]string{true: "true", false: "false"}[stream] + `,"messages":[{"role":"user","content":"hi"}]}`
	req, _ := http.NewRequest(http.MethodPost, gw.URL()+"/api/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+gatewaytest.DefaultAPIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A model that is down fails every request for it as the deployed gateway does, uses no scripted
// reply, and serves again once it is up.
func TestModelDown(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageProviderError),
		gatewaytest.WithReplies(gatewaytest.Reply{Content: "scripted"}))
	for _, stream := range []bool{false, true} {
		if code, body := postChat(t, gw, "A", stream); code != http.StatusBadGateway || !strings.Contains(body, `"type":"provider_error"`) {
			t.Errorf("stream=%v: %d %s; want a 502 provider_error", stream, code, body)
		}
	}
	gw.SetModelDown("b", gatewaytest.OutageRetryFailed)
	code, body := postChat(t, gw, "b", true)
	if code != http.StatusOK || body != `data: {"error":{"message":"all providers of the model failed","status":502,"type":"retry_failed"}}`+"\n\n" {
		t.Errorf("stream: %d %q; want 200 and one in-band retry_failed event", code, body)
	}
	if code, _ := postChat(t, gw, "b", false); code != http.StatusBadGateway {
		t.Errorf("not a stream: %d; want the 502", code)
	}
	gw.SetModelUp("a")
	if code, body := postChat(t, gw, "a", false); code != http.StatusOK || !strings.Contains(body, "scripted") {
		t.Errorf("after SetModelUp: %d %s; want the scripted reply, which no failed request used", code, body)
	}
}
