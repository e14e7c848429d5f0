"""Engine profiles: the speed and capacity of one simulated inference pool."""

from dataclasses import dataclass, fields

ROLES = ("prefill", "decode", "both")


@dataclass(frozen=True)
class EngineProfile:
    """Speed and capacity knobs of a simulated engine.

    Override single fields with ``dataclasses.replace(profile, field=value)``.
    """

    name: str
    models: tuple[str, ...] = ("sim-model",)
    block_size: int = 16
    kv_capacity_blocks: int = 8192
    prefill_tokens_per_s: float = 10_000.0
    tpot_s: float = 0.02
    max_num_seqs: int = 64
    batch_slowdown: float = 0.0
    time_scale: float = 1.0
    embedding_dim: int = 256
    default_max_tokens: int = 16
    max_model_len: int = 32_768
    prefill_chunk_tokens: int = 0  # 0: a prompt prefills in one piece; N: in chunks of N, interleaved (vLLM's way)
    role: str = "both"  # "prefill", "decode" or "both": which half of a disaggregated request it takes (sim/remote.py)
    kv_bytes_per_token: int = 131_072  # KV of one token (a Llama-3-8B in fp16: 32 layers x 8 heads x 128 x 2 x 2)
    kv_transfer_gb_per_s: float = 10.0  # a remote prefill's KV arrives at this many GB/s
    prefill_stalls_decode: bool = False  # True: a decode step waits for the prefill running (one batch per step)

    def __post_init__(self) -> None:
        if not self.models:
            raise ValueError("an engine profile needs at least one model name")
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(value, (int, float)) and value < 0:
                raise ValueError(f"{spec.name} must not be negative")
        for name in ("block_size", "kv_capacity_blocks", "max_num_seqs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.prefill_tokens_per_s <= 0:
            raise ValueError("prefill_tokens_per_s must be positive")
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, got {self.role!r}")
        if self.kv_transfer_gb_per_s <= 0:
            raise ValueError("kv_transfer_gb_per_s must be positive")

    @property
    def kv_capacity_tokens(self) -> int:
        """Tokens the KV cache holds when full."""
        return self.kv_capacity_blocks * self.block_size

    def decode_step_s(self, running: int) -> float:
        """Unscaled seconds per output token with ``running`` sequences in the batch."""
        return self.tpot_s * (1.0 + self.batch_slowdown * max(running - 1, 0))

    def transfer_s(self, tokens: int) -> float:
        """Unscaled seconds for ``tokens`` of a remote prefill's KV to arrive."""
        return tokens * self.kv_bytes_per_token / (self.kv_transfer_gb_per_s * 1e9)

    def prefill_s(self, tokens: int) -> float:
        """Unscaled seconds to prefill ``tokens`` uncached prompt tokens."""
        return tokens / self.prefill_tokens_per_s


PROFILES: dict[str, EngineProfile] = {
    "h100": EngineProfile(
        name="h100",
        kv_capacity_blocks=32_768,
        prefill_tokens_per_s=20_000.0,
        tpot_s=0.012,
        max_num_seqs=256,
        batch_slowdown=0.004,
    ),
    "l4": EngineProfile(
        name="l4",
        kv_capacity_blocks=4_096,
        prefill_tokens_per_s=3_000.0,
        tpot_s=0.045,
        max_num_seqs=32,
        batch_slowdown=0.02,
        max_model_len=16_384,
    ),
    "a100": EngineProfile(  # an 80 GB card run for long context: a big KV cache, slower than an h100
        name="a100",
        kv_capacity_blocks=65_536,
        prefill_tokens_per_s=8_000.0,
        tpot_s=0.02,
        max_num_seqs=128,
        batch_slowdown=0.006,
        max_model_len=131_072,
    ),
    "instant": EngineProfile(
        name="instant",
        kv_capacity_blocks=65_536,
        max_num_seqs=1_024,
        time_scale=0.0,
    ),
}
