#!/usr/bin/env bash
# Checks every request the SDK builds against the OpenAI OpenAPI document with Steady (@stdy/cli),
# the validating mock server the official OpenAI SDKs test against. The tests live in the crosscheck
# module. Steady is installed with npm into .ci/steady (git-ignored), pinned to 0.22.x, so that CI
# and developers run the same validator. The document is test data in shared/, beside the project,
# and is never copied into it. Once Steady is installed, the tests must run and pass; only a missing
# document or an npm registry that cannot be reached skips the check, loudly.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

doc="${OPENAPI_DOC:-$root/../shared/openapi/openai-openapi.yaml}"
if [[ ! -f "$doc" ]]; then
	echo "steady: SKIPPED: OpenAPI document not found at $doc (set OPENAPI_DOC)" >&2
	exit 0
fi

prefix="$root/.ci/steady"
bin="$prefix/node_modules/.bin/steady"
if [[ ! -x "$bin" ]]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "steady: Steady needs Node.js and npm, which are not installed" >&2
		exit 1
	fi
	mkdir -p "$prefix"
	if ! npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "@stdy/cli@0.22.x" >&2; then
		echo "steady: SKIPPED: npm could not install @stdy/cli (registry unreachable?)" >&2
		exit 0
	fi
fi

export STEADY_BIN="$bin" OPENAPI_DOC="$doc" STEADY_REQUIRED=1
cd crosscheck
go test -run Steady -count=1 -v .
