package infergate_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go"
)

// placeServer answers a chat stream with a first delta and speech with some audio, then holds each
// answer open until its request ends, as a model still generating does; the catalogue answers at
// once. The answer is cut in two writes, so that what reads its start finds the rest still coming.
func placeServer() *http.Client {
	return infergate.InProcessClient(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, ev(`{`+head+`,"choices":[{"index":0,"delta":{"role":"assistant"}}]}`)+content("hi"))
		case strings.HasSuffix(r.URL.Path, "/audio/speech"):
			w.Header().Set("Content-Type", "audio/mpeg")
			_, _ = io.WriteString(w, "ID3 the audio's first bytes")
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"object":"list","data":[]}`)
			return
		}
		_, _ = io.WriteString(w, "\n\n")
		<-r.Context().Done()
	}))
}

// streamingCalls are the calls whose answer is read after they return, each returning that answer
// (to close or to drop).
var streamingCalls = map[string]func(context.Context, *infergate.Client, ...infergate.Option) (io.Closer, error){
	"Chat.Stream": func(ctx context.Context, c *infergate.Client, opts ...infergate.Option) (io.Closer, error) {
		stream, err := c.Chat.Stream(ctx, hello(), opts...)
		if err != nil {
			return nil, err
		}
		return stream, nil
	},
	"Audio.Speak": func(ctx context.Context, c *infergate.Client, opts ...infergate.Option) (io.Closer, error) {
		return c.Audio.Speak(ctx, infergate.SpeechRequest{Input: "hello", Model: "tts-1"}, opts...)
	},
}

// placeIsFree fails the test unless a call of c, whose bound is one call in flight, gets a place
// within a minute (of the bubble's time).
func placeIsFree(t *testing.T, c *infergate.Client, after string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, err := c.Models.List(ctx); err != nil {
		t.Errorf("after %s, the next call: %v (the place was never given back)", after, err)
	}
}

type boom struct{}

// oneCallBounds are the two ways to bound a client to one call in flight: WithMaxConcurrency, and a
// limiter's Concurrent quota; both go through the same admission.
var oneCallBounds = map[string]func() infergate.Option{
	"WithMaxConcurrency": func() infergate.Option { return infergate.WithMaxConcurrency(1) },
	"WithLimiter": func() infergate.Option {
		return infergate.WithLimiter(infergate.NewLimiter(infergate.Quotas{Default: infergate.Quota{Concurrent: 1}}))
	},
}

// A panic in a middleware or an observer during a call whose answer is streamed reaches the caller,
// and the call gives its WithMaxConcurrency place back all the same.
func TestPlaceComesBackAfterAPanic(t *testing.T) {
	t.Parallel()
	panicking := map[string]infergate.Option{
		"middleware": infergate.WithMiddleware(func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			panic(boom{})
		}),
		"middleware, after the answer": infergate.WithMiddleware(func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			_, _ = next(req)
			panic(boom{})
		}),
		"observer": infergate.WithObserver(func(context.Context, infergate.Operation) (context.Context, *infergate.OperationHooks) {
			panic(boom{})
		}),
		"attempt hook": infergate.WithObserver(func(ctx context.Context, _ infergate.Operation) (context.Context, *infergate.OperationHooks) {
			return ctx, &infergate.OperationHooks{Attempt: func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
				panic(boom{})
			}}
		}),
		"chunk hook": infergate.WithObserver(func(ctx context.Context, _ infergate.Operation) (context.Context, *infergate.OperationHooks) {
			return ctx, &infergate.OperationHooks{Chunk: func(*infergate.ChatCompletionChunk) { panic(boom{}) }}
		}),
	}
	for bound, bounded := range oneCallBounds {
		for callName, call := range streamingCalls {
			for what, opt := range panicking {
				if what == "chunk hook" && callName != "Chat.Stream" {
					continue // audio has no chunks
				}
				t.Run(bound+"/"+callName+"/"+what, func(t *testing.T) {
					t.Parallel()
					synctest.Test(t, func(t *testing.T) {
						c := testClient(t, "https://gw.test", infergate.WithHTTPClient(placeServer()), bounded())
						got := func() (recovered any) {
							defer func() { recovered = recover() }()
							answer, err := call(t.Context(), c, opt)
							if err == nil {
								answer.Close()
							}
							return nil
						}()
						if got != (boom{}) {
							t.Fatalf("recovered %v, want the panic of the %s", got, what)
						}
						placeIsFree(t, c, "a panic in the "+what)
					})
				})
			}
		}
	}
}

// A streamed answer whose context ended gives its place back then, though it is never closed: the
// handler that returns on its request's cancellation drops its stream.
func TestPlaceComesBackWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	ends := map[string]func(context.Context) (context.Context, func()){
		"cancelled": func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithCancel(ctx)
			return ctx, cancel
		},
		"past its deadline": func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithTimeout(ctx, time.Second)
			return ctx, func() {
				time.Sleep(2 * time.Second)
				cancel()
			}
		},
	}
	for bound, bounded := range oneCallBounds {
		for callName, call := range streamingCalls {
			for how, end := range ends {
				t.Run(bound+"/"+callName+"/"+how, func(t *testing.T) {
					t.Parallel()
					synctest.Test(t, func(t *testing.T) {
						c := testClient(t, "https://gw.test", infergate.WithHTTPClient(placeServer()), bounded())
						ctx, stop := end(t.Context())
						answer, err := call(ctx, c)
						if err != nil {
							t.Fatal(err)
						}
						stop()
						placeIsFree(t, c, "the context of an unclosed answer ended")
						_ = answer // dropped, never closed
					})
				})
			}
		}
	}
}

// A streamed answer holds its place while it is read and gives it back when it is read to the end
// or closed: a second call waits until then.
func TestPlaceHeldUntilTheAnswerEnds(t *testing.T) {
	t.Parallel()
	ends := map[string]func(io.ReadCloser){
		"closed": func(answer io.ReadCloser) { answer.Close() },
		"read to the end": func(answer io.ReadCloser) {
			_, _ = io.Copy(io.Discard, answer)
		},
	}
	for bound, bounded := range oneCallBounds {
		for how, end := range ends {
			t.Run(bound+"/"+how, func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					release := make(chan struct{})
					c := testClient(t, "https://gw.test", bounded(), infergate.WithHTTPClient(infergate.InProcessClient(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if strings.HasSuffix(r.URL.Path, "/audio/speech") {
							w.Header().Set("Content-Type", "audio/mpeg")
							_, _ = io.WriteString(w, "ID3 the audio's first bytes")
							w.(http.Flusher).Flush()
							<-release
							_, _ = io.WriteString(w, " and its last")
							return
						}
						w.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(w, `{"object":"list","data":[]}`)
					}))))
					answer, err := c.Audio.Speak(t.Context(), infergate.SpeechRequest{Input: "hello", Model: "tts-1"})
					if err != nil {
						t.Fatal(err)
					}
					listed := make(chan error, 1)
					go func() {
						_, err := c.Models.List(t.Context())
						listed <- err
					}()
					synctest.Wait()
					select {
					case err := <-listed:
						t.Fatalf("a second call ran while the audio was being read: %v", err)
					default:
					}
					close(release)
					end(answer)
					if err := <-listed; err != nil {
						t.Error(err)
					}
					answer.Close()
				})
			})
		}
	}
}
