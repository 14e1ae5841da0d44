#!/usr/bin/env bash
# Fetches the third-party data files that the tests read, pinned, into a cache folder outside
# the repository (nothing is written into the repository):
#   the MCP specification, from github.com/modelcontextprotocol/modelcontextprotocol:
#     schema/<version>/schema.json   → ~/.cache/mcp-toolkit/spec/mcp/<version>/schema.json
#         for 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28
#     schema/2026-07-28/examples/    → ~/.cache/mcp-toolkit/spec/mcp/2026-07-28/examples/
#   the TOON spec's conformance fixtures (release v4.0.0), from github.com/toon-format/spec:
#     tests/                         → ~/.cache/mcp-toolkit/spec/toon/tests/
#   the GitHub MCP server's tool catalog, from github.com/github/github-mcp-server:
#     pkg/github/__toolsnaps__/*.snap → ~/.cache/mcp-toolkit/catalogs/github-mcp-server.tools.json
#         {"source": "<repo>@<commit> <folder> (<license>)", "tools": [<every snapshot>]}, the
#         tools sorted by name, indented by one space, no trailing newline (built with python3).
# Each comes from the commit pinned below: a shallow fetch of that one commit, with only those
# files checked out.
# scripts/test.sh runs it when MCP_SPEC_DIR, TOON_SPEC_DIR or MCP_CATALOG_DIR is unset and the
# matching ../shared/spec/mcp, ../shared/spec/toon or ../shared/catalogs beside the repository
# (CI has them) is missing; after it, a plain `cargo test` finds the cache too.
# Needs: git, python3 (for the catalog), and network access to github.com.
# Idempotent: a stamp per data set records its commit and files; when it matches, that data set
# is not fetched again.
# Prints the MCP spec directory (~/.cache/mcp-toolkit/spec) on stdout; messages go to stderr.
# Usage: scripts/fetch-spec.sh
#   MCP_SPEC_REPO=<url or path>, TOON_SPEC_REPO=<url or path> and
#   GITHUB_MCP_SERVER_REPO=<url or path> fetch from another copy of the matching repository
#   (a mirror) that has the pinned commit.
set -euo pipefail

cache=$HOME/.cache/mcp-toolkit

