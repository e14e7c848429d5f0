"""Agents' parts for proxy tests: two slow tool servers (real SDK MCP servers) and scripts for the sim model."""

from __future__ import annotations

import asyncio

from mcp.server import MCPServer

from taskgate.sim.script import Rule, Script, ToolCall

MAIL_S, FILES_S = 0.6, 0.8  # how long each tool takes: run together, about the slower; in turn, their sum
SUMMARISE = "summarise my email from this week"
RECOVERED = "I may not delete mail in this task; here is the summary instead."
ANSWER = "Summary: the Q3 numbers came in; the notes say the offsite moved."


def slow_servers() -> tuple[MCPServer, MCPServer]:
    mail, files = MCPServer("mail"), MCPServer("files")

    @mail.tool()
    async def read(folder: str = "inbox") -> str:
        """Read the newest message of a folder."""
        await asyncio.sleep(MAIL_S)
        return f"[{folder}] From carol.danvers@proton.me: the Q3 numbers are in."

    @mail.tool()
    async def delete(message_id: str, older_than_days: int = 0) -> str:
        """Delete a message."""
        return f"deleted {message_id}"

    @files.tool(name="read")
    async def read_file(path: str) -> str:
        """Read a file."""
        await asyncio.sleep(FILES_S)
        return f"{path}: the offsite moved to Thursday"

    return mail, files


def script(*first: ToolCall, answer: str = ANSWER) -> Script:
    """The model asks for `first` on the user's turn, and answers once it has read tool results."""
    return Script([Rule(match="summarise", role="user", tool_calls=first), Rule(match=".", role="tool", reply=answer)])
