"""A seeded prompt-injection replay suite for taskgate's MCP gateway.

world.py (the user's data), domains.py (six SDK MCP servers serving it),
tasks.py (user tasks with their intended calls, split dev / heldout),
attacks.py (attacker goals, injection texts, and the (task, attack) pairs),
replay.py (callers: straight to the servers, or through taskgate), and
policies/ (the operator's three policies, classifier examples and task types).
bench/injection.py runs it.
"""
