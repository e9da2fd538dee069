package otelinfergate

import (
	"net/http"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// attempt makes each HTTP attempt a CLIENT child span of the operation, named after the method as
// the HTTP conventions name client spans, and carrying no gen_ai.operation.name; a retry says how
// many attempts came before it. The attempt's context goes out in the request headers, so that the
// gateway's spans join the trace under it. A stream's attempt ends with the response headers: the
// operation's span covers the rest.
func (o *operation) attempt(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	o.attempts++
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, keyHTTPMethod.String(req.Method), keyURLFull.String(safeURL(req.URL)))
	if o.op.ServerAddress != "" {
		attrs = append(attrs, keyServerAddress.String(o.op.ServerAddress))
	}
	if o.op.ServerPort > 0 {
		attrs = append(attrs, keyServerPort.Int(o.op.ServerPort))
	}
	if o.attempts > 1 {
		attrs = append(attrs, keyHTTPResendCount.Int(o.attempts-1))
	}
	ctx, span := o.t.tracer.Start(req.Context(), req.Method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	o.t.propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := next(req.WithContext(ctx))
	switch {
	case err != nil:
		span.SetAttributes(keyErrorType.String(errorType(err)))
		span.SetStatus(codes.Error, err.Error())
	case resp != nil:
		span.SetAttributes(keyHTTPStatus.Int(resp.StatusCode))
		if id := resp.Header.Get("X-Request-Id"); id != "" {
			span.SetAttributes(requestIDKey.String(id))
		}
		if resp.StatusCode >= 400 {
			span.SetAttributes(keyErrorType.String(strconv.Itoa(resp.StatusCode)))
			span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
		}
	}
	return resp, err
}

// safeURL is the URL without user info or query, the places where a URL can carry a secret.
func safeURL(u *url.URL) string {
	clean := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return clean.String()
}
