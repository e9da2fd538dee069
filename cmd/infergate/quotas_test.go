package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzQuotasFile: whatever a --quotas file holds, it is read into quotas the SDK takes, or refused
// as a wrong command line; never a panic.
func FuzzQuotasFile(f *testing.F) {
	f.Add([]byte(`{"groups": [{"name": "L", "models": ["glm-5.1", "kimi*"], "requests": 20, "tokens": 500000}], "default": {"requests": 60, "window": "1m"}}`))
	f.Add([]byte(`{"default": {}}`))
	f.Add([]byte(`{"default": {"requests": -1, "window": "-5s"}}`))
	f.Add([]byte(`{"groups": [{"window": "9999999999h"}]}`))
	f.Add([]byte(`{"groups": null, "default": {"concurrent": 1e400}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "quotas.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		q, err := readQuotas(path)
		var usage *usageError
		switch {
		case err != nil && !errors.As(err, &usage):
			t.Fatalf("readQuotas(%q) = %v, want a wrong command line", data, err)
		case err == nil && q.Validate() != nil:
			t.Fatalf("readQuotas(%q) = %+v, which the SDK refuses: %v", data, q, q.Validate())
		}
	})
}
