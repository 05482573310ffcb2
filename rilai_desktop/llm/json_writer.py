"""The structured writer: a JSON reply written along a compiled schema plan.

Measured on this machine (docs/turn.md, "Agent decoding"): with llama.cpp's grammar sampler
every token of an agent's reply — each brace, quote and key — costs a decode step plus a
grammar check, about 13 ms per token on the 135M model, and an agent reply is ~60 tokens
of which half are fixed by the schema. This writer follows the plan of ``json_plan``
instead:

- **Fixed text** (``{"observation":"``, ``","urgency":``, a closing ``}``) is never decoded
  token by token: it is queued and evaluated in one batch together with the token picked
  just before it (prompt speed, ~2× cheaper per token than a decode step, and no sampling).
- **Choices** — an enum value, whether an optional property or another array item comes —
  are a trie over the options' tokens: one decode step where they differ, restricted to the
  tokens that continue an option; shared tokens are queued like fixed text.
- **String contents** are sampled from the top candidates (min-p, temperature), restricted
  by a vocabulary table to tokens without quotes, backslashes or control bytes. The model
  ends a string by choosing a token that ends with a quote (``."``, kept as is) or starts
  with one (``"``, ``","``, ``"}``: only the quote is kept, and it is tokenised together with
  the fixed text that follows, as the model itself would write ``","urgency":``). A string
  closes itself at its length cap.
- Fixed text shared by all options of a choice (the opening quote of a string enum, its
  closing quote) joins the fixed text around it, for the same reason: the model reads the
  tokenisation it would have produced.

The reply is always valid JSON that fits the plan (``validate_plan_output``), closes within
its caps, and costs one decode step per *chosen* token only. The model sees the same text
it would have written under the grammar; only tokenisation of the fixed parts may differ.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from rilai_desktop.llm.json_plan import ArrNode, EnumNode, Node, ObjNode, StrNode

TOP_K = 40
MIN_P = 0.05
_QUOTE, _BACKSLASH = 0x22, 0x5C


def sample_min_p(
    ids: np.ndarray[Any, Any],
    values: np.ndarray[Any, Any],
    temperature: float,
    rng: np.random.Generator,
) -> int:
    """Greedy at temperature 0; else min-p on the raw distribution, then a seeded draw."""
    if len(ids) == 1 or temperature <= 0:
        return int(ids[int(np.argmax(values))])
    keep = np.exp(values - values.max()) >= MIN_P
    ids, values = ids[keep], values[keep]
    probs = np.exp((values - values.max()) / temperature)
    return int(rng.choice(ids, p=probs / probs.sum()))


class TokenModel(Protocol):
    """What the writer needs from a loaded model (llama.cpp here, a toy in the tests)."""

    def tokenize(self, text: str) -> list[int]: ...

    def eval(self, tokens: Sequence[int]) -> None: ...

    def logits(self) -> np.ndarray[Any, Any]: ...


@dataclass(frozen=True)
class VocabTable:
    """Per-token facts the string sampler needs, computed once per model."""

    pieces: tuple[bytes, ...]
    content_ok: np.ndarray[Any, Any]  # bool: may appear inside a JSON string as is
    closes: np.ndarray[Any, Any]  # bool: string-safe bytes then one closing quote, at the end
    length: np.ndarray[Any, Any]  # int: bytes before any closing quote
    quote_first: np.ndarray[Any, Any]  # bool: starts with a quote (`"`, `",`, `","`, `"}`)

    @classmethod
    def build(cls, pieces: Sequence[bytes], special: Sequence[bool]) -> VocabTable:
        n = len(pieces)
        content_ok = np.zeros(n, dtype=bool)
        closes = np.zeros(n, dtype=bool)
        length = np.zeros(n, dtype=np.int32)
        quote_first = np.zeros(n, dtype=bool)
        for i, piece in enumerate(pieces):
            if special[i] or not piece:
                continue
            quote_first[i] = piece.startswith(b'"')
            body = piece[:-1] if piece.endswith(b'"') else piece
            if any(b < 0x20 or b in (_QUOTE, _BACKSLASH) or b == 0x7F for b in body):
                continue
            length[i] = len(body)
            if body is piece:
                content_ok[i] = True
            else:
                closes[i] = True
        return cls(tuple(pieces), content_ok, closes, length, quote_first)


class ReplyCut(Exception):
    """The reply reached ``max_tokens`` before the plan closed."""


class JsonWriter:
    """Writes one reply; iterate :meth:`write` for the bytes as they are committed."""

    def __init__(
        self,
        model: TokenModel,
        table: VocabTable,
        *,
        temperature: float,
        seed: int,
        max_tokens: int,
    ) -> None:
        self._model = model
        self._table = table
        self._temperature = temperature
        self._rng = np.random.default_rng(seed)
        self._max_tokens = max_tokens
        self._ids: list[int] = []  # queued token ids (always before the queued text)
        self._text = ""  # queued fixed text, tokenised at the next flush
        self.tokens = 0  # tokens fed to the model after the prompt
        self.decode_steps = 0  # steps where the model chose (diagnostics, benchmarks)
        self.choice = 0  # the option the last _choose picked

    # ── queue and flush ─────────────────────────────────────────────────────
    def _fixed(self, text: str) -> bytes:
        self._text += text
        return text.encode("utf-8")

    def _chosen(self, token: int) -> bytes:
        if self._text:  # keep order: text queued before this id becomes ids first
            self._ids += self._model.tokenize(self._text)
            self._text = ""
        self._ids.append(token)
        return self._table.pieces[token]

    def _flush(self) -> None:
        ids = self._ids + (self._model.tokenize(self._text) if self._text else [])
        self._ids, self._text = [], ""
        if not ids:
            return
        self.tokens += len(ids)
        if self.tokens > self._max_tokens:
            raise ReplyCut(f"the reply needs more than {self._max_tokens} tokens")
        self._model.eval(ids)

    def _logits(self) -> np.ndarray[Any, Any]:
        self._flush()
        self.decode_steps += 1
        return self._model.logits()

    # ── sampling ────────────────────────────────────────────────────────────
    def _sample(self, ids: np.ndarray[Any, Any], values: np.ndarray[Any, Any]) -> int:
        return sample_min_p(ids, values, self._temperature, self._rng)

    # ── the plan ────────────────────────────────────────────────────────────
    def write(self, node: Node) -> Iterator[bytes]:
        yield from self._value(node, opened=False)

    def _value(self, node: Node, *, opened: bool) -> Iterator[bytes]:
        if isinstance(node, StrNode):
            yield from self._string(node, opened=opened)
        elif isinstance(node, EnumNode):
            yield from self._choose(list(node.options))
        elif isinstance(node, ObjNode):
            yield from self._object(node, opened=opened)
        else:
            yield from self._array(node, opened=opened)

    def _choose(self, options: list[str]) -> Iterator[bytes]:
        """Write one of ``options`` (texts), letting the model pick where they differ.

        Yields the chosen bytes; the chosen index is left in ``self.choice``.
        """
        head = _common_prefix(options)
        tail = _common_prefix([o[len(head) :][::-1] for o in options])[::-1]
        if len(options) > 1 and head:
            yield self._fixed(head)
            options = [o[len(head) :] for o in options]
        if len(options) > 1 and tail and all(len(o) > len(tail) for o in options):
            options = [o[: len(o) - len(tail)] for o in options]
        else:
            tail = ""
        yield from self._pick(options)
        if tail:
            yield self._fixed(tail)

    def _pick(self, options: list[str]) -> Iterator[bytes]:
        seqs = [self._model.tokenize(o) for o in options]
        alive = list(range(len(options)))
        depth = 0
        while True:
            done = [i for i in alive if len(seqs[i]) == depth]
            going = [i for i in alive if len(seqs[i]) > depth]
            if not going or (len(alive) == 1 and done):
                self.choice = (done or alive)[0]
                return
            nexts = sorted({seqs[i][depth] for i in going})
            if len(nexts) == 1 and not done:
                token = nexts[0]
            else:
                logits = self._logits()
                if done and int(np.argmax(logits)) not in nexts:
                    self.choice = done[0]  # the model would stop here: the shorter option
                    return
                ids = np.asarray(nexts, dtype=np.int64)
                token = self._sample(ids, logits[ids])
            yield self._chosen(token)
            alive = [i for i in going if seqs[i][depth] == token]
            depth += 1

    def _string(self, node: StrNode, *, opened: bool) -> Iterator[bytes]:
        if not opened:
            yield self._fixed('"')
        table = self._table
        used = 0
        while True:
            room = node.max_chars - used
            if room <= 0:
                yield self._fixed('"')
                return
            logits = self._logits()
            fits = table.length <= room
            allowed = table.content_ok & fits
            allowed |= table.closes & fits & (table.length + used >= node.min_chars)
            if used >= node.min_chars:
                allowed |= table.quote_first
            top = np.argpartition(logits, -TOP_K)[-TOP_K:]
            ids = top[allowed[top]]
            if len(ids) == 0:
                ids = np.flatnonzero(allowed)
                if len(ids) == 0:
                    yield self._fixed('"')
                    return
            token = self._sample(ids, logits[ids])
            if table.quote_first[token]:  # the model closes: the quote joins the next text
                yield self._fixed('"')
                return
            yield self._chosen(token)
            if table.closes[token]:
                return
            used += int(table.length[token])

    def _object(self, node: ObjNode, *, opened: bool) -> Iterator[bytes]:
        if not opened:
            yield self._fixed("{")
        props = node.props
        first = True
        i = 0
        while i < len(props):
            comma = "" if first else ","
            if props[i].required:
                yield self._fixed(comma + props[i].key)
                yield from self._value(props[i].node, opened=False)
                first = False
                i += 1
                continue
            targets: list[int] = []  # -1: close the object here
            for j in range(i, len(props)):
                targets.append(j)
                if props[j].required:
                    break
            else:
                targets.append(-1)
            options = [comma + props[j].key if j >= 0 else "}" for j in targets]
            yield from self._choose(options)
            j = targets[self.choice]
            if j < 0:
                return
            yield from self._value(props[j].node, opened=False)
            first = False
            i = j + 1
        yield self._fixed("}")

    def _array(self, node: ArrNode, *, opened: bool) -> Iterator[bytes]:
        if not opened:
            yield self._fixed("[")
        count = 0
        while True:
            if count == node.max_items:
                yield self._fixed("]")
                return
            sep = "," if count else ""
            if count < node.min_items:
                yield self._fixed(sep)
                yield from self._value(node.item, opened=False)
                count += 1
                continue
            item = node.item
            if isinstance(item, EnumNode):
                options = ["]", *(sep + o for o in item.options)]
                yield from self._choose(options)
                if self.choice == 0:
                    return
                count += 1
                continue
            opener = sep + _opener(item)
            yield from self._choose(["]", opener])
            if self.choice == 0:
                return
            yield from self._value(item, opened=True)
            count += 1


def _common_prefix(texts: list[str]) -> str:
    first, last = min(texts), max(texts)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


def _opener(node: Node) -> str:
    if isinstance(node, StrNode):
        return '"'
    if isinstance(node, ObjNode):
        return "{"
    return "["


# ── llama.cpp ───────────────────────────────────────────────────────────────
class LlamaTokens:
    """:class:`TokenModel` over a ``llama_cpp.Llama`` (the caller holds the model's lock)."""

    def __init__(self, llm: Any) -> None:
        self._llm = llm
        self._n_vocab = int(llm.n_vocab())

    def tokenize(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def eval(self, tokens: Sequence[int]) -> None:
        self._llm.eval(list(tokens))

    def logits(self) -> np.ndarray[Any, Any]:
        import llama_cpp

        ptr = llama_cpp.llama_get_logits_ith(self._llm._ctx.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))

    def table(self) -> VocabTable:
        import llama_cpp

        vocab = self._llm._model.vocab
        buf = ctypes.create_string_buffer(256)
        pieces: list[bytes] = []
        special: list[bool] = []
        for token in range(self._n_vocab):
            n = llama_cpp.llama_token_to_piece(vocab, token, buf, 256, 0, False)
            pieces.append(buf.raw[: max(n, 0)])
            special.append(
                bool(llama_cpp.llama_vocab_is_eog(vocab, token))
                or bool(llama_cpp.llama_vocab_is_control(vocab, token))
            )
        return VocabTable.build(pieces, special)
