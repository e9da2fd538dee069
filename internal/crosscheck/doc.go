// Package crosscheck points the official OpenAI Go client at gatewaytest's fake gateway, to check
// that the fake speaks the wire format as a client nobody here wrote understands it. It is its own
// module so that the SDK's module does not depend on openai-go.
package crosscheck
