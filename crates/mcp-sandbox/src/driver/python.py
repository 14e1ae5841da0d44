# mcp-sandbox Python driver: one long-lived interpreter per sandbox session.
#
# Protocol (newline-delimited JSON; stdlib only, Python >= 3.8):
#   fd 3 (host -> driver): {"type":"exec","id":N,"code":"...","fence":"<32 hex>"}
#                          {"type":"run","id":N,"argv":[...]|"shell":"...","fence":"..."}
#   fd 4 (driver -> host): {"type":"ready",...} once at start, then one
#                          {"type":"done","id":N,"ok":...} per request.
#   fd 1 / fd 2: user-visible stdout / stderr. When a request finishes, the driver
#   flushes, writes NUL + fence + NUL raw to fd 1 and then fd 2, and only then
#   sends "done", so the host knows it has seen all output of that request.
# exec runs code like a REPL cell in one persistent __main__ namespace (top-level
# await on one persistent event loop, last expression shown via sys.displayhook).
# run starts a program (stdin /dev/null, output inherited) and waits for it.
# EOF on fd 3 ends the driver with status 0.

# Only what the first cell needs is imported at start (the cold start of a session is the
# interpreter's start plus these); asyncio, subprocess, traceback and linecache are imported
# when a cell first needs them.
import _ast
import builtins
import errno
import json
import os
import sys
import types

WORKSPACE = os.environ.get("MCP_SANDBOX_WORKSPACE", "/workspace")
CTRL_IN, CTRL_OUT = 3, 4
HEX = frozenset("0123456789abcdef")
CO_COROUTINE = 0x80  # inspect.CO_COROUTINE: the code object awaits at top level
# Every cell's source, by file name, for tracebacks (given to linecache when it is loaded).
cell_sources = {}
CELL_PREFIX = "<cell"

# Keep the control pipes away from every process user code starts.
os.set_inheritable(CTRL_IN, False)
os.set_inheritable(CTRL_OUT, False)

# User code lives in a fresh __main__ module (so pickle etc. find its classes),
# not in the driver's own module namespace. '' and the workspace are importable.
main_module = types.ModuleType("__main__")
main_module.__dict__["__builtins__"] = builtins
sys.modules["__main__"] = main_module
user_ns = main_module.__dict__
sys.path[0:1] = ["", WORKSPACE]

loop = None  # the session's event loop, made by the first cell that awaits
DRIVER_PID = os.getpid()


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def send(frame):
    write_all(CTRL_OUT, (json.dumps(frame) + "\n").encode("utf-8"))


def flush_std_streams():
    # The user may have replaced sys.stdout/sys.stderr, so flush the originals too.
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:
            pass


def user_stderr():
    return sys.stderr if hasattr(sys.stderr, "write") else sys.__stderr__


def share_sources():
    """Give the cells' sources to linecache once something (a traceback) has loaded it."""
    linecache = sys.modules.get("linecache")
    if linecache is not None:
        for name, source in cell_sources.items():
            if name not in linecache.cache:
                linecache.cache[name] = (len(source), None, source.splitlines(True), name)


def run_maybe_async(code):
    """Run a compiled code object; a coroutine (top-level await) runs on the session loop."""
    global loop
    result = eval(code, user_ns)
    if code.co_flags & CO_COROUTINE:  # the cell itself awaits
        import asyncio

        if loop is None or loop.is_closed():
            loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        result = loop.run_until_complete(result)
    return result


def exec_cell(req_id, source):
    """Execute one cell; return None on success or the exception it raised."""
    filename = "%s-%d>" % (CELL_PREFIX, req_id)
    # Register the source so tracebacks (even later ones) can show cell lines.
    cell_sources[filename] = source
    share_sources()
    flags = _ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    try:
        tree = compile(source, filename, "exec", _ast.PyCF_ONLY_AST | flags, dont_inherit=True)
        last = None
        if tree.body and isinstance(tree.body[-1], _ast.Expr):
            last = _ast.Expression(tree.body.pop().value)
        body = compile(tree, filename, "exec", flags, dont_inherit=True)
        tail = compile(last, filename, "eval", flags, dont_inherit=True) if last is not None else None
        run_maybe_async(body)
        if tail is not None:
            # sys.displayhook prints repr() of a non-None value and sets builtins._
            sys.displayhook(run_maybe_async(tail))
        return None
    except BaseException as exc:
        return exc


