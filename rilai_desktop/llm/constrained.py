"""Grammar-constrained decoding that checks the grammar against the top candidates first.

llama-cpp-python's sampler chain applies the JSON grammar to the *whole* vocabulary on
every step (49K entries for SmolLM2, 152K for Qwen2.5). Measured on this machine with the
135M agent model (docs/turn.md, "Agent decoding"): about 17 ms per token with the grammar
over the full vocabulary against 9.4 ms for an unconstrained step. llama.cpp's
own ``common`` sampler avoids this by trying the likely tokens first; this module does the
same through the low-level API:

1. take the ``TOP_K`` highest logits (numpy ``argpartition``);
2. apply the grammar sampler to just those — rejected tokens get ``-inf``;
3. only if none survives, apply it to the full vocabulary (rare: measured 6–10 times in a
   60-token agent reply, mostly where the grammar forces a key or a closing quote);
4. min-p, temperature, sample (seeded), ``accept`` the token into the grammar state.

The result is the same distribution as the library's chain restricted to the grammar
(the library also applies top-k 40 after the grammar), at the cost of an unconstrained step.
The model's KV cache is shared with ``Llama`` (prefix reuse still works): prompt tokens go
through ``Llama.eval`` so ``input_ids``/``n_tokens`` stay true for the next call.
"""

from __future__ import annotations

import codecs
import ctypes
from collections.abc import Iterator
from typing import Any

import llama_cpp
import numpy as np

from rilai_desktop.llm.errors import ModelCallError
from rilai_desktop.llm.json_writer import TOP_K, sample_min_p


class GrammarSampler:
    """One compiled grammar; ``reset()`` before each call, reused across calls."""

    def __init__(self, vocab: Any, gbnf: str) -> None:
        self._ptr = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
        if not self._ptr:
            raise ModelCallError("llama.cpp rejected the JSON grammar built from the schema")

    def reset(self) -> None:
        llama_cpp.llama_sampler_reset(self._ptr)

    def apply(self, array: Any) -> None:
        llama_cpp.llama_sampler_apply(self._ptr, ctypes.byref(array))

    def accept(self, token: int) -> None:
        llama_cpp.llama_sampler_accept(self._ptr, token)

    def close(self) -> None:
        if self._ptr:
            llama_cpp.llama_sampler_free(self._ptr)
            self._ptr = None


class _Candidates:
    """A reusable ``llama_token_data`` buffer with a numpy view of its fields."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.buffer = (llama_cpp.llama_token_data * size)()
        self.view = np.ctypeslib.as_array(self.buffer)

    def load(self, ids: np.ndarray[Any, Any], logits: np.ndarray[Any, Any]) -> Any:
        n = len(ids)
        self.view["id"][:n] = ids
        self.view["logit"][:n] = logits
        self.view["p"][:n] = 0.0
        return llama_cpp.llama_token_data_array(data=self.buffer, size=n, selected=-1, sorted=False)

    def valid(self, n: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        logits = self.view["logit"][:n]
        ok = np.isfinite(logits)
        return self.view["id"][:n][ok].copy(), logits[ok].copy()


class ConstrainedDecoder:
    """Decodes with a grammar on one ``llama_cpp.Llama`` (the caller holds its lock)."""

    def __init__(self, llm: Any) -> None:
        self._llm = llm
        self._n_vocab = int(llm.n_vocab())
        self._top = _Candidates(TOP_K)
        self._full = _Candidates(self._n_vocab)
        self._all_ids = np.arange(self._n_vocab, dtype=np.int32)
        self.full_vocab_steps = 0  # steps that needed the whole vocabulary (diagnostics)

    def prefill(self, tokens: list[int]) -> None:
        """Evaluate the prompt, reusing the longest prefix already in the KV cache."""
        llm = self._llm
        common = 0
        for a, b in zip(llm.input_ids[: llm.n_tokens], tokens, strict=False):
            if a != b:
                break
            common += 1
        reuse = min(common, len(tokens) - 1)  # always decode >= 1 token: fresh logits
        llm.n_tokens = max(reuse, 0)
        llm.eval(tokens[reuse:])

    def tokens(
        self, grammar: GrammarSampler, max_tokens: int, temperature: float, seed: int
    ) -> Iterator[int]:
        """Yield sampled tokens until the grammar is complete (EOG) or ``max_tokens``."""
        llm = self._llm
        vocab = llm._model.vocab
        ctx = llm._ctx.ctx
        rng = np.random.default_rng(seed)
        grammar.reset()
        for _ in range(max_tokens):
            logits = np.ctypeslib.as_array(
                llama_cpp.llama_get_logits_ith(ctx, -1), shape=(self._n_vocab,)
            )
            token = self._pick(grammar, logits, temperature, rng)
            if llama_cpp.llama_vocab_is_eog(vocab, token):
                return
            grammar.accept(token)
            yield token
            llm.eval([token])

    def _pick(
        self,
        grammar: GrammarSampler,
        logits: np.ndarray[Any, Any],
        temperature: float,
        rng: np.random.Generator,
    ) -> int:
        top = np.argpartition(logits, -TOP_K)[-TOP_K:]
        grammar.apply(self._top.load(top, logits[top]))
        ids, values = self._top.valid(TOP_K)
        if len(ids) == 0:
            self.full_vocab_steps += 1
            grammar.apply(self._full.load(self._all_ids, logits))
            ids, values = self._full.valid(self._n_vocab)
            if len(ids) == 0:
                raise ModelCallError("the grammar allows no token here (a broken schema?)")
            if len(ids) > TOP_K:
                keep = np.argpartition(values, -TOP_K)[-TOP_K:]
                ids, values = ids[keep], values[keep]
        return sample_min_p(ids, values, temperature, rng)


def utf8_pieces(llm: Any, tokens: Iterator[int]) -> Iterator[str]:
    """Detokenize a token stream into text pieces without splitting UTF-8 characters."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for token in tokens:
        text = decoder.decode(llm.detokenize([token]))
        if text:
            yield text
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail
