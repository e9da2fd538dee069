package gatewaytest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// withoutSecrets is a CI job's environment: no key, no token, no recording.
func withoutSecrets(t *testing.T) {
	for _, v := range []string{"INFERGATE_API_KEY", "INFERGATE_ACCESS_TOKEN", "INFERGATE_BASE_URL", "INFERGATE_RECORD"} {
		t.Setenv(v, "")
	}
}

// A client whose calls all go to a replaying cassette needs no credential,
// for routes that take the API key and for those that take the access token
// only.
func TestCassetteReplaysWithoutCredentials(t *testing.T) {
	withoutSecrets(t)
	path := filepath.Join(t.TempDir(), "c.json")
	fake := gatewaytest.NewServer()
	rec := openCassette(t, path, gatewaytest.CassetteRecord)
	recording := fake.Client(rec.Option())
	if _, err := recording.Chat.Create(context.Background(), chatReq); err != nil {
		t.Fatal(err)
	}
	if _, err := recording.Keys.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	fake.Close()

	play := openCassette(t, path, gatewaytest.CassetteReplay)
	defer play.Close()
	client, err := infergate.NewClient(play.Option()) // the production address, no key
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Chat.Create(context.Background(), chatReq); err != nil {
		t.Fatalf("a recorded chat without a key: %v", err)
	}
	if _, err := client.Keys.List(context.Background()); err != nil {
		t.Fatalf("a recorded key listing without an access token: %v", err)
	}

}

// A miss is the cassette's error, not a failure to reach the gateway.
func TestCassetteMissIsNotATransportError(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	record(t, path, gatewaytest.CassetteRecord, "Capital of France?")
	play := openCassette(t, path, gatewaytest.CassetteReplay)
	defer play.Close()
	client, err := infergate.NewClient(infergate.WithAPIKey("sk-replay-0123456789"), play.Option())
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Chat.Create(context.Background(), ask("Not recorded?"))
	var miss *gatewaytest.CassetteMissError
	if !errors.As(err, &miss) {
		t.Fatalf("a miss gave %v, want a *CassetteMissError", err)
	}
	var transportErr *infergate.TransportError
	if errors.As(err, &transportErr) {
		t.Errorf("a miss is a *TransportError: %v", err)
	}
	for _, wrong := range []string{"https://", "Post "} {
		if strings.Contains(err.Error(), wrong) {
			t.Errorf("a miss reads as a failure to reach the gateway (%q): %v", wrong, err)
		}
	}
}

// A recording cassette still needs the key, and says so before anything is
// sent.
func TestCassetteRecordingWithoutKeySendsNothing(t *testing.T) {
	withoutSecrets(t)
	fake := gatewaytest.NewServer()
	defer fake.Close()
	rec := openCassette(t, filepath.Join(t.TempDir(), "c.json"), gatewaytest.CassetteRecordMissing)
	defer rec.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(fake.URL()), rec.Option())
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Chat.Create(context.Background(), chatReq)
	var invalid *infergate.ValidationError
	if !errors.As(err, &invalid) || invalid.Field != "APIKey" {
		t.Fatalf("recording without a key gave %v, want the *ValidationError on APIKey", err)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("the gateway got %d requests", n)
	}
}

// Replaying a file that is not there says how to record it.
func TestCassetteMissingFileSaysHowToRecord(t *testing.T) {
	withoutSecrets(t)
	_, err := gatewaytest.OpenCassette(filepath.Join(t.TempDir(), "absent.json"), gatewaytest.CassetteReplay)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "INFERGATE_RECORD=1") {
		t.Fatalf("got %v, want an os.ErrNotExist that names INFERGATE_RECORD=1", err)
	}
}