def report_exception(exc):
    tb = exc.__traceback__
    # Drop the driver's (and asyncio's) frames above the first frame of a cell.
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith(CELL_PREFIX):
        tb = tb.tb_next
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
    if isinstance(exc, SystemExit):
        message = str(exc.code)  # sys.exit() in a cell ends the cell, not the session
    else:
        message = str(exc)
        try:
            import traceback

            share_sources()
            traceback.print_exception(type(exc), exc, tb, file=user_stderr())
        except BaseException:
            pass
    return {"name": type(exc).__name__, "message": message}


def run_program(req):
    if "shell" in req:
        if not isinstance(req["shell"], str):
            return protocol_error("'shell' must be a string")
        argv = ["/bin/sh", "-c", req["shell"]]
    else:
        argv = req.get("argv")
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
            return protocol_error("'argv' must be a non-empty list of strings (or give 'shell')")
    flush_std_streams()
    try:
        import subprocess

        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, cwd=WORKSPACE)
    except OSError as exc:
        code = exc.errno or errno.EIO
        message = "%s: %s" % (argv[0], os.strerror(code))
        write_all(2, (message + "\n").encode("utf-8", "replace"))
        return {"ok": False, "exit_code": 127 if code == errno.ENOENT else 126, "signal": None,
                "error": {"name": errno.errorcode.get(code, "OSError"), "message": message}}
    status = proc.returncode
    if status < 0:  # killed by signal -status
        return {"ok": False, "exit_code": None, "signal": -status}
    return {"ok": status == 0, "exit_code": status, "signal": None}


def handle(line):
    """Serve one request line; return the done frame's fields and the fence (or None)."""
    try:
        req = json.loads(line)
    except ValueError as exc:
        return dict(id=None, **protocol_error("bad JSON: %s" % exc)), None
    if not isinstance(req, dict):
        return dict(id=None, **protocol_error("request is not an object")), None
    req_id = req.get("id")
    if not isinstance(req_id, int) or isinstance(req_id, bool):
        req_id = None
    fence = req.get("fence")
    fence = fence if isinstance(fence, str) and len(fence) == 32 and HEX.issuperset(fence) else None
    done = {"id": req_id}
    try:
        done.update(dispatch(req, req_id, fence))
    except BaseException as exc:  # e.g. KeyboardInterrupt while waiting for a program
        done.update(ok=False, error={"name": type(exc).__name__, "message": str(exc)})
    return done, fence


def dispatch(req, req_id, fence):
    kind = req.get("type")
    if kind not in ("exec", "run"):
        return protocol_error("unknown request type %r" % (kind,))
    if req_id is None or fence is None:
        return protocol_error("missing or invalid '%s'" % ("id" if req_id is None else "fence"))
    if kind == "run":
        return run_program(req)
    if not isinstance(req.get("code"), str):
        return protocol_error("'code' must be a string")
    exc = exec_cell(req_id, req["code"])
    return {"ok": True} if exc is None else {"ok": False, "error": report_exception(exc)}


def protocol_error(message):
    return {"ok": False, "error": {"name": "ProtocolError", "message": message}}


def main():
    send({"type": "ready", "language": "python", "pid": os.getpid(),
          "version": "%d.%d.%d" % sys.version_info[:3]})
    with open(CTRL_IN, "rb") as ctrl:
        for line in ctrl:
            if not line.strip():
                continue
            try:
                done, fence = handle(line.decode("utf-8", "replace"))
            except BaseException as exc:  # last resort (e.g. KeyboardInterrupt right here)
                done, fence = {"id": None, "ok": False,
                               "error": {"name": type(exc).__name__, "message": str(exc)}}, None
            flush_std_streams()
            if os.getpid() != DRIVER_PID:
                # A process the cell forked came back here: only the driver answers.
                os._exit(0)
            if fence is not None:
                marker = b"\0" + fence.encode("ascii") + b"\0"
                write_all(1, marker)
                write_all(2, marker)
            send(dict(type="done", **done))
    flush_std_streams()  # then exit normally (status 0): user files get closed, atexit runs


if __name__ == "__main__":
    main()
