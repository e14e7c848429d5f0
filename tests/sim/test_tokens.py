"""Tokeniser, chat template, block hashing, output text and profiles."""

from dataclasses import replace

import pytest

from taskgate.sim import PROFILES, EngineProfile
from taskgate.sim.text import content_seed, output_tokens
from taskgate.sim.tokens import block_hashes, detokenize, render_chat, tokenize


def test_tokenizer_splits_words_punctuation_and_role_markers() -> None:
    assert tokenize("<|user|>\nHi, sim!") == ["<|user|>", "Hi", ",", "sim", "!"]


def test_chat_template_renders_roles_content_parts_and_tools() -> None:
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
    ]
    prompt = render_chat(messages, [{"type": "function", "function": {"name": "lookup"}}])
    assert prompt.startswith("<|tools|>")
    assert tokenize(prompt)[-7:] == ["<|system|>", "Be", "brief", ".", "<|user|>", "Hi", "<|assistant|>"]
    assert "lookup" in tokenize(prompt)


def test_block_hashes_cover_only_full_blocks_and_chain_their_prefix() -> None:
    assert len(block_hashes(list("abcdefghij"), 4)) == 2
    same_block_after_other_parent = block_hashes(list("abcdwxyz"), 4)[1] != block_hashes(list("zzzzwxyz"), 4)[1]
    assert same_block_after_other_parent
    assert block_hashes(list("abcd"), 4) == block_hashes(list("abcdxy"), 4)


def test_output_is_deterministic_and_round_trips_through_the_tokenizer() -> None:
    seed = content_seed("m", ["hello"], None)
    tokens = output_tokens(seed, 30)
    assert tokens == output_tokens(seed, 30)
    assert tokenize(detokenize(tokens)) == tokens
    assert tokens != output_tokens(content_seed("m", ["bye"], None), 30)


def test_profiles_cover_a_fast_a_slow_and_an_instant_pool() -> None:
    h100, l4 = PROFILES["h100"], PROFILES["l4"]
    assert h100.prefill_tokens_per_s > l4.prefill_tokens_per_s
    assert h100.tpot_s < l4.tpot_s
    assert h100.kv_capacity_blocks > l4.kv_capacity_blocks
    assert PROFILES["instant"].time_scale == 0


def test_profile_fields_can_be_overridden_but_not_made_invalid() -> None:
    assert replace(PROFILES["l4"], max_num_seqs=2).max_num_seqs == 2
    with pytest.raises(ValueError, match="block_size"):
        replace(PROFILES["h100"], block_size=0)
    with pytest.raises(ValueError, match="model"):
        EngineProfile(name="empty", models=())


def test_decode_slows_down_with_batch_size() -> None:
    profile = EngineProfile(name="p", tpot_s=0.01, batch_slowdown=0.5)
    assert profile.decode_step_s(1) == 0.01
    assert profile.decode_step_s(3) == pytest.approx(0.02)
