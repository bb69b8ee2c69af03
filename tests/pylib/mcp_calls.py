"""Helpers for tests that drive Zen Engine's MCP server through the official `mcp` SDK client."""
import asyncio

import pytest


async def cancel_chat_after_first_progress(client, messages):
    """Starts a long greedy `chat` call, cancels it once its first progress notification
    arrives, and checks the SDK reports the cancellation."""
    first = asyncio.Event()

    async def progress(p, total, message):
        first.set()

    task = asyncio.create_task(client.call_tool(
        "chat", {"messages": messages, "max_tokens": 200, "temperature": 0},
        progress_callback=progress))
    await asyncio.wait_for(first.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
