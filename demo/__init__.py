"""The demo: a simulated engine, two MCP tool servers and a taskgate on embedded defaults, driven by the openai SDK.

`taskgate demo` (`make demo`) runs it; the tests and benchmarks reuse its
tool servers (`demo.tools.serving`). It sits above the front door: it builds
the app the way `taskgate serve` does.
"""
