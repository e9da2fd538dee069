package einoinfergate_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/einoinfergate"
	"github.com/infergate/infergate-go/gatewaytest"
)

// recorder is a callbacks handler, built with eino's HandlerBuilder, that notes what it is told.
type recorder struct {
	mu     sync.Mutex
	events []string
	info   []callbacks.RunInfo
	input  *model.CallbackInput
	usage  *model.TokenUsage
	output *schema.Message
	err    error
	done   chan struct{} // closed once a stream output was read to its end
}

func (r *recorder) handler() callbacks.Handler {
	r.done = make(chan struct{})
	note := func(ctx context.Context, info *callbacks.RunInfo, event string) context.Context {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.events = append(r.events, event)
		r.info = append(r.info, *info)
		return ctx
	}
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, in callbacks.CallbackInput) context.Context {
			r.input = model.ConvCallbackInput(in)
			return note(ctx, info, "start")
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			o := model.ConvCallbackOutput(out)
			r.usage, r.output = o.TokenUsage, o.Message
			return note(ctx, info, "end")
		}).
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, err error) context.Context {
			r.err = err
			return note(ctx, info, "error")
		}).
		OnEndWithStreamOutputFn(func(ctx context.Context, info *callbacks.RunInfo, sr *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
			go func() {
				defer close(r.done)
				defer sr.Close()
				var msgs []*schema.Message
				for {
					out, err := sr.Recv()
					if err != nil {
						if !errors.Is(err, io.EOF) {
							r.err = err
						}
						break
					}
					o := model.ConvCallbackOutput(out)
					msgs = append(msgs, o.Message)
					if o.TokenUsage != nil {
						r.usage = o.TokenUsage
					}
				}
				r.output, _ = schema.ConcatMessages(msgs)
			}()
			return note(ctx, info, "end-stream")
		}).Build()
}

var detailedUsage = &model.TokenUsage{PromptTokens: 100, CompletionTokens: 40, TotalTokens: 140,
	PromptTokenDetails:      model.PromptTokenDetails{CachedTokens: 64},
	CompletionTokensDetails: model.CompletionTokensDetails{ReasoningTokens: 30}}

func TestCallbacksGenerate(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	bound, err := m.WithTools([]*schema.ToolInfo{weatherTool})
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	// No run info: the model names itself, as a graph's node would be named.
	ctx := callbacks.InitCallbacks(context.Background(), nil, r.handler())
	srv.FailNext(1, rawToolAnswer)
	msg, err := bound.Generate(ctx, question("q"), model.WithTemperature(0.5), model.WithMaxTokens(10))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"start", "end"}, r.events); d != "" {
		t.Fatalf("callbacks fired (-want +got):\n%s", d)
	}
	if r.info[0].Type != "Infergate" || r.info[0].Component != components.ComponentOfChatModel {
		t.Fatalf("run info %+v", r.info[0])
	}
	wantCfg := &model.Config{Model: gatewaytest.DefaultModel, MaxTokens: 10, Temperature: 0.5}
	if d := cmp.Diff(wantCfg, r.input.Config); d != "" || len(r.input.Tools) != 1 || len(r.input.Messages) != 1 {
		t.Fatalf("callback input %+v, config (-want +got):\n%s", r.input, d)
	}
	if d := cmp.Diff(detailedUsage, r.usage); d != "" {
		t.Fatalf("usage (-want +got):\n%s", d)
	}
	if r.output != msg {
		t.Fatal("OnEnd was not given the message Generate returned")
	}
}

func TestCallbacksStream(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t)
	var r recorder
	ctx := callbacks.InitCallbacks(context.Background(), &callbacks.RunInfo{Name: "test"}, r.handler())
	srv.FailNext(1, rawToolStream)
	sr, err := m.Stream(ctx, question("q"))
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := drain(sr)
	if err != nil {
		t.Fatal(err)
	}
	<-r.done
	if d := cmp.Diff([]string{"start", "end-stream"}, r.events); d != "" {
		t.Fatalf("callbacks fired (-want +got):\n%s", d)
	}
	if d := cmp.Diff(detailedUsage, r.usage); d != "" {
		t.Fatalf("usage (-want +got):\n%s", d)
	}
	got, err := schema.ConcatMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(got, r.output); d != "" {
		t.Fatalf("the callbacks' stream differs from the reader's (-reader +callbacks):\n%s", d)
	}
}

func TestCallbacksError(t *testing.T) {
	t.Parallel()
	m, srv := newModel(t, einoinfergate.WithoutRetries())
	for _, streaming := range []bool{false, true} {
		var r recorder
		ctx := callbacks.InitCallbacks(context.Background(), &callbacks.RunInfo{}, r.handler())
		srv.FailNext(1, gatewaytest.DetailErrorReply(http.StatusTooManyRequests, "slow down"))
		var err error
		if streaming {
			_, err = m.Stream(ctx, question("q"))
		} else {
			_, err = m.Generate(ctx, question("q"))
		}
		if !errors.Is(err, infergate.ErrRateLimited) {
			t.Fatalf("stream %v: error %v, want the 429", streaming, err)
		}
		if d := cmp.Diff([]string{"start", "error"}, r.events); d != "" || r.err != err {
			t.Fatalf("stream %v: callbacks fired with %v (-want +got):\n%s", streaming, r.err, d)
		}
	}
}
