#!/usr/bin/env bash
# Checks every request the SDK builds against the OpenAI OpenAPI document with Steady (@stdy/cli),
# the validating mock server the official OpenAI SDKs test against. Steady is installed with npm into
# .ci/steady (git-ignored), pinned to 0.22.x, so that CI and developers run the same validator. The
# document is test data in shared/, beside the project, and is never copied into it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

doc="${OPENAPI_DOC:-$root/../shared/openapi/openai-openapi.yaml}"
if [[ ! -f "$doc" ]]; then
	echo "steady: OpenAPI document not found at $doc; the validator test will skip" >&2
fi

prefix="$root/.ci/steady"
bin="$prefix/node_modules/.bin/steady"
if ! command -v npm >/dev/null 2>&1; then
	echo "steady: npm not found; the validator test will skip" >&2
elif [[ ! -x "$bin" ]]; then
	mkdir -p "$prefix"
	npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "@stdy/cli@0.22.x" >&2 ||
		echo "steady: npm install of @stdy/cli failed; the validator test will skip" >&2
fi

if [[ -x "$bin" ]]; then
	export STEADY_BIN="$bin"
fi
export OPENAPI_DOC="$doc"
go test ./internal/validator/ -run Steady -count=1 -v
