module github.com/infergate/infergate-go/tokens

go 1.26.0 // the one minimum Go of every module here

require (
	github.com/infergate/infergate-go v0.2.0
	github.com/tiktoken-go/tokenizer v0.7.0 // the version the gateway's nodes count with
)

require (
	github.com/dlclark/regexp2 v1.11.5 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
)

replace github.com/infergate/infergate-go => ..
