package gatewaytest

import (
	"cmp"
	"fmt"
	"io"
	"os"

	infergate "github.com/infergate/infergate-go"
)

// Connect returns a client of the real gateway when INFERGATE_API_KEY is set, and otherwise a
// client of a fake gateway started with fake, so that a program (an example, a command-line tool)
// runs anywhere, offline too. It writes one line to w saying which; stop closes the fake and does
// nothing for the real gateway.
//
// getenv reads the configuration (nil means os.Getenv): INFERGATE_API_KEY, INFERGATE_BASE_URL and
// INFERGATE_ACCESS_TOKEN configure the real client exactly as infergate.NewClient reads them from
// the environment, and nothing else does, so a program can add its own settings (a flag for the
// address, say) and its tests need not touch the process's environment. A base URL that cannot
// work is an error, before anything is written.
func Connect(w io.Writer, getenv func(string) string, fake ...ServerOption) (client *infergate.Client, stop func(), err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if key := getenv("INFERGATE_API_KEY"); key != "" {
		baseURL := cmp.Or(getenv("INFERGATE_BASE_URL"), infergate.DefaultBaseURL)
		client, err := infergate.NewClient(infergate.WithAPIKey(key), infergate.WithBaseURL(baseURL),
			infergate.WithAccessToken(getenv("INFERGATE_ACCESS_TOKEN")))
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintln(w, "using the real gateway at", baseURL)
		return client, func() {}, nil
	}
	gw := NewServer(fake...)
	fmt.Fprintln(w, "using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)")
	return gw.Client(), gw.Close, nil
}
