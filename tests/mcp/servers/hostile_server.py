"""A hostile (or broken) MCP server over stdio, written as raw newline-delimited JSON-RPC so it
can send what no SDK would. `hostile_server.py MODE [ARG]`:

  deep         answers tools/list with an inputSchema nested 200,000 levels deep
  stderr       writes a 100 kB line to stderr, then serves one tool normally
  ping-flood   serves one tool, then stops reading its stdin and sends ping requests
               forever (each asks the client to write an answer into a pipe nobody reads)
  env FILE     writes its environment as JSON to FILE, then serves one tool normally
"""
import json
import os
import sys

MODE = sys.argv[1]
TOOL = {"name": "echo", "description": "Echoes its text",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}


def send(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def answer(message, result):
    send(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}))


def tools_list_result():
    if MODE == "deep":
        depth = 200_000
        schema = '{"type":"object","properties":{"x":' + "[" * depth + "]" * depth + "}}"
        return ('{"tools":[{"name":"deep","description":"d","inputSchema":' + schema + "}]}")
    return json.dumps({"tools": [TOOL]})


def main():
    if MODE == "env":
        with open(sys.argv[2], "w") as f:
            json.dump(dict(os.environ), f)
    if MODE == "stderr":
        sys.stderr.write("E" * 100_000 + "\n")
        sys.stderr.flush()
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        if method == "initialize":
            answer(message, {"protocolVersion": message["params"]["protocolVersion"],
                             "capabilities": {"tools": {}},
                             "serverInfo": {"name": "hostile", "version": "1"}})
        elif method == "tools/list":
            send('{"jsonrpc":"2.0","id":' + json.dumps(message["id"]) + ',"result":' +
                 tools_list_result() + "}")
            if MODE == "ping-flood":
                for i in range(10_000_000):  # until the pipe to the client is full, then blocks
                    send(json.dumps({"jsonrpc": "2.0", "id": f"ping-{i}", "method": "ping"}))
        elif method == "tools/call":
            text = message["params"].get("arguments", {}).get("text", "")
            answer(message, {"content": [{"type": "text", "text": text}]})
        elif "id" in message:
            send(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                             "error": {"code": -32601, "message": "no such method"}}))


if __name__ == "__main__":
    main()
