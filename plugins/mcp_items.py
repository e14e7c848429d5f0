"""The MCP methods that name one item of a server (not a tool call), as the gateway and the authorize step read them.

One table: the MCP gateway finds the server that serves the item, the
authorize step decides whether the task's grant shows it.
"""

from __future__ import annotations

from typing import NamedTuple


class ItemMethod(NamedTuple):
    kind: str  # the catalog it is in: resources, prompts, or `ref` (a completion names a prompt or a template)
    action: str  # the policy action that shows it: resource, prompt, or ref (decided on what the ref names)
    param: str  # the param that names it


MCP_ITEMS = {
    "resources/read": ItemMethod("resources", "resource", "uri"),
    "resources/subscribe": ItemMethod("resources", "resource", "uri"),
    "resources/unsubscribe": ItemMethod("resources", "resource", "uri"),
    "prompts/get": ItemMethod("prompts", "prompt", "name"),
    "completion/complete": ItemMethod("ref", "ref", "ref"),
}
