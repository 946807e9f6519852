#!/bin/sh
# Run a browser test with node; without node, skip (77) unless RESCUE_REQUIRE_FIXTURES
# is set (CI), where it fails. The test itself checks for chromium and playwright-core.
if ! command -v node >/dev/null 2>&1; then
  if [ -n "$RESCUE_REQUIRE_FIXTURES" ]; then
    echo "browser tests cannot run: node is missing" >&2
    exit 1
  fi
  echo "SKIPPED: node is missing"
  exit 77
fi
exec node "$@"
