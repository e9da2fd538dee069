module github.com/infergate/infergate-go/benchmarks

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/google/jsonschema-go v0.4.3
	github.com/infergate/infergate-go v0.2.0
	github.com/openai/openai-go/v3 v3.96.0
	github.com/sashabaranov/go-openai v1.43.0
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
)

replace github.com/infergate/infergate-go => ..
