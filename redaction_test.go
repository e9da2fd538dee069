package infergate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/infergate/infergate-go"
)

func TestClientDoesNotPrintSecrets(t *testing.T) {
	t.Parallel()
	c, _ := mockClient(t, infergate.WithAccessToken("jwt-secret-token"))
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(verb, c)
		if strings.Contains(out, "sk-secret-key") || strings.Contains(out, "jwt-secret-token") {
			t.Errorf("%s of the client leaks a credential: %s", verb, out)
		}
	}
}
