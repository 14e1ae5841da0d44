// Loaded with `node --import` by the project's peer scripts and tests.
//
// The conformance suite imports `globSync` from `fs`, which Node added in version 22. On an
// older Node, modules of that package get an `fs` that also provides a small globSync
// (patterns with `*`, `?` and `**` path segments; results relative to `cwd`).
import { register } from "node:module";

const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  register(new URL("./node20-fs-glob-hooks.mjs", import.meta.url));
}
