// Package validator holds no code, only an integration test: it sends every kind of request the SDK
// builds to Steady (@stdy/cli), a mock server that validates requests against the OpenAI OpenAPI
// document, and checks that each one is accepted. .ci/steady.sh installs Steady and runs it.
package validator
