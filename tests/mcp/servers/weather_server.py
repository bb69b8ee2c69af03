#!/usr/bin/env python3
"""A small MCP server for Zen Engine's MCP client tests, built with the official SDK.

    python3 weather_server.py                 # stdio (newline-delimited JSON-RPC)
    python3 weather_server.py --http PORT     # streamable HTTP at http://127.0.0.1:PORT/mcp
                                              # (PORT 0 picks a free one); prints
                                              # "listening on PORT" to stderr once up
    --require-header "Name: value"            # HTTP only: answer 401 to any request that
                                              # lacks this exact header (tests that the
                                              # client sends its configured headers)

Tools: get_weather(city) -> $WEATHER_FORECAST (default "rain"), slow(seconds) -> "done",
crash() -> the process exits with status 3 at once, add(a, b) -> a + b.

If $WEATHER_CALL_LOG names a file, every call appends one JSON line
{"tool": ..., "arguments": {...}}; a slow() call that the client cancels also appends
{"tool": "slow", "cancelled": true}, so tests can see the cancellation arrive.
"""

import argparse
import json
import os
import socket
import sys

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("weather", log_level="WARNING")


def log_event(record: dict) -> None:
    path = os.environ.get("WEATHER_CALL_LOG")
    if not path:
        return
    # One write per line with O_APPEND: lines from concurrent calls never interleave.
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")


@server.tool()
def get_weather(city: str) -> str:
    """The weather forecast for a city."""
    log_event({"tool": "get_weather", "arguments": {"city": city}})
    return os.environ.get("WEATHER_FORECAST", "rain")


@server.tool()
async def slow(seconds: float) -> str:
    """Waits the given number of seconds, then answers "done"."""
    log_event({"tool": "slow", "arguments": {"seconds": seconds}})
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        log_event({"tool": "slow", "cancelled": True})
        raise
    return "done"


@server.tool()
def crash() -> str:
    """Ends the server process at once with exit status 3."""
    log_event({"tool": "crash", "arguments": {}})
    sys.stderr.flush()
    os._exit(3)


@server.tool()
def add(a: int, b: int) -> int:
    """The sum of two integers."""
    log_event({"tool": "add", "arguments": {"a": a, "b": b}})
    return a + b


def require_header(app, name: str, value: str):
    """ASGI wrapper: 401 for HTTP requests without the header `name: value`."""
    wanted = (name.lower().encode(), value.encode())

    async def guarded(scope, receive, send):
        if scope["type"] == "http" and wanted not in scope["headers"]:
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"missing required header\n"})
            return
        await app(scope, receive, send)

    return guarded


async def serve_http(port: int, header: str | None) -> None:
    import uvicorn

    app = server.streamable_http_app()
    if header:
        name, _, value = header.partition(":")
        app = require_header(app, name.strip(), value.strip())
    # Bind first so that port 0 resolves to a real port we can announce.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    bound_port = sock.getsockname()[1]
    # The SDK app runs its session manager in its lifespan; uvicorn runs that lifespan.
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))

    async def announce() -> None:
        while not web.started:
            await anyio.sleep(0.01)
        print(f"listening on {bound_port}", file=sys.stderr, flush=True)

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await web.serve(sockets=[sock])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on PORT")
    parser.add_argument("--require-header", metavar="'NAME: VALUE'")
    args = parser.parse_args()
    if args.http is None:
        server.run()
    else:
        anyio.run(serve_http, args.http, args.require_header)


if __name__ == "__main__":
    main()
