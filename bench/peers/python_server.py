"""The benchmark peer on the official Python SDK (mcp 2.3.0, `MCPServer`).

The tools `echo` ({"message": string} -> the message as text) and `blob` (about 10 KiB of
structured content with an outputSchema, built on every call exactly like
bench/src/tools.rs builds it).

    $PEERS_PYTHON python_server.py --transport stdio
    $PEERS_PYTHON python_server.py --transport http --port N   # http://127.0.0.1:N/mcp, stateful

Over HTTP it serves the SDK's own streamable HTTP app (stateful, SSE responses: the SDK's
defaults) with uvicorn, as `MCPServer.run("streamable-http")` does, but without uvicorn's
per-request access log and with a keep-alive timeout of 120 s instead of 5 s, so that the
idle connections of the memory measurement stay open.
"""

import argparse

from pydantic import BaseModel

from mcp.server.mcpserver import MCPServer

BLOB_ITEMS = 48


class Item(BaseModel):
    id: int
    name: str
    description: str
    tags: list[str]
    score: int
    active: bool


class Blob(BaseModel):
    items: list[Item]


server = MCPServer("python-bench-server", version="0.0.0", log_level="WARNING")


@server.tool()
def echo(message: str) -> str:
    """Returns the message as text."""
    return message


@server.tool()
def blob() -> Blob:
    """Returns a structured result of about 10 KiB."""
    return Blob(
        items=[
            Item(
                id=i,
                name=f"item-{i:03}",
                description=f"Record {i} of the benchmark blob, a structured result that every server builds the same way.",
                tags=["alpha", "beta", "gamma"],
                score=i * 37 % 101,
                active=i % 3 != 0,
            )
            for i in range(BLOB_ITEMS)
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["stdio", "http"], required=True)
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.transport == "stdio":
        server.run()
        return
    if args.port is None:
        parser.error("--transport http needs --port")
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
        timeout_keep_alive=120,
    )
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
