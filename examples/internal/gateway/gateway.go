// Package gateway connects the examples to a gateway: the real one when INFERGATE_API_KEY is set,
// otherwise an in-process fake from gatewaytest, so that every example runs anywhere, offline too.
package gateway

import (
	"cmp"
	"fmt"
	"io"
	"os"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// Connect returns a client and says on the first line of w which gateway it talks to. The real
// gateway is configured by the environment (INFERGATE_API_KEY, INFERGATE_BASE_URL); the fake is
// started with fake, which scripts what it answers. stop shuts the fake down and does nothing for
// the real gateway.
func Connect(w io.Writer, fake ...gatewaytest.ServerOption) (client *infergate.Client, stop func(), err error) {
	if os.Getenv("INFERGATE_API_KEY") != "" {
		client, err := infergate.NewClient()
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintln(w, "using the real gateway at", cmp.Or(os.Getenv("INFERGATE_BASE_URL"), infergate.DefaultBaseURL))
		return client, func() {}, nil
	}
	srv := gatewaytest.NewServer(fake...)
	fmt.Fprintln(w, "using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)")
	return srv.Client(), srv.Close, nil
}
