// Loaded with `node -r` by the project's peer scripts and tests.
//
// Third-party servers (the everything server, the conformance harness) call listen() with a
// port and no host, which would bind every interface. This makes such calls bind 127.0.0.1.
// The bind happens synchronously on a TCP handle, so code that reads server.address() right
// after listen() still sees the port.
"use strict";
const net = require("node:net");
const { TCP, constants: tcpConstants } = process.binding("tcp_wrap");

const originalListen = net.Server.prototype.listen;

function hostlessPort(args) {
  const [first, second] = args;
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    return typeof second === "string" ? null : { port: Number(first), rest: args.slice(1) };
  }
  if (first && typeof first === "object" && "port" in first && !first.host && !first.path && !first.fd && !first.handle) {
    return { port: Number(first.port), rest: args.slice(1) };
  }
  return null;
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const hostless = hostlessPort(args);
  if (!hostless) return originalListen.apply(this, args);
  const handle = new TCP(tcpConstants.SERVER);
  if (handle.bind("127.0.0.1", hostless.port) !== 0) {
    handle.close();
    // Let Node produce its usual error (EADDRINUSE…) on the loopback address.
    return originalListen.call(this, hostless.port, "127.0.0.1", ...hostless.rest);
  }
  const callback = hostless.rest.find((a) => typeof a === "function");
  return callback ? originalListen.call(this, handle, callback) : originalListen.call(this, handle);
};
