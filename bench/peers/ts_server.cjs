#!/usr/bin/env node
/*
 * The benchmark peer on the official TypeScript SDK (@modelcontextprotocol/sdk 1.32.2): the
 * tools `echo` ({"message": string} -> the message as text) and `blob` (about 10 KiB of
 * structured content with an outputSchema, built on every call exactly like
 * bench/src/tools.rs builds it).
 *
 *   node ts_server.cjs --transport stdio
 *   node ts_server.cjs --transport http --port N     # http://127.0.0.1:N/mcp, stateful (SDK defaults)
 *
 * Over HTTP it is the SDK's documented stateful setup on node:http: one McpServer and one
 * StreamableHTTPServerTransport per session, found again by the Mcp-Session-Id header, with
 * the transport's defaults (SSE responses). Node's keep-alive timeout is raised from 5 s to
 * 120 s so that the idle connections of the memory measurement stay open.
 * Needs NODE_PATH from scripts/peers/env.sh.
 */
'use strict';

const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { z } = require('zod');

const BLOB_ITEMS = 48;

function blob() {
  const items = [];
  for (let id = 0; id < BLOB_ITEMS; id++) {
    items.push({
      id,
      name: `item-${String(id).padStart(3, '0')}`,
      description: `Record ${id} of the benchmark blob, a structured result that every server builds the same way.`,
      tags: ['alpha', 'beta', 'gamma'],
      score: (id * 37) % 101,
      active: id % 3 !== 0,
    });
  }
  return { items };
}

const itemSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  score: z.number().int(),
  active: z.boolean(),
});

function makeServer() {
  const server = new McpServer({ name: 'ts-bench-server', version: '0.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the message as text', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerTool(
    'blob',
    {
      description: 'Returns a structured result of about 10 KiB',
      inputSchema: {},
      outputSchema: { items: z.array(itemSchema) },
    },
    async () => {
      const structuredContent = blob();
      return {
        content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
        structuredContent,
      };
    },
  );
  return server;
}

function usage(message) {
  process.stderr.write(`ts_server.cjs: ${message}\nusage: node ts_server.cjs --transport stdio|http [--port N]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { transport: null, port: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--transport') args.transport = argv[++i];
    else if (argv[i] === '--port') args.port = Number(argv[++i]);
    else usage(`unknown argument ${JSON.stringify(argv[i])}`);
  }
  if (args.transport !== 'stdio' && args.transport !== 'http') usage('--transport takes stdio or http');
  if (args.transport === 'http' && !Number.isInteger(args.port)) usage('--transport http needs --port');
  return args;
}

async function serveHttp(port) {
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (req.url !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      const sessionId = req.headers['mcp-session-id'];
      let transport = sessionId === undefined ? undefined : transports.get(sessionId);
      if (transport === undefined) {
        if (sessionId !== undefined) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
          return;
        }
        // A request without a session: the transport accepts only `initialize` here.
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => transports.set(id, created),
        });
        created.onclose = () => {
          if (created.sessionId !== undefined) transports.delete(created.sessionId);
        };
        await makeServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res);
    } catch (e) {
      process.stderr.write(`ts_server.cjs: ${e && e.stack ? e.stack : e}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  httpServer.keepAliveTimeout = 120_000;
  httpServer.listen(port, '127.0.0.1', () => {
    process.stderr.write(`ts_server.cjs listening on http://127.0.0.1:${port}/mcp\n`);
  });
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.transport === 'stdio') {
    await makeServer().connect(new StdioServerTransport());
  } else {
    await serveHttp(args.port);
  }
}

main().catch((e) => {
  process.stderr.write(`ts_server.cjs: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
