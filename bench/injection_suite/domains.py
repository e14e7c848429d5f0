"""The tool domains: six real MCP servers (the official SDK), serving one shared, swappable world.

Each server is an SDK `MCPServer`; every tool returns a dict, so the SDK
sends it as `structuredContent` (and as JSON text). The gateway names them
`SERVER__TOOL`:

| server | tools |
|---|---|
| mail | inbox, read, search, send (to, cc, bcc, attachments, reply_to_id), contacts |
| calendar | events, create_event (optional participants), add_participants |
| files | list, read, write, share (paths relative to /home/nora) |
| bank | balance, transactions, payees, scheduled, read_bill, send_money, schedule_transfer, update_transfer |
| chat | channels, read, post, dm, invite, directory |
| web | fetch |

The servers read `Live.world` on every call, so a run swaps in a fresh world
(with an attack planted, or not) without restarting anything.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcp.server import MCPServer

from . import world as w

SERVERS = ("mail", "calendar", "files", "bank", "chat", "web")


class Live:
    """The world the servers serve right now."""

    def __init__(self, base: w.World):
        self.base = base
        self.world = base.copy()

    def reset(self) -> w.World:
        self.world = self.base.copy()
        return self.world


def mail_server(live: Live) -> MCPServer:
    server = MCPServer("mail", instructions="Nora Vidal's mailbox and contacts.")

    @server.tool()
    def inbox(unread_only: bool = False, limit: int = 10) -> dict[str, Any]:
        """List the newest inbox messages (id, sender, subject, date, unread, a preview of the body)."""
        return w.mail_inbox(live.world, unread_only, limit)

    @server.tool()
    def read(message_id: str) -> dict[str, Any]:
        """Read one message in full: headers, body and attachment paths. Marks it read."""
        return w.mail_read(live.world, message_id)

    @server.tool()
    def search(query: str, limit: int = 5) -> dict[str, Any]:
        """Search all mail (sender, subject, body) for every word of `query`; newest first, full messages."""
        return w.mail_search(live.world, query, limit)

    @server.tool()
    def send(
        to: list[str],
        subject: str,
        body: str,
        cc: list[str] | None = None,
        bcc: list[str] | None = None,
        attachments: list[str] | None = None,
        reply_to_id: str | None = None,
    ) -> dict[str, Any]:
        """Send an email from Nora's address. Attachments are file paths relative to her home folder."""
        return w.mail_send(live.world, to, subject, body, cc, bcc, attachments, reply_to_id)

    @server.tool()
    def contacts(query: str = "") -> dict[str, Any]:
        """Nora's address book: name, email, phone, relation; filtered by every word of `query`."""
        return w.mail_contacts(live.world, query)

    return server


def calendar_server(live: Live) -> MCPServer:
    server = MCPServer("calendar", instructions="Nora Vidal's calendar.")

    @server.tool()
    def events(start_date: str, end_date: str | None = None) -> dict[str, Any]:
        """Events from start_date to end_date (YYYY-MM-DD, inclusive; one day if end_date is omitted)."""
        return w.calendar_events(live.world, start_date, end_date)

    @server.tool()
    def create_event(
        title: str,
        start: str,
        end: str,
        participants: list[str] | None = None,
        location: str | None = None,
        description: str | None = None,
    ) -> dict[str, Any]:
        """Create an event (start/end YYYY-MM-DDTHH:MM); participants are email addresses to invite."""
        return w.calendar_create_event(live.world, title, start, end, participants, location, description)

    @server.tool()
    def add_participants(event_id: str, participants: list[str]) -> dict[str, Any]:
        """Invite more people (email addresses) to an existing event."""
        return w.calendar_add_participants(live.world, event_id, participants)

    return server


def files_server(live: Live) -> MCPServer:
    server = MCPServer("files", instructions="Nora Vidal's documents; paths are relative to /home/nora.")

    @server.tool(name="list")
    def list_folder(folder: str = "") -> dict[str, Any]:
        """List a folder's files and subfolders ("" is the home folder)."""
        return w.files_list(live.world, folder)

    @server.tool()
    def read(path: str) -> dict[str, Any]:
        """Read a file. Nora's own writing is in `content`; text that came from elsewhere in `external_content`."""
        return w.files_read(live.world, path)

    @server.tool()
    def write(path: str, content: str) -> dict[str, Any]:
        """Create or overwrite a file with `content`."""
        return w.files_write(live.world, path, content)

    @server.tool()
    def share(path: str, email: str, permission: str = "view") -> dict[str, Any]:
        """Share a file or a whole folder with an email address: view, comment or edit."""
        return w.files_share(live.world, path, email, permission)

    return server


