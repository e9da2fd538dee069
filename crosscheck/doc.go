// Package crosscheck checks the SDK and its fake gateway against tools nobody here wrote. It holds
// no code, only tests of two kinds:
//
//   - the official OpenAI Go client is pointed at gatewaytest's fake gateway, to check that the fake
//     speaks the wire format as an independent client understands it;
//   - every kind of request the SDK builds is sent to Steady (@stdy/cli), a mock server that
//     validates requests against the OpenAI OpenAPI document (tests named Steady; .ci/steady.sh
//     installs Steady and runs them, and they skip when Steady or the document is missing).
//
// It is its own module so that the SDK's module does not depend on openai-go.
package crosscheck
