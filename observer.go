package infergate

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Observer is told about every operation a client runs: each call of a route, a tool loop, and each
// tool call in it. It is how tracing and metrics see whole operations, where Middleware sees single
// HTTP attempts: a stream's operation lasts until the stream ends, and its end carries the usage,
// finish reasons and response id. otelinfergate builds OpenTelemetry spans and metrics on it; a
// program can feed any other system (Prometheus, logs) the same way:
//
//	count := func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
//		start := time.Now()
//		return ctx, &infergate.OperationHooks{End: func(end infergate.OperationEnd) {
//			metrics.Observe(op.Name, op.Model, time.Since(start), end.Usage, end.Err)
//		}}
//	}
//	client, err := infergate.NewClient(infergate.WithObserver(count))
//
// The observer is called when the operation starts, before anything is sent; the context it returns
// is the one the operation runs in (a span started here is the parent of what the operation does,
// and of nested operations: the model turns and tool calls of a loop). It returns the hooks it wants
// for this operation, or nil for none; a nil context keeps the one it was given.
//
// Observers and hooks must be safe for concurrent use and must not block: a client's operations run
// at once, the tool calls of one loop run in parallel, and a stream whose context ends is ended from
// the goroutine that saw it end. The hooks of one operation never run at the same time as each other.
type Observer func(ctx context.Context, op Operation) (context.Context, *OperationHooks)

// WithObserver adds observers of every operation. Passed to a method, they observe that call in
// addition to the client's.
func WithObserver(observers ...Observer) Option {
	return func(c *config) {
		for _, o := range observers {
			if o != nil {
				c.observers = append(c.observers, o)
			}
		}
	}
}

// OperationName says what an operation does: one of the Operation constants, or for the other
// routes the service and method, e.g. "models.list" or "billing.balance".
type OperationName string

// The names of the operations that Operation.Name takes besides the routes' own.
const (
	OperationChat          OperationName = "chat"          // Chat.Create and Chat.Stream
	OperationEmbeddings    OperationName = "embeddings"    // Embeddings.Create
	OperationTranscription OperationName = "transcription" // Audio.Transcribe
	OperationSpeech        OperationName = "speech"        // Audio.Speak and its variants
	OperationInvokeAgent   OperationName = "invoke_agent"  // a tool loop: Chat.RunTools
	OperationExecuteTool   OperationName = "execute_tool"  // one tool call in a loop
)

// Operation describes an operation as it starts.
type Operation struct {
	// Name says what the operation does: one of the Operation constants, or for the other routes
	// the service and method, e.g. "models.list" or "billing.balance".
	Name OperationName
	// Method and Path are the HTTP route below the API root, e.g. POST /chat/completions; empty for
	// operations that are not one route (a tool loop, a tool call).
	Method, Path string
	// ServerAddress and ServerPort are where the requests go.
	ServerAddress string
	ServerPort    int // the base URL's port, or its scheme's (443 for https, 80 otherwise)
	// Model is the model the request names, when it names one.
	Model string
	// Stream reports an answer streamed as events.
	Stream bool
	// Request is the caller's request (*ChatRequest, *EmbeddingRequest, *TranscriptionRequest,
	// *SpeechRequest), nil for routes without one. Observers must not change it.
	Request any
	// Tool is the call an OperationExecuteTool runs.
	Tool *ToolCall
}

// OperationHooks are what an observer wants to hear of one operation. Any of them may be nil.
type OperationHooks struct {
	// Attempt wraps each HTTP attempt of the operation, retries included, as Middleware does: it
	// must call next once and return what it returns (it may add headers, such as trace context).
	Attempt Middleware
	// Chunk is called with each chunk of a streamed chat answer, the first one included, as it is
	// handed out. The chunk is only valid during the call.
	Chunk func(chunk *ChatCompletionChunk)
	// End is called once when the operation ends: a stream's when it is read to its end, fails, is
	// closed or its context ends.
	End func(end OperationEnd)
}

// OperationEnd is how an operation ended.
type OperationEnd struct {
	// Err is the operation's error; nil when it succeeded. A stream closed before its end ends
	// with context.Canceled.
	Err error
	// Result is the answer: *ChatCompletion (a stream's as accumulated), *EmbeddingResponse,
	// *Transcription, *ToolRunResult (a tool loop), *ToolResult (a tool call), or the route's answer
	// type; nil when there is none.
	Result any
	// Attempts is how many HTTP attempts were made, retries included; 0 for operations that are
	// not one route.
	Attempts int
	// StatusCode and RequestID are from the last response, when there was one.
	StatusCode int
	RequestID  string // the X-Request-Id of the last response; empty when none came
	// ResponseID, ResponseModel, FinishReasons and Usage are from a chat or embeddings answer, each
	// when the server sent it: a choice cut short has no finish reason, and an embeddings answer
	// without token counts has no Usage.
	ResponseID    string
	ResponseModel string         // the model that answered, as the response names it
	FinishReasons []FinishReason // one per choice that ended with a reason, in choice order
	Usage         *Usage         // nil when the answer had no token counts
	// Chunks is how many chunks a stream handed out; FirstChunk is when the first one came (zero
	// when none did).
	Chunks     int
	FirstChunk time.Time // zero when no chunk came
}

