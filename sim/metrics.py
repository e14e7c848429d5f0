"""Prometheus metrics with vLLM's names, on a registry private to one engine."""

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

LATENCY_BUCKETS = (
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
    1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
)  # fmt: skip
CONTENT_TYPE = CONTENT_TYPE_LATEST


class EngineMetrics:
    """The vLLM metric families of one engine, labelled by ``model_name``."""

    def __init__(self, model_name: str) -> None:
        self.registry = CollectorRegistry()
        self.model_name = model_name
        self._running = self._gauge("num_requests_running", "Requests running.")
        self._waiting = self._gauge("num_requests_waiting", "Requests waiting.")
        self._gpu_usage = self._gauge("gpu_cache_usage_perc", "KV-cache usage (0..1).")
        self._kv_usage = self._gauge("kv_cache_usage_perc", "KV-cache usage (0..1).")
        self._queries = self._counter("prefix_cache_queries", "Prompt tokens looked up.")
        self._hits = self._counter("prefix_cache_hits", "Prompt tokens found cached.")
        self._prompt = self._counter("prompt_tokens", "Prompt tokens processed.")
        self._generated = self._counter("generation_tokens", "Tokens generated.")
        self._success = Counter(
            "vllm:request_success",
            "Finished requests.",
            ["model_name", "finished_reason"],
            registry=self.registry,
        )
        self._ttft = self._histogram("time_to_first_token_seconds", "Time to first token.")
        self._e2e = self._histogram("e2e_request_latency_seconds", "Request latency.")
        self._queue = self._histogram("request_queue_time_seconds", "Time waiting.")
        self._handoffs = self._counter("kv_transfer_handoffs", "Prefills handed to a remote decode.")
        self._moved = self._counter("kv_transfer_tokens", "Prompt tokens whose KV arrived from a prefill engine.")
        self._transfer = self._histogram("kv_transfer_seconds", "Time for a remote prefill's KV to arrive.")

    def _gauge(self, name: str, doc: str) -> Gauge:
        family = Gauge(f"vllm:{name}", doc, ["model_name"], registry=self.registry)
        return family.labels(self.model_name)

    def _counter(self, name: str, doc: str) -> Counter:
        family = Counter(f"vllm:{name}", doc, ["model_name"], registry=self.registry)
        return family.labels(self.model_name)

    def _histogram(self, name: str, doc: str) -> Histogram:
        family = Histogram(
            f"vllm:{name}",
            doc,
            ["model_name"],
            registry=self.registry,
            buckets=LATENCY_BUCKETS,
        )
        return family.labels(self.model_name)

    def set_state(self, running: int, waiting: int, kv_usage: float) -> None:
        """Record the engine's current load."""
        self._running.set(running)
        self._waiting.set(waiting)
        self._gpu_usage.set(kv_usage)
        self._kv_usage.set(kv_usage)

    def admitted(self, prompt_tokens: int, cached_tokens: int, queued_s: float) -> None:
        """Record a sequence entering the running batch."""
        self._queries.inc(prompt_tokens)
        self._hits.inc(cached_tokens)
        self._prompt.inc(prompt_tokens)
        self._queue.observe(queued_s)

    def handed_off(self) -> None:
        """Record a prefill whose KV a decode engine will pull."""
        self._handoffs.inc()

    def transferred(self, tokens: int, seconds: float) -> None:
        """Record a decode's prompt KV arriving from a prefill engine."""
        self._moved.inc(tokens)
        self._transfer.observe(seconds)

    def embedded(self, prompt_tokens: int) -> None:
        """Record prompt tokens of an embeddings request."""
        self._prompt.inc(prompt_tokens)

    def token(self, ttft_s: float | None) -> None:
        """Record one generated token; ``ttft_s`` for the first one."""
        self._generated.inc()
        if ttft_s is not None:
            self._ttft.observe(ttft_s)

    def finished(self, reason: str, latency_s: float) -> None:
        """Record a successfully finished request."""
        self._success.labels(self.model_name, reason).inc()
        self._e2e.observe(latency_s)

    def render(self) -> bytes:
        """The exposition text for ``/metrics``."""
        return generate_latest(self.registry)
