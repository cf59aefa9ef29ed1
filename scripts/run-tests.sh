#!/bin/sh
# `npm test` after its build: `biome ci .` (format and lint, changing nothing) beside vitest, not
# beside the build — tsc and the bundle step use both cores, while vitest's first seconds (its
# config, the first transforms) leave one idle (issue 63, docs/development.md "How long npm test
# takes"). Arguments go to vitest. Fails when either fails; biome's findings print as they come.
biome ci . &
checks=$!
vitest run "$@"
tests=$?
wait "$checks" || exit 1
exit "$tests"