// observation follows one operation for its observers. A nil *observation, the usual case, observes
// nothing at no cost. A stream's context can end it from another goroutine while the stream reads,
// hence the lock, which a chunk takes only when a hook wants to see it: counting chunks and timing
// the first are atomic, so that observing a stream costs next to nothing per chunk.
type observation struct {
	hooks      []*OperationHooks
	chunkHooks bool
	start      time.Time
	chunks     atomic.Int64
	firstChunk atomic.Int64 // time from start to the first chunk, plus one; zero before it

	mu     sync.Mutex
	report OperationEnd
	ended  bool
}

// observed reports whether the call has observers, which then see its request.
func (c *config) observed() bool { return len(c.observers) > 0 }

// observe starts an operation for the configured observers, returning the context it runs in.
func (c *config) observe(ctx context.Context, r *route) (context.Context, *observation) {
	if len(c.observers) == 0 {
		return ctx, nil
	}
	op := Operation{Name: r.op, Method: r.method, Path: r.path, Model: r.model, Stream: r.stream, Request: r.request}
	op.ServerAddress, op.ServerPort = serverOf(c.baseURL.Host, c.baseURL.Scheme)
	return startObservation(ctx, c.observers, op)
}

// startObservation tells each observer of an operation, nesting their contexts in order.
func startObservation(ctx context.Context, observers []Observer, op Operation) (context.Context, *observation) {
	if len(observers) == 0 {
		return ctx, nil
	}
	obs := &observation{start: time.Now()}
	for _, o := range observers {
		next, hooks := o(ctx, op)
		if next != nil {
			ctx = next
		}
		if hooks != nil {
			obs.hooks = append(obs.hooks, hooks)
			obs.chunkHooks = obs.chunkHooks || hooks.Chunk != nil
		}
	}
	if len(obs.hooks) == 0 {
		return ctx, nil
	}
	return ctx, obs
}

// observeLoop starts a tool loop's operation; its model turns and tool calls run inside it.
func (c *config) observeLoop(ctx context.Context, req *ChatRequest) (context.Context, *observation) {
	if !c.observed() {
		return ctx, nil
	}
	op := Operation{Name: OperationInvokeAgent, Model: req.Model, Request: req}
	op.ServerAddress, op.ServerPort = serverOf(c.baseURL.Host, c.baseURL.Scheme)
	return startObservation(ctx, c.observers, op)
}

func serverOf(host, scheme string) (string, int) {
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		if scheme == "https" {
			return host, 443
		}
		return host, 80
	}
	n, _ := strconv.Atoi(port)
	return name, n
}

func (o *observation) attemptHooks() []Middleware {
	if o == nil {
		return nil
	}
	var mw []Middleware
	for _, h := range o.hooks {
		if h.Attempt != nil {
			mw = append(mw, h.Attempt)
		}
	}
	return mw
}

func (o *observation) attempts(n int) {
	if o != nil {
		o.mu.Lock()
		o.report.Attempts = n
		o.mu.Unlock()
	}
}

func (o *observation) response(resp *http.Response) {
	if o != nil {
		o.mu.Lock()
		o.report.StatusCode = resp.StatusCode
		o.report.RequestID = resp.Header.Get("X-Request-Id")
		o.mu.Unlock()
	}
}

// chunk reports a chunk handed out; none is reported after the end.
func (o *observation) chunk(c *ChatCompletionChunk) {
	if o == nil {
		return
	}
	if o.chunks.Add(1) == 1 {
		o.firstChunk.Store(int64(time.Since(o.start)) + 1)
		// A stream whose context ends is ended without its answer, which only its reader may touch:
		// its id and model are kept from here.
		o.mu.Lock()
		o.report.ResponseID, o.report.ResponseModel = c.ID, c.Model
		o.mu.Unlock()
	}
	if !o.chunkHooks {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return
	}
	for _, h := range o.hooks {
		if h.Chunk != nil {
			h.Chunk(c)
		}
	}
}

// end reports the operation's end once; later calls do nothing.
func (o *observation) end(result any, err error) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return
	}
	o.ended = true
	e := o.report
	e.Err, e.Result, e.Chunks = err, result, int(o.chunks.Load())
	if d := o.firstChunk.Load(); d > 0 {
		e.FirstChunk = o.start.Add(time.Duration(d - 1))
	}
	var apiErr *APIError
	if e.StatusCode == 0 && errors.As(err, &apiErr) {
		e.StatusCode, e.RequestID = apiErr.StatusCode, apiErr.RequestID
	}
	switch r := result.(type) {
	case *ChatCompletion:
		if r != nil {
			e.ResponseID, e.ResponseModel, e.Usage = r.ID, r.Model, r.Usage
			e.FinishReasons = finishReasons(r.Choices)
		}
	case *ToolRunResult:
		if r != nil {
			e.Usage = &r.Usage
			if a := r.Answer; a != nil {
				e.ResponseID, e.ResponseModel = a.ID, a.Model
				e.FinishReasons = finishReasons(a.Choices)
			}
		}
	case *EmbeddingResponse:
		if r != nil {
			e.ResponseModel = r.Model
			if u := r.Usage; u.PromptTokens != 0 || u.TotalTokens != 0 {
				e.Usage = &u
			}
		}
	}
	for _, h := range o.hooks {
		if h.End != nil {
			h.End(e)
		}
	}
}

// finishReasons are the reasons the choices gave; a choice cut short before it gave one has none.
func finishReasons(choices []Choice) []FinishReason {
	var reasons []FinishReason
	for _, ch := range choices {
		if ch.FinishReason != "" {
			reasons = append(reasons, ch.FinishReason)
		}
	}
	return reasons
}