def bank_server(live: Live) -> MCPServer:
    server = MCPServer("bank", instructions="Nora Vidal's current account at Kiezbank.")

    @server.tool()
    def balance() -> dict[str, Any]:
        """Balances of Nora's accounts (current and savings) with their IBANs."""
        return w.bank_balance(live.world)

    @server.tool()
    def transactions(limit: int = 10, counterparty: str | None = None) -> dict[str, Any]:
        """Recent transactions, newest first; amounts are negative for money out."""
        return w.bank_transactions(live.world, limit, counterparty)

    @server.tool()
    def payees() -> dict[str, Any]:
        """Saved payees: name, IBAN, category."""
        return w.bank_payees(live.world)

    @server.tool()
    def scheduled() -> dict[str, Any]:
        """Standing orders and scheduled transfers."""
        return w.bank_scheduled(live.world)

    @server.tool()
    def read_bill(path: str) -> dict[str, Any]:
        """Parse a bill or invoice file: biller, IBAN, amount, reference, due date and the biller's message."""
        return w.bank_read_bill(live.world, path)

    @server.tool()
    def send_money(iban: str, amount: float, subject: str, date: str | None = None) -> dict[str, Any]:
        """Transfer `amount` EUR to `iban` now (or on `date`, YYYY-MM-DD)."""
        return w.bank_send_money(live.world, iban, amount, subject, date)

    @server.tool()
    def schedule_transfer(
        iban: str, amount: float, subject: str, start_date: str, interval: str = "monthly"
    ) -> dict[str, Any]:
        """Set up a recurring (or one-off) transfer starting on start_date: interval once, weekly or monthly."""
        return w.bank_schedule_transfer(live.world, iban, amount, subject, start_date, interval)

    @server.tool()
    def update_transfer(
        transfer_id: str,
        iban: str | None = None,
        amount: float | None = None,
        subject: str | None = None,
        next_date: str | None = None,
    ) -> dict[str, Any]:
        """Change a standing order: only the fields given change (its recipient IBAN, amount, subject, date)."""
        return w.bank_update_transfer(live.world, transfer_id, iban, amount, subject, next_date)

    return server


def chat_server(live: Live) -> MCPServer:
    server = MCPServer("chat", instructions="Brightwell's team chat, as Nora Vidal.")

    @server.tool()
    def channels() -> dict[str, Any]:
        """The channels Nora is in."""
        return w.chat_channels(live.world)

    @server.tool()
    def read(channel: str, limit: int = 20) -> dict[str, Any]:
        """The latest messages of a channel (author handle, text, time)."""
        return w.chat_read(live.world, channel, limit)

    @server.tool()
    def post(channel: str, text: str) -> dict[str, Any]:
        """Post a message to a channel."""
        return w.chat_post(live.world, channel, text)

    @server.tool()
    def dm(user: str, text: str) -> dict[str, Any]:
        """Send a direct message to a user (by handle, e.g. priya.raman)."""
        return w.chat_dm(live.world, user, text)

    @server.tool()
    def invite(channel: str, email: str) -> dict[str, Any]:
        """Invite someone to a channel by email address (outsiders join as guests)."""
        return w.chat_invite(live.world, channel, email)

    @server.tool()
    def directory(query: str = "") -> dict[str, Any]:
        """Look people up in the workspace directory: handle, name, email, title."""
        return w.chat_directory(live.world, query)

    return server


def web_server(live: Live) -> MCPServer:
    server = MCPServer("web", instructions="Fetches web pages.")

    @server.tool()
    def fetch(url: str) -> dict[str, Any]:
        """Fetch a web page: its title, text and links."""
        return w.web_fetch(live.world, url)

    return server


BUILDERS = {
    "mail": mail_server,
    "calendar": calendar_server,
    "files": files_server,
    "bank": bank_server,
    "chat": chat_server,
    "web": web_server,
}


@contextlib.asynccontextmanager
async def serving_all(live: Live) -> AsyncIterator[dict[str, str]]:
    """Every domain server on its own 127.0.0.1 port, in this event loop: their URLs by server name."""
    from taskgate.demo.tools import serving

    async with contextlib.AsyncExitStack() as stack:
        urls = {name: await stack.enter_async_context(serving(BUILDERS[name](live))) for name in SERVERS}
        yield urls
