package otelinfergate

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
)

// This file is the only one that names the semantic conventions: the GenAI conventions are still in
// development (a proposal replaces the token histogram with counters, say), so following a new
// version is a change here alone. v1.41.0 is the newest version of go.opentelemetry.io/otel/semconv
// that still carries the GenAI registry and its genaiconv instruments.

const (
	scope     = "github.com/infergate/infergate-go/otelinfergate"
	schemaURL = semconv.SchemaURL

	// provider is gen_ai.provider.name. The conventions list no value for a gateway: the attribute
	// names the telemetry flavour the instrumentation emits, and requests and responses reach the
	// models behind the gateway in the gateway's own OpenAI-compatible shape, so the gateway is the
	// provider as this client knows it. gen_ai.response.model names the model that answered.
	provider = genaiconv.ProviderNameAttr("infergate")

	// requestIDKey carries the gateway's X-Request-Id, the id to quote when reporting a problem; the
	// conventions have no attribute for it.
	requestIDKey = attribute.Key("infergate.request.id")
)

var (
	// The operation names the conventions define for what this SDK does. Transcription and speech
	// have none of their own: generate_content ("multimodal content generation") is the closest, and
	// gen_ai.output.type tells them apart.
	opChat            = genaiconv.OperationNameChat
	opEmbeddings      = genaiconv.OperationNameEmbeddings
	opGenerateContent = genaiconv.OperationNameGenerateContent
	opInvokeAgent     = genaiconv.OperationNameInvokeAgent
	opExecuteTool     = genaiconv.OperationNameExecuteTool

	// The attributes spans carry.
	keyOperationName    = semconv.GenAIOperationNameKey
	keyProviderName     = semconv.GenAIProviderNameKey
	keyRequestModel     = semconv.GenAIRequestModelKey
	keyRequestStream    = semconv.GenAIRequestStreamKey
	keyTemperature      = semconv.GenAIRequestTemperatureKey
	keyTopP             = semconv.GenAIRequestTopPKey
	keyMaxTokens        = semconv.GenAIRequestMaxTokensKey
	keyPresencePenalty  = semconv.GenAIRequestPresencePenaltyKey
	keyFrequencyPenalty = semconv.GenAIRequestFrequencyPenaltyKey
	keyStopSequences    = semconv.GenAIRequestStopSequencesKey
	keyChoiceCount      = semconv.GenAIRequestChoiceCountKey
	keyEncodingFormats  = semconv.GenAIRequestEncodingFormatsKey
	keyDimensions       = semconv.GenAIEmbeddingsDimensionCountKey
	keyConversationID   = semconv.GenAIConversationIDKey
	keyOutputType       = semconv.GenAIOutputTypeKey
	keyResponseID       = semconv.GenAIResponseIDKey
	keyResponseModel    = semconv.GenAIResponseModelKey
	keyFinishReasons    = semconv.GenAIResponseFinishReasonsKey
	keyTimeToFirstChunk = semconv.GenAIResponseTimeToFirstChunkKey
	keyInputTokens      = semconv.GenAIUsageInputTokensKey
	keyOutputTokens     = semconv.GenAIUsageOutputTokensKey
	keyCachedTokens     = semconv.GenAIUsageCacheReadInputTokensKey
	keyReasoningTokens  = semconv.GenAIUsageReasoningOutputTokensKey
	keyInputMessages    = semconv.GenAIInputMessagesKey
	keyOutputMessages   = semconv.GenAIOutputMessagesKey
	keyToolName         = semconv.GenAIToolNameKey
	keyToolCallID       = semconv.GenAIToolCallIDKey
	keyToolType         = semconv.GenAIToolTypeKey
	keyToolArguments    = semconv.GenAIToolCallArgumentsKey
	keyToolResult       = semconv.GenAIToolCallResultKey
	keyServerAddress    = semconv.ServerAddressKey
	keyServerPort       = semconv.ServerPortKey
	keyErrorType        = semconv.ErrorTypeKey
	keyHTTPMethod       = semconv.HTTPRequestMethodKey
	keyHTTPStatus       = semconv.HTTPResponseStatusCodeKey
	keyHTTPResendCount  = semconv.HTTPRequestResendCountKey
	keyURLFull          = semconv.URLFullKey

	outputText   = semconv.GenAIOutputTypeText
	outputSpeech = semconv.GenAIOutputTypeSpeech

	errorTypeOther = semconv.ErrorTypeOther.Value.AsString()
)

