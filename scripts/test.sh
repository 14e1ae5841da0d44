#!/usr/bin/env bash
# The project's test command (see README): installs what the tests need, then runs every
# test layer — formatting and lints, unit, integration, doc tests, and the tests against
# real third-party peers. The benchmark is compiled and linted, not run (bench/README.md);
# fuzzing is separate (fuzz/README.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "test.sh: '$1' is missing. $2" >&2; exit 1; }
}
need cargo "Install Rust with rustup: https://rustup.rs"
need node "Install Node.js 20 or newer (Debian: apt-get install nodejs npm)."
need python3 "Install Python 3.10 or newer (Debian: apt-get install python3 python3-venv)."

scripts/install-system-deps.sh
scripts/install-peers.sh
# shellcheck source=peers/env.sh
source scripts/peers/env.sh
# The third-party data the tests read live outside the repository, never inside it: the MCP
# schemas and examples ($MCP_SPEC_DIR), the TOON spec's fixtures ($TOON_SPEC_DIR) and the tool
# catalogs ($MCP_CATALOG_DIR). Each is the variable if set, else ../shared/spec, ../shared/spec/toon
# or ../shared/catalogs beside the repository (as in CI), else a pinned copy that
# scripts/fetch-spec.sh fetches into ~/.cache/mcp-toolkit (one call fetches whatever is missing
# there; a no-op once it is all there).
catalog=github-mcp-server.tools.json
fetch=false
if [ -z "${MCP_SPEC_DIR:-}" ]; then
  if [ -d ../shared/spec/mcp ]; then
    MCP_SPEC_DIR=$(cd ../shared/spec && pwd)
  else
    fetch=true
  fi
fi
if [ -z "${TOON_SPEC_DIR:-}" ]; then
  if [ -d ../shared/spec/toon/tests/fixtures ]; then
    TOON_SPEC_DIR=$(cd ../shared/spec/toon && pwd)
  else
    fetch=true
  fi
fi
if [ -z "${MCP_CATALOG_DIR:-}" ]; then
  if [ -f "../shared/catalogs/$catalog" ]; then
    MCP_CATALOG_DIR=$(cd ../shared/catalogs && pwd)
  else
    fetch=true
  fi
fi
if [ "$fetch" = true ]; then
  if ! spec=$(scripts/fetch-spec.sh); then
    echo "test.sh: the MCP spec, the TOON spec fixtures or the tool catalog is missing and could" \
      "not be fetched. Run scripts/fetch-spec.sh (it needs git, python3 and access to github.com)," \
      "or set MCP_SPEC_DIR to a folder holding mcp/<version>/schema.json, TOON_SPEC_DIR to one" \
      "holding tests/fixtures/ and MCP_CATALOG_DIR to one holding $catalog, then run" \
      "scripts/test.sh again." >&2
    exit 1
  fi
  MCP_SPEC_DIR=${MCP_SPEC_DIR:-$spec}
  TOON_SPEC_DIR=${TOON_SPEC_DIR:-$spec/toon}
  MCP_CATALOG_DIR=${MCP_CATALOG_DIR:-$(dirname "$spec")/catalogs}
fi
export MCP_SPEC_DIR TOON_SPEC_DIR MCP_CATALOG_DIR

echo "== cargo fmt --check" >&2
cargo fmt --all -- --check
echo "== cargo clippy" >&2
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
echo "== cargo clippy (bench/, its own workspace: kept compiling, never run here)" >&2
cargo fmt --manifest-path bench/Cargo.toml -- --check
cargo clippy --manifest-path bench/Cargo.toml --all-targets --locked --target-dir target/bench -- -D warnings
echo "== cargo test" >&2
cargo test --workspace --all-features --locked
echo "test.sh: all tests passed" >&2
