"""scripts/measure_swift_loss_memory.py: the caching allocator's block rules, the measured loss path, the replay."""

from __future__ import annotations

import pytest
from script_module import load_script  # tests/script_module.py: the one loader

MiB = 1 << 20


ml = load_script("measure_swift_loss_memory")


def test_new_segment_sizes_follow_the_allocator_constants():
    a = ml.CachingAllocatorModel()
    a.malloc("mid", 5 * MiB)  # 1-10 MiB: a 20 MiB kLargeBuffer segment
    assert a.reserved_bytes == 20 * MiB
    a.malloc("fits", 11 * MiB)  # the 15 MiB left of that segment: split from it, no new segment
    assert a.reserved_bytes == 20 * MiB
    a.malloc("big", 16 * MiB + 1)  # >= 10 MiB and no free block fits: the request rounded up to 2 MiB
    assert a.reserved_bytes == 20 * MiB + 18 * MiB
    a.malloc("small", 1000)  # <= 1 MiB: a 2 MiB small-pool segment, never a free block of the large pool
    assert a.reserved_bytes == 40 * MiB


def test_a_freed_block_is_reused_best_fit_and_split_only_above_one_mib():
    a = ml.CachingAllocatorModel()
    a.malloc("x", 40 * MiB)
    a.malloc("y", 30 * MiB)
    a.free("x")
    a.free("y")
    a.malloc("z", 29 * MiB)  # the smaller of the two cached blocks that fit, no new segment
    assert a.reserved_bytes == 70 * MiB
    assert a._where["z"] == (1, 0)
    a.malloc("w", 30 * MiB + 1024)  # does not fit the 1 MiB left of y's segment (not split off): takes x's 40
    assert a._where["w"] == (0, 0)
    assert [b.size for b in a.segments[0][1]] == [30 * MiB + 1024, 10 * MiB - 1024]  # 10 MiB > 1 MiB: split
    assert [b.size for b in a.segments[1][1]] == [30 * MiB]  # 1 MiB remainder: not split
    assert a.reserved_bytes == 70 * MiB


def test_free_neighbours_merge_within_a_segment_and_reserved_never_falls():
    a = ml.CachingAllocatorModel()
    a.malloc("seg", 64 * MiB)
    a.free("seg")
    a.malloc("a", 20 * MiB)
    a.malloc("b", 20 * MiB)
    a.free("a")
    a.free("b")  # merges with a's block and the tail: one 64 MiB block again
    a.malloc("c", 60 * MiB)
    assert a.reserved_bytes == a.peak_reserved_bytes == 64 * MiB
    a.free("c")
    assert a.reserved_bytes == 64 * MiB and a.allocated_bytes == 0


@pytest.fixture(scope="module")
def run():
    pytest.importorskip("torch", reason="the CPU measurement needs the `torch` extra; `make test` installs it, so CI runs this")
    return ml.measure_loss_path(tokens=256, vocab=2048, hidden=64)


def test_loss_path_peak_is_three_fp32_vocabulary_tensors(run):
    # the backward of log_softmax: its saved output, the gradient from nll_loss and its result, fp32, over the 255
    # shifted positions (suanli's `logits` term counts 12 bytes per token per vocabulary entry)
    assert run.peak_vocab_bytes == 3 * 4 * 255 * 2048
    sizes = [n / (256 * 2048) for kind, _, n in run.events if kind == "alloc"]
    # bf16 logits, fp32 cast, log-softmax, accelerate's fp32 copy, then the backward's two fp32 and two bf16 tensors
    assert [round(s, 1) for s in sizes] == [2.0, 4.0, 4.0, 4.0, 4.0, 4.0, 2.0, 2.0]
    assert sum(kind == "free" for kind, _, _ in run.events) == len(sizes)  # nothing vocabulary-wide outlives the step


def test_replay_reserves_more_than_the_peak_and_more_when_lengths_rise(run):
    tokens, vocab = 2048, ml.QWEN1_VOCAB
    fixed = ml.replay(run, [tokens] * 3, vocab)
    # one length: the backward's second fp32 tensor finds only the two bf16 blocks free: one more segment, 14 bytes
    assert fixed.peak_reserved_bytes / (tokens * vocab) == pytest.approx(14.0, abs=0.05)
    assert fixed.peak_allocated_bytes / (tokens * vocab) == pytest.approx(12.0, abs=0.05)
    rising = ml.replay(run, [tokens // 2, 3 * tokens // 4, tokens], vocab)
    assert rising.peak_allocated_bytes == fixed.peak_allocated_bytes
    assert rising.peak_reserved_bytes > 1.5 * fixed.peak_reserved_bytes
