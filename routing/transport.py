"""How a disaggregated request's KV is handed over: vLLM's `kv_transfer_params` exchange (its KV connectors).

The prefill engine is sent the request with `max_tokens: 1` (and
`max_completion_tokens: 1` where the request has it), not streamed, asking
for a remote decode; its answer's `kv_transfer_params` name the engine and
the blocks that hold the prompt's KV. The decode engine is sent the original
request with those, and answers the client as any engine would. SGLang's
bootstrap handshake (a room id and the prefill engine's bootstrap address in
both requests, sent together) would be another class with the same two verbs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

FIELD = "kv_transfer_params"
ASK_REMOTE_DECODE = {
    "do_remote_decode": True,
    "do_remote_prefill": False,
    "remote_engine_id": None,
    "remote_block_ids": None,
    "remote_host": None,
    "remote_port": None,
}


class VllmTransfer:
    """vLLM's protocol (NixlConnector and the connectors that speak the same parameters)."""

    name = "vllm"

    def prefill_body(self, body: dict[str, Any]) -> dict[str, Any]:
        out = {**body, "max_tokens": 1, "stream": False, FIELD: dict(ASK_REMOTE_DECODE)}
        if "max_completion_tokens" in out:
            out["max_completion_tokens"] = 1
        out.pop("stream_options", None)  # not allowed on a request that is not streamed
        return out

    def decode_body(self, body: dict[str, Any], answer: Any) -> dict[str, Any] | None:
        params = answer.get(FIELD) if isinstance(answer, dict) else None
        if not isinstance(params, dict) or not params.get("do_remote_prefill"):
            return None
        return {**body, FIELD: params}


TRANSPORTS = {"vllm": VllmTransfer}

if TYPE_CHECKING:
    from taskgate.plugins import KvTransport

    _: type[KvTransport] = VllmTransfer
