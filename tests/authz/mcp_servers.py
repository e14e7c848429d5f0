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
        return f"[{folder}] From carol.danvers@proton.me: the quarterly numbers are attached."

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


def docs_server() -> MCPServer:
    """Resources (one with personal data), a resource template and prompts, as a documentation server serves."""
    server = MCPServer("docs")

    @server.resource("docs://handbook", name="handbook", description="The team handbook")
    def handbook() -> str:
        return "Expenses go to finance; questions to dana.scully@posteo.de."

    @server.resource("docs://salaries", name="salaries", description="Everyone's salary")
    def salaries() -> str:
        return "alice: 1, bob: 2"

    @server.resource("docs://pages/{page}", name="page", description="One page of the wiki")
    def page(page: str) -> str:
        return f"page {page} of the wiki"

    @server.prompt(name="summarise", description="Summarise a document")
    def summarise(document: str) -> str:
        return f"Summarise this document: {document}"

    @server.prompt(name="payroll", description="Prepare the payroll")
    def payroll() -> str:
        return "Prepare the payroll."

    return server
