package infergate

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const newKeySecret = "sk-Zq8v3kT1secretsecretsecret"

func TestKeysCreateShowsTheKeyOnlyWhereAsked(t *testing.T) {
	t.Parallel()
	mock, _ := recordAll(t, 200, `{"key":"`+newKeySecret+`","key_prefix":"sk-Zq8v3k","name":"ci"}`, "")
	k, err := mockClient(t, mock, WithAccessToken(catalogJWT)).Keys.Create(t.Context(), "ci")
	if err != nil {
		t.Fatal(err)
	}
	if k.Key != newKeySecret || k.KeyPrefix != "sk-Zq8v3k" || k.Name != "ci" {
		t.Fatalf("key = %#v", *k)
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("created", "key", *k)
	for _, shown := range []string{fmt.Sprint(*k), fmt.Sprintf("%+v", *k), fmt.Sprintf("%#v", k), fmt.Sprintf("%s", *k), logged.String()} {
		if strings.Contains(shown, "secretsecret") || !strings.Contains(shown, "sk-Zq8v3k") {
			t.Errorf("printed as %q", shown)
		}
	}
}

func TestKeysCreateUnreadableAnswerKeepsTheKeyOutOfTheError(t *testing.T) {
	t.Parallel()
	mock, _ := recordAll(t, 200, `{"key":"`+newKeySecret+`","key_prefix":7}`, "")
	_, err := mockClient(t, mock, WithAccessToken(catalogJWT)).Keys.Create(t.Context(), "")
	var decodeErr *DecodeError
	if !errors.As(err, &decodeErr) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(fmt.Sprintf("%v %+v %s", err, decodeErr, decodeErr.Body), "secretsecret") {
		t.Errorf("the new key leaked into the error: %+v", decodeErr)
	}
}

func TestKeysListAndDefault(t *testing.T) {
	t.Parallel()
	mock, _ := recordAll(t, 200, `[{"id":1,"key_prefix":"sk-aaaaaa","name":null,"created_at":"2025-09-22T11:09:00.123456","is_active":false,"is_default":false,"encryption_version":1},
		{"id":2,"key_prefix":"sk-bbbbbb","name":"prod","created_at":"2025-09-23T08:55:00Z","is_active":true,"is_default":true}]`, "")
	keys, err := mockClient(t, mock, WithAccessToken(catalogJWT)).Keys.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []APIKey{
		{ID: 1, KeyPrefix: "sk-aaaaaa", CreatedAt: time.Date(2025, 9, 22, 11, 9, 0, 123456000, time.UTC)},
		{ID: 2, KeyPrefix: "sk-bbbbbb", Name: "prod", CreatedAt: time.Date(2025, 9, 23, 8, 55, 0, 0, time.UTC), IsActive: true, IsDefault: true},
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	mock, _ = recordAll(t, 200, `null`, "")
	if k, err := mockClient(t, mock, WithAccessToken(catalogJWT)).Keys.Default(t.Context()); k != nil || !errors.Is(err, ErrNotFound) {
		t.Errorf("no default key: got %v, %v; want nil and an error matching ErrNotFound", k, err)
	}
}

func TestKeysRefuseTheAPIKeyAlone(t *testing.T) {
	t.Parallel()
	mock, calls := recordAll(t, 200, `[]`, "")
	_, err := mockClient(t, mock).Keys.List(t.Context())
	var verr *ValidationError
	if !errors.As(err, &verr) || verr.Field != "AccessToken" || len(calls()) != 0 {
		t.Errorf("err = %v after %d requests; want a ValidationError on AccessToken and none sent", err, len(calls()))
	}
}