// The histograms' bucket boundaries, as the conventions' docs give them (the registry that the
// genaiconv instruments are generated from carries none, so they come as advice here; a view the
// application registers still overrides them). The SDK's default buckets (0, 5, 10, ... in the
// histogram's unit) put every call under 5 s, and every gap between chunks, in one bucket. The
// conventions give no boundaries for the client's chunk timings: those take the ones given for
// the same measures on the server, its time to first token and time per output token.
var (
	durationBuckets   = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	tokenBuckets      = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	firstChunkBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0}
	perChunkBuckets   = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5}
)

// instruments are the GenAI client metrics.
type instruments struct {
	duration    genaiconv.ClientOperationDuration
	tokens      genaiconv.ClientTokenUsage
	firstChunk  genaiconv.ClientOperationTimeToFirstChunk
	perChunk    genaiconv.ClientOperationTimePerOutputChunk
	tokenInput  attribute.KeyValue
	tokenOutput attribute.KeyValue
}

// newInstruments makes the instruments; one that cannot be made records nothing, and the error is
// returned for otel.Handle.
func newInstruments(m metric.Meter) (*instruments, error) {
	var errs [4]error
	in := &instruments{
		tokenInput:  semconv.GenAITokenTypeKey.String(string(genaiconv.TokenTypeInput)),
		tokenOutput: semconv.GenAITokenTypeKey.String(string(genaiconv.TokenTypeOutput)),
	}
	in.duration, errs[0] = genaiconv.NewClientOperationDuration(m, metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.tokens, errs[1] = genaiconv.NewClientTokenUsage(m, metric.WithExplicitBucketBoundaries(tokenBuckets...))
	in.firstChunk, errs[2] = genaiconv.NewClientOperationTimeToFirstChunk(m, metric.WithExplicitBucketBoundaries(firstChunkBuckets...))
	in.perChunk, errs[3] = genaiconv.NewClientOperationTimePerOutputChunk(m, metric.WithExplicitBucketBoundaries(perChunkBuckets...))
	for _, err := range errs {
		if err != nil {
			return in, err
		}
	}
	return in, nil
}

// metricSet is the attributes every GenAI metric of one operation carries, computed once.
func metricSet(op genaiconv.OperationNameAttr, requestModel, responseModel, address string, port int, errType string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{keyOperationName.String(string(op)), keyProviderName.String(string(provider))}
	if requestModel != "" {
		attrs = append(attrs, keyRequestModel.String(requestModel))
	}
	if responseModel != "" {
		attrs = append(attrs, keyResponseModel.String(responseModel))
	}
	if address != "" {
		attrs = append(attrs, keyServerAddress.String(address))
	}
	if port > 0 {
		attrs = append(attrs, keyServerPort.Int(port))
	}
	if errType != "" {
		attrs = append(attrs, keyErrorType.String(errType))
	}
	return attrs
}

// recordEnd records an operation's duration and its token usage; output is negative for an
// operation that generates no tokens.
func (in *instruments) recordEnd(ctx context.Context, seconds float64, attrs []attribute.KeyValue, input, output int, hasUsage bool) {
	set := attribute.NewSet(attrs...)
	in.duration.RecordSet(ctx, seconds, set)
	if !hasUsage {
		return
	}
	base := attrs
	if n := len(base); n > 0 && base[n-1].Key == keyErrorType {
		base = base[:n-1] // token usage carries no error.type
	}
	in.tokens.RecordSet(ctx, int64(input), attribute.NewSet(append(base[:len(base):len(base)], in.tokenInput)...))
	if output >= 0 {
		in.tokens.RecordSet(ctx, int64(output), attribute.NewSet(append(base[:len(base):len(base)], in.tokenOutput)...))
	}
}
