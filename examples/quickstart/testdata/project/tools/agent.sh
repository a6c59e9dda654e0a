#!/bin/sh
# A scripted agent: for each task and attempt it copies a prepared change
# into the working tree, as a real agent would edit files. Deterministic, so
# the demo shows the same story every time.
set -eu
fixtures="$HARNISH_WORKDIR/_fixtures/$HARNISH_TASK_ID"
src="$fixtures/$HARNISH_ATTEMPT"
[ -d "$src" ] || src="$fixtures/$(ls "$fixtures" | sort -n | tail -n 1)"
cp -R "$src/." "$HARNISH_WORKDIR/"
files=$(cd "$src" && find . -type f | sed 's|^\./||' | sort | sed 's/.*/"&"/' | paste -sd, -)
printf '{"summary": "%s, attempt %s: wrote %s", "files_changed": [%s], "usage": {"input_tokens": 1200, "output_tokens": 300, "cost_usd": 0.01}}\n' \
	"$HARNISH_TASK_ID" "$HARNISH_ATTEMPT" "$(echo "$files" | tr -d '"')" "$files" > "$HARNISH_RESULT_FILE"
