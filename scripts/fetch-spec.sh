#!/usr/bin/env bash
# Fetches the MCP specification files that the tests read, pinned, into a cache folder outside
# the repository (nothing is written into the repository):
#   schema/<version>/schema.json   → ~/.cache/mcp-toolkit/spec/mcp/<version>/schema.json
#       for 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28
#   schema/2026-07-28/examples/    → ~/.cache/mcp-toolkit/spec/mcp/2026-07-28/examples/
# from github.com/modelcontextprotocol/modelcontextprotocol at the commit pinned below: a
# shallow fetch of that one commit, with only those files checked out.
# scripts/test.sh runs it when MCP_SPEC_DIR is unset and there is no ../shared/spec beside the
# repository (CI has one); after it, a plain `cargo test` finds the cache too.
# Needs: git, and network access to github.com.
# Idempotent: a stamp records the commit and the files; when it matches, nothing is fetched.
# Prints the spec directory on stdout; messages go to stderr.
# Usage: scripts/fetch-spec.sh
#   MCP_SPEC_REPO=<url or path> scripts/fetch-spec.sh   fetches from another copy of the
#   repository (a mirror) that has the pinned commit.
set -euo pipefail

repo_url=${MCP_SPEC_REPO:-https://github.com/modelcontextprotocol/modelcontextprotocol.git}
commit=b0f60ba5409db7a6582440a7b473cc0398890f15
versions=(2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28)
examples_version=2026-07-28
dest=$HOME/.cache/mcp-toolkit/spec

fail() {
  echo "fetch-spec: $1" >&2
  echo "fetch-spec: fix that and run scripts/fetch-spec.sh again, or set MCP_SPEC_DIR to a" \
    "folder holding mcp/<version>/schema.json and mcp/$examples_version/examples/." >&2
  exit 1
}

# What the cache must hold; the stamp is this text.
want="commit $commit
versions ${versions[*]}
examples $examples_version"

complete() {
  local version
  [ "$(cat "$dest/.stamp" 2>/dev/null)" = "$want" ] || return 1
  for version in "${versions[@]}"; do
    [ -f "$dest/mcp/$version/schema.json" ] || return 1
  done
  [ -d "$dest/mcp/$examples_version/examples" ]
}

if complete; then
  echo "fetch-spec: spec ready in $dest (commit $commit)" >&2
  echo "$dest"
  exit 0
fi

command -v git >/dev/null 2>&1 ||
  fail "'git' is missing (Debian: apt-get install git)."

mkdir -p "$(dirname "$dest")"
# Built beside the destination (same filesystem), then moved into place.
tmp=$(mktemp -d "$(dirname "$dest")/.spec.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "fetch-spec: fetching commit $commit of $repo_url → $dest" >&2
repo=$tmp/repo
git -c init.defaultBranch=main init -q "$repo"
git -C "$repo" remote add origin "$repo_url"
git -C "$repo" config core.sparseCheckout true
{
  printf '/schema/%s/schema.json\n' "${versions[@]}"
  printf '/schema/%s/examples/\n' "$examples_version"
} >"$repo/.git/info/sparse-checkout"
# Trees only; checkout then fetches the blobs of the sparse paths alone.
GIT_TERMINAL_PROMPT=0 git -C "$repo" fetch -q --depth 1 --filter=blob:none --no-tags \
  origin "$commit" ||
  fail "could not fetch commit $commit from $repo_url (git says why above)."
GIT_TERMINAL_PROMPT=0 git -C "$repo" -c advice.detachedHead=false checkout -q "$commit" ||
  fail "could not check out the spec files of commit $commit from $repo_url."

out=$tmp/spec
for version in "${versions[@]}"; do
  [ -f "$repo/schema/$version/schema.json" ] ||
    fail "commit $commit has no schema/$version/schema.json."
  mkdir -p "$out/mcp/$version"
  cp "$repo/schema/$version/schema.json" "$out/mcp/$version/schema.json"
done
[ -d "$repo/schema/$examples_version/examples" ] ||
  fail "commit $commit has no schema/$examples_version/examples/."
cp -R "$repo/schema/$examples_version/examples" "$out/mcp/$examples_version/examples"
printf '%s\n' "$want" >"$out/.stamp"

if [ -e "$dest" ]; then
  mv "$dest" "$tmp/old"
fi
mv "$out" "$dest"
echo "fetch-spec: spec ready in $dest (commit $commit)" >&2
echo "$dest"
