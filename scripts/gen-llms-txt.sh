#!/usr/bin/env bash
# Bundles the user documentation into one file for LLM tools: the pages of docs/SUMMARY.md, in
# its order, each under a "# <title> (<file>)" heading, separated by "---".
#
#   scripts/gen-llms-txt.sh            writes llms.txt (repository root) and docs/llms.txt
#   scripts/gen-llms-txt.sh --stdout   prints the bundle instead
#
# The test `llms_txt_is_up_to_date` (crates/mcp-kit/tests/examples_and_docs.rs) fails when the
# committed files differ from what this script makes of the docs: rerun it after editing docs/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

summary=docs/SUMMARY.md

bundle() {
  cat <<'HEADER'
# mcp-kit docs (llms.txt)

This file is generated from the Markdown docs in `docs/`, following `docs/SUMMARY.md`.
It is meant to be given to LLM tools (Cursor, Claude, ChatGPT, …) as a single context bundle.

Regenerate: `./scripts/gen-llms-txt.sh`
HEADER
  local seen=" " line title file
  # Every [title](page.md) of the summary, in order; external links and repeats are skipped.
  while IFS= read -r line; do
    title=${line#\[}
    title=${title%%\](*}
    file=${line#*\](}
    file=${file%)}
    case $file in
      *://* | \#*) continue ;;
    esac
    case $seen in
      *" $file "*) continue ;;
    esac
    seen="$seen$file "
    if [[ ! -f docs/$file ]]; then
      echo "gen-llms-txt.sh: $summary lists $file, but docs/$file does not exist" >&2
      exit 1
    fi
    printf '\n---\n\n# %s (%s)\n\n' "$title" "$file"
    # The page without its trailing blank lines, then one newline.
    printf '%s\n' "$(cat "docs/$file")"
  done < <(grep -oE '\[[^]]+\]\([^)]+\)' "$summary")
}

case ${1:-} in
  --stdout)
    bundle
    ;;
  "")
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
    bundle >"$out"
    cp "$out" llms.txt
    cp "$out" docs/llms.txt
    echo "wrote llms.txt and docs/llms.txt ($(wc -l <llms.txt) lines)" >&2
    ;;
  *)
    echo "usage: scripts/gen-llms-txt.sh [--stdout]" >&2
    exit 2
    ;;
esac
