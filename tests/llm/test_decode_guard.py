"""The decode guard's index: which next tokens are banned, on plain token ids.

A toy tokenizer (one id per word, a leading space makes a different id, as BPE does) stands
in for a model's: the index only ever sees ids.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rilai_desktop.contracts.llm import DecodeGuard
from rilai_desktop.llm.decode_guard import GuardIndex
from rilai_desktop.llm.fake import ScriptedLLM

_VOCAB: dict[str, int] = {}


def tok(text: str) -> list[int]:
    """Words → ids; " word" (with its leading space) and "word" are different tokens."""
    out: list[int] = []
    for i, word in enumerate(text.split(" ")):
        if not word:
            continue
        key = word if i == 0 and not text.startswith(" ") else " " + word
        out.append(_VOCAB.setdefault(key, len(_VOCAB) + 1))
    return out


def words(text: str) -> list[int]:
    """A reply's ids: the first word without a leading space, the rest with one."""
    return tok(text)


def test_off_bans_nothing() -> None:
    index = GuardIndex(DecodeGuard(), tok("a b c d e f g"), tok)
    assert index.banned(words("a b c d e f")) == set()


def test_a_run_from_the_prompt_cannot_be_completed() -> None:
    prompt = tok("they said I just got home from work today")
    index = GuardIndex(DecodeGuard(copy_ngram=4), prompt, tok)
    reply = tok(" just got home")  # three tokens that the prompt has, in this order
    assert tok(" from") == [tok(" from")[0]]
    assert index.banned(reply) == set(tok(" from"))


def test_the_first_n_minus_one_tokens_are_free() -> None:
    prompt = tok("x y z w")
    index = GuardIndex(DecodeGuard(copy_ngram=4), prompt, tok)
    assert index.banned([]) == set()
    assert index.banned(tok("x")) == set()
    assert index.banned(tok("x y")) == set()


def test_a_reply_cannot_repeat_its_own_run() -> None:
    index = GuardIndex(DecodeGuard(copy_ngram=3), [], tok)
    reply = tok(" I am here I am")
    for k in range(1, len(reply)):  # called once per step, as the decoder does
        index.banned(reply[:k])
    assert index.banned(reply) == set(tok(" here"))


def test_a_phrase_is_banned_mid_reply_and_at_the_start() -> None:
    index = GuardIndex(DecodeGuard(phrases=("You should",)), [], tok)
    assert index.banned(tok("You")) == set(tok(" should"))  # at the very start
    assert index.banned(tok("Well, You")) == set(tok(" should"))  # mid-reply, after a space
    assert index.banned(tok("You are")) == set()


def test_a_one_token_phrase_is_banned_everywhere() -> None:
    index = GuardIndex(DecodeGuard(phrases=("Qwen",)), [], tok)
    assert set(tok("Qwen")) <= index.banned([])
    assert set(tok(" Qwen")) <= index.banned(tok("I am"))


def test_the_start_form_applies_only_at_the_start() -> None:
    index = GuardIndex(DecodeGuard(phrases=("Try",)), [], tok)
    start = set(tok("Try"))
    assert start <= index.banned([])
    assert not start & index.banned(tok("I"))


def test_punctuation_is_banned_right_after_a_word_too() -> None:
    index = GuardIndex(DecodeGuard(phrases=(";",)), [], tok)
    assert set(tok(";")) <= index.banned(tok("You can"))  # "can;" has no space before ";"
    assert set(tok(" ;")) <= index.banned(tok("You can"))


def test_blank_phrases_and_duplicates_are_ignored() -> None:
    index = GuardIndex(DecodeGuard(phrases=("", "  ", "make sure", "make sure")), [], tok)
    assert index.banned(tok(" make")) == set(tok(" sure"))


@pytest.mark.parametrize("n", [-1, 1])
def test_copy_ngram_must_be_off_or_at_least_two(n: int) -> None:
    with pytest.raises(ValueError, match="copy_ngram"):
        DecodeGuard(copy_ngram=n)


@given(
    prompt=st.lists(st.integers(1, 6), max_size=40),
    seed=st.integers(0, 10_000),
    n=st.integers(2, 5),
)
def test_a_reply_that_avoids_every_banned_token_copies_no_run(
    prompt: list[int], seed: int, n: int
) -> None:
    """Decoding with the guard (a random choice among the allowed tokens) never produces a
    run of ``n`` tokens that is in the prompt or earlier in the reply."""
    rng = random.Random(seed)
    index = GuardIndex(DecodeGuard(copy_ngram=n), prompt, tok)
    reply: list[int] = []
    for _ in range(30):
        allowed = [t for t in range(1, 12) if t not in index.banned(reply)]
        if not allowed:
            break
        reply.append(rng.choice(allowed))
    runs = [tuple(prompt[i : i + n]) for i in range(len(prompt) - n + 1)]
    for i in range(len(reply) - n + 1):
        run = tuple(reply[i : i + n])
        assert run not in runs
        assert run not in {tuple(reply[j : j + n]) for j in range(i)}


def test_the_fake_records_the_guard() -> None:
    llm = ScriptedLLM(["hello"])
    guard = DecodeGuard(copy_ngram=6, phrases=("Qwen",))
    llm.complete([{"role": "user", "content": "hi"}], guard=guard)
    assert llm.requests[-1].guard == guard


def test_an_allowed_text_may_be_quoted_from_the_prompt() -> None:
    # what memory recalled of them: "the history of azulejo tiles" is theirs to hear back
    prompt = tok("notes: they are researching the history of azulejo tiles for a podcast")
    guard = DecodeGuard(copy_ngram=4, allowed=("researching the history of azulejo tiles",))
    index = GuardIndex(guard, prompt, tok)
    assert index.banned(tok(" the history of")) == set()
    # the rest of the prompt is still not to be copied
    assert index.banned(tok(" tiles for a")) == set(tok(" podcast"))
