//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package batch_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/infergate/infergate-go/batch"
)

// TestSecondRunOnOneOutputIsRefused starts a run and, while its requests are in flight, a second
// run on the same output: the second is refused with ErrOutputInUse, sends nothing and leaves the
// output alone, and the first ends with one result per request. The same holds once a run has
// written its output anew for RetryFailed, and a run after the first is free to go.
func TestSecondRunOnOneOutputIsRefused(t *testing.T) {
	t.Parallel()
	for _, retry := range []bool{false, true} {
		names := ids(4)
		in, out := files(t, chatLines(names)...)
		if retry { // a failed result first, so that the run writes the output anew
			refuse := &fake{decide: func(text string, _ int) (int, http.Header) {
				if text == names[0] {
					return http.StatusBadRequest, nil
				}
				return http.StatusOK, nil
			}}
			if _, err := batch.Run(context.Background(), serve(t, refuse), batch.Job{Input: in, Output: out}); err != nil {
				t.Fatal(err)
			}
		}
		inFlight, release := make(chan struct{}, 1), make(chan struct{})
		first := &fake{delay: func(string, int) time.Duration {
			select {
			case inFlight <- struct{}{}:
			default:
			}
			<-release
			return 0
		}}
		done := make(chan error, 1)
		go func() {
			_, err := batch.Run(context.Background(), serve(t, first), batch.Job{Input: in, Output: out, RetryFailed: retry, Concurrency: 1})
			done <- err
		}()
		<-inFlight
		before, _ := os.ReadFile(out)
		second := &fake{}
		_, err := batch.Run(context.Background(), serve(t, second), batch.Job{Input: in, Output: out, RetryFailed: retry})
		if !errors.Is(err, batch.ErrOutputInUse) {
			t.Errorf("retry %v: second run = %v, want ErrOutputInUse", retry, err)
		}
		if n := len(second.requests()); n != 0 {
			t.Errorf("retry %v: the second run sent %d requests", retry, n)
		}
		if after, _ := os.ReadFile(out); string(after) != string(before) {
			t.Errorf("retry %v: the second run changed the output", retry)
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := byID(t, results(t, out)); len(got) != len(names) {
			t.Errorf("retry %v: %d results for %d requests", retry, len(got), len(names))
		}
		if _, err := batch.Run(context.Background(), serve(t, &fake{}), batch.Job{Input: in, Output: out}); err != nil {
			t.Errorf("retry %v: a run after the first = %v", retry, err)
		}
	}
}
