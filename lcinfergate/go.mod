module github.com/infergate/infergate-go/lcinfergate

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/infergate/infergate-go v0.2.0
	github.com/tmc/langchaingo v0.1.14
)

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/pkoukk/tiktoken-go v0.1.6 // indirect
)

replace github.com/infergate/infergate-go => ../
