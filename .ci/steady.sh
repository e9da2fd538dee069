#!/usr/bin/env bash
# Checks every request the SDK builds against the OpenAI OpenAPI document with Steady (@stdy/cli),
# the validating mock server the official OpenAI SDKs test against. The tests live in the crosscheck
# module. Steady is installed with npm into .ci/steady (git-ignored), pinned to 0.22.x, so that CI
# and developers run the same validator. The document is test data in shared/, beside the project,
# and is never copied into it. Unlike a plain `go test` in crosscheck, which skips the Steady tests
# when Steady is missing, this script fails when it cannot install or run them.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

doc="${OPENAPI_DOC:-$root/../shared/openapi/openai-openapi.yaml}"
if [[ ! -f "$doc" ]]; then
	echo "steady: OpenAPI document not found at $doc (set OPENAPI_DOC)" >&2
	exit 1
fi

prefix="$root/.ci/steady"
bin="$prefix/node_modules/.bin/steady"
if [[ ! -x "$bin" ]]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "steady: Steady needs Node.js and npm, which are not installed" >&2
		exit 1
	fi
	mkdir -p "$prefix"
	npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "@stdy/cli@0.22.x" >&2
fi

export STEADY_BIN="$bin" OPENAPI_DOC="$doc" STEADY_REQUIRED=1
cd crosscheck
go test -run Steady -count=1 -v .
