"""Two real upstream MCP servers written with the official SDK, served over Streamable HTTP on 127.0.0.1."""

from __future__ import annotations

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

from taskgate.demo.tools import serving

__all__ = ["files_server", "mail_server", "serving"]


def mail_server() -> MCPServer:
    server = MCPServer("mail")

    @server.tool()
    def read(folder: str = "inbox") -> str:
        """Read the newest message of a folder."""
        return f"[{folder}] From carol.danvers@example.org: the quarterly numbers are attached."

    @server.tool(name="list")
    def list_messages(folder: str = "inbox") -> list[str]:
        """List message subjects."""
        return [f"{folder}: Q3 numbers", f"{folder}: offsite"]

    @server.tool()
    def delete(message_id: str, older_than_days: int = 0) -> str:
        """Delete a message."""
        return f"deleted {message_id}"

    @server.tool()
    def send(to: str, body: str) -> str:
        """Send an email."""
        return f"sent to {to}"

    @server.tool()
    def whoami(ctx: Context) -> str:
        """The Authorization header this server received."""
        return (ctx.headers or {}).get("authorization", "<none>")

    return server


def files_server() -> MCPServer:
    server = MCPServer("files")

    @server.tool()
    def read(path: str) -> str:
        """Read a file."""
        return f"contents of {path}"

    return server
