// Module hooks registered by node20-fs-glob.mjs (Node < 22 only): serves modules of the
// conformance package an `fs` that also exports globSync.
export async function resolve(specifier, context, nextResolve) {
  const fromConformance = context.parentURL && context.parentURL.includes("/@modelcontextprotocol/conformance/");
  if (fromConformance && (specifier === "fs" || specifier === "node:fs")) {
    return { url: "mcp-fs-glob:fs", shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (url !== "mcp-fs-glob:fs") return nextLoad(url, context);
  const source = `
import fs from "node:fs";
import path from "node:path";
export * from "node:fs";
export default fs;
function toRegExp(pattern) {
  const parts = pattern.split("/").map((segment) => {
    if (segment === "**") return "(?:[^/]+/)*";
    const body = segment.replace(/[.+^\${}()|[\\]\\\\]/g, "\\\\$&").replace(/\\*/g, "[^/]*").replace(/\\?/g, "[^/]");
    return body + "/";
  });
  return new RegExp("^" + parts.join("").replace(/\\/$/, "") + "$");
}
export function globSync(pattern, options = {}) {
  const root = options.cwd ? String(options.cwd) : process.cwd();
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const matchers = patterns.map(toRegExp);
  const found = [];
  const visit = (relative) => {
    let entries;
    try { entries = fs.readdirSync(path.join(root, relative), { withFileTypes: true }); } catch { return; }
    for (const entry of entries) {
      const rel = relative ? relative + "/" + entry.name : entry.name;
      if (matchers.some((m) => m.test(rel))) found.push(rel);
      if (entry.isDirectory()) visit(rel);
    }
  };
  visit("");
  return found;
}`;
  return { format: "module", source, shortCircuit: true };
}
