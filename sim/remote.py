"""vLLM's disaggregated prefill, as the sim speaks it: the `kv_transfer_params` a request brings and an answer gives.

A proxy sends a prefill engine the prompt with `max_tokens: 1` and
`kv_transfer_params: {"do_remote_decode": true, ...}`; the prefill engine
prefills it and answers with `kv_transfer_params` naming itself and the KV
blocks it holds (`remote_engine_id`, `remote_block_ids`, `remote_host`,
`remote_port`). The proxy sends a decode engine the original request with
those: it pulls the blocks (the transfer time: the prompt's KV bytes over the
configured bandwidth) instead of computing them, then decodes.
"""

from dataclasses import dataclass
from typing import Any

from taskgate.sim.errors import bad_request

FIELD = "kv_transfer_params"


@dataclass(frozen=True)
class RemoteKv:
    """Where a decode request's prompt KV is: the prefill engine and its blocks."""

    engine_id: str
    block_ids: tuple[int, ...]
    host: str | None
    port: int | None


@dataclass(frozen=True)
class Asked:
    """What a request's `kv_transfer_params` ask of this engine."""

    remote_decode: bool = False  # prefill only: the answer hands the KV to a decode engine
    remote: RemoteKv | None = None  # decode: the prompt's KV is on a prefill engine


def asked(body: dict[str, Any], role: str) -> Asked:
    """The request's transfer parameters, checked against this engine's role; absent: an ordinary request."""
    params = body.get(FIELD)
    if params is None:
        return Asked()
    if not isinstance(params, dict):
        raise bad_request(f"'{FIELD}' must be an object.", FIELD)
    if params.get("do_remote_decode") is True:
        if role == "decode":
            raise bad_request("this engine decodes only; send the prefill to a prefill engine", FIELD)
        return Asked(remote_decode=True)
    if params.get("do_remote_prefill") is True:
        if role == "prefill":
            raise bad_request("this engine prefills only; send the decode to a decode engine", FIELD)
        return Asked(remote=_remote(params))
    return Asked()


def _remote(params: dict[str, Any]) -> RemoteKv:
    engine, blocks = params.get("remote_engine_id"), params.get("remote_block_ids")
    if not isinstance(engine, str) or not engine:
        raise bad_request("'kv_transfer_params.remote_engine_id' must name the prefill engine.", FIELD)
    if not isinstance(blocks, list) or not all(isinstance(b, int) and not isinstance(b, bool) for b in blocks):
        raise bad_request("'kv_transfer_params.remote_block_ids' must be a list of block ids.", FIELD)
    host, port = params.get("remote_host"), params.get("remote_port")
    return RemoteKv(
        engine, tuple(blocks), host if isinstance(host, str) else None, port if isinstance(port, int) else None
    )


def handoff(engine_id: str, block_ids: list[int], host: str | None, port: int | None) -> dict[str, Any]:
    """The prefill answer's `kv_transfer_params`: what the decode request must bring."""
    return {
        "do_remote_decode": False,
        "do_remote_prefill": True,
        "remote_engine_id": engine_id,
        "remote_block_ids": block_ids,
        "remote_host": host,
        "remote_port": port,
        "tp_size": 1,
    }