mcp_repo=${MCP_SPEC_REPO:-https://github.com/modelcontextprotocol/modelcontextprotocol.git}
mcp_commit=b0f60ba5409db7a6582440a7b473cc0398890f15
versions=(2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28)
examples_version=2026-07-28
# The MCP spec directory: holds mcp/ (and toon/); its .stamp is the MCP part's.
dest=$cache/spec

# Tag v4.0.0 (its tests/ is the same tree as at 06fe4295fff221ec51cdcc1a793452f57583f07d).
toon_repo=${TOON_SPEC_REPO:-https://github.com/toon-format/spec.git}
toon_commit=c31beab79abf62f2bac16449ff1ce901d0b42ccd
toon_dest=$dest/toon

github_repo=${GITHUB_MCP_SERVER_REPO:-https://github.com/github/github-mcp-server.git}
github_commit=64a49f34d076b6f5917dae1424521d43c7bcae84
github_snaps=pkg/github/__toolsnaps__
github_license='MIT License, Copyright (c) 2025 GitHub'
catalog=$cache/catalogs/github-mcp-server.tools.json
catalog_stamp=$cache/catalogs/.github-mcp-server.tools.json.stamp

# What the current data set's override looks like, for fail().
hint="set MCP_SPEC_DIR to a folder holding mcp/<version>/schema.json and mcp/$examples_version/examples/"

fail() {
  echo "fetch-spec: $1" >&2
  echo "fetch-spec: fix that and run scripts/fetch-spec.sh again, or $hint." >&2
  exit 1
}

# What each cache must hold; each stamp is this text.
mcp_want="commit $mcp_commit
versions ${versions[*]}
examples $examples_version"
toon_want="commit $toon_commit
tests"
catalog_want="commit $github_commit
snapshots $github_snaps
license $github_license"

mcp_ready() {
  local version
  [ "$(cat "$dest/.stamp" 2>/dev/null)" = "$mcp_want" ] || return 1
  for version in "${versions[@]}"; do
    [ -f "$dest/mcp/$version/schema.json" ] || return 1
  done
  [ -d "$dest/mcp/$examples_version/examples" ]
}

toon_ready() {
  [ "$(cat "$toon_dest/.stamp" 2>/dev/null)" = "$toon_want" ] &&
    [ -d "$toon_dest/tests/fixtures/encode" ] && [ -d "$toon_dest/tests/fixtures/decode" ]
}

catalog_ready() {
  [ "$(cat "$catalog_stamp" 2>/dev/null)" = "$catalog_want" ] && [ -f "$catalog" ]
}

# checkout <url> <commit> <folder> <sparse pattern>...: a shallow fetch of that one commit
# (trees only) into a new repository in <folder>, then a checkout that fetches the blobs of the
# paths matching the patterns alone.
checkout() {
  local url=$1 commit=$2 repo=$3
  shift 3
  echo "fetch-spec: fetching commit $commit of $url" >&2
  git -c init.defaultBranch=main init -q "$repo"
  git -C "$repo" remote add origin "$url"
  git -C "$repo" config core.sparseCheckout true
  printf '%s\n' "$@" >"$repo/.git/info/sparse-checkout"
  GIT_TERMINAL_PROMPT=0 git -C "$repo" fetch -q --depth 1 --filter=blob:none --no-tags \
    origin "$commit" ||
    fail "could not fetch commit $commit from $url (git says why above)."
  GIT_TERMINAL_PROMPT=0 git -C "$repo" -c advice.detachedHead=false checkout -q "$commit" ||
    fail "could not check out the needed files of commit $commit from $url."
}

# replace <built> <destination>: moves a freshly built file or folder into place; the old one,
# if any, goes into $tmp (removed on exit).
replace() {
  mkdir -p "$(dirname "$2")"
  if [ -e "$2" ]; then
    mv "$2" "$(mktemp -d "$tmp/old.XXXXXX")/"
  fi
  mv "$1" "$2"
}

fetch_mcp() {
  hint="set MCP_SPEC_DIR to a folder holding mcp/<version>/schema.json and mcp/$examples_version/examples/"
  local repo=$tmp/mcp-repo out=$tmp/mcp version patterns=()
  for version in "${versions[@]}"; do
    patterns+=("/schema/$version/schema.json")
  done
  checkout "$mcp_repo" "$mcp_commit" "$repo" "${patterns[@]}" "/schema/$examples_version/examples/"
  for version in "${versions[@]}"; do
    [ -f "$repo/schema/$version/schema.json" ] ||
      fail "commit $mcp_commit has no schema/$version/schema.json."
    mkdir -p "$out/$version"
    cp "$repo/schema/$version/schema.json" "$out/$version/schema.json"
  done
  [ -d "$repo/schema/$examples_version/examples" ] ||
    fail "commit $mcp_commit has no schema/$examples_version/examples/."
  cp -R "$repo/schema/$examples_version/examples" "$out/$examples_version/examples"
  rm -f "$dest/.stamp"
  replace "$out" "$dest/mcp"
  printf '%s\n' "$mcp_want" >"$dest/.stamp"
}

fetch_toon() {
  hint="set TOON_SPEC_DIR to a folder holding tests/fixtures/{encode,decode}/"
  local repo=$tmp/toon-repo out=$tmp/toon
  checkout "$toon_repo" "$toon_commit" "$repo" /tests/
  if [ ! -d "$repo/tests/fixtures/encode" ] || [ ! -d "$repo/tests/fixtures/decode" ]; then
    fail "commit $toon_commit has no tests/fixtures/encode/ and tests/fixtures/decode/."
  fi
  mkdir -p "$out"
  cp -R "$repo/tests" "$out/tests"
  printf '%s\n' "$toon_want" >"$out/.stamp"
  replace "$out" "$toon_dest"
}

fetch_catalog() {
  hint="set MCP_CATALOG_DIR to a folder holding $(basename "$catalog")"
  command -v python3 >/dev/null 2>&1 ||
    fail "'python3' is missing; it builds the tool catalog (Debian: apt-get install python3)."
  local repo=$tmp/github-repo out=$tmp/catalog.json
  checkout "$github_repo" "$github_commit" "$repo" "/$github_snaps/"
  [ -d "$repo/$github_snaps" ] || fail "commit $github_commit has no $github_snaps/."
  # Every snapshot (one tool's MCP definition each, keys as the server wrote them), sorted by
  # tool name; json.dumps with indent=1 and the text kept as UTF-8 (ensure_ascii=False).
  python3 - "$repo/$github_snaps" \
    "github/github-mcp-server@$github_commit $github_snaps ($github_license)" >"$out" <<'EOF' ||
import json, pathlib, sys

folder, source = pathlib.Path(sys.argv[1]), sys.argv[2]
tools = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.snap"))]
if not tools:
    sys.exit(f"no *.snap files in {folder}")
tools.sort(key=lambda tool: tool["name"])
names = [tool["name"] for tool in tools]
if len(set(names)) != len(names):
    sys.exit(f"two snapshots in {folder} name the same tool")
catalog = {"source": source, "tools": tools}
sys.stdout.buffer.write(json.dumps(catalog, indent=1, ensure_ascii=False).encode("utf-8"))
EOF
    fail "could not build the tool catalog from $github_snaps/ (python3 says why above)."
  rm -f "$catalog_stamp"
  replace "$out" "$catalog"
  printf '%s\n' "$catalog_want" >"$catalog_stamp"
}

if ! mcp_ready || ! toon_ready || ! catalog_ready; then
  command -v git >/dev/null 2>&1 ||
    fail "'git' is missing (Debian: apt-get install git)."
  mkdir -p "$cache"
  # Built beside the destinations (same filesystem), then moved into place.
  tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # In `if` bodies (not after `||`), so that `set -e` still stops at a failing step.
  if ! mcp_ready; then fetch_mcp; fi
  if ! toon_ready; then fetch_toon; fi
  if ! catalog_ready; then fetch_catalog; fi
fi

echo "fetch-spec: MCP spec ready in $dest/mcp (commit $mcp_commit)" >&2
echo "fetch-spec: TOON spec fixtures ready in $toon_dest/tests (commit $toon_commit)" >&2
echo "fetch-spec: tool catalog ready in $catalog (commit $github_commit)" >&2
echo "$dest"
