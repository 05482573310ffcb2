"""Decode-time guards for free text: spans a reply may not copy, phrases it may not write.

A 0.5B voice copies what is in front of it: the person's message back to them, its own
earlier replies, lines of its private notes; and it writes things a critic then rejects
("You should…" to someone who asked for no advice, "I'm a programming assistant"). Each
rejected reply costs a whole regeneration, which on a 2-core CPU is most of a turn. A
guard stops these while the reply is decoded instead: before each token is sampled, the
tokens that would complete a banned span are taken out of the running.

- ``copy_ngram = n``: no run of ``n`` tokens that already appears in the prompt or earlier
  in the reply. Short quotes (a name, "your sister Maya") stay possible; a copied sentence
  does not. Only the reply's own tokens form the key, so the first ``n - 1`` tokens are
  free (an opening may share a word or two with anything).
- ``phrases``: never written, matched on token ids at a word start (with a leading space
  anywhere, without one at the very start of the reply); a phrase that starts with
  punctuation (";") also without a space anywhere, since it follows a word directly. The
  same words tokenized another way can slip through; the critics still review every
  reply, so a guard only makes their failures rarer, it is never what keeps a reply safe.

:class:`DecodeGuard` itself is a value in the model port (``contracts/llm.py``);
:class:`GuardIndex` is the guard compiled for one prompt; it is pure (token ids in, token
ids out) so it is tested without a model. ``LlamaCppModel`` applies it as a logits
processor; ``ScriptedLLM`` records it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rilai_desktop.contracts.llm import DecodeGuard

Tokenize = Callable[[str], Sequence[int]]


class GuardIndex:
    """Which next tokens are banned, given the prompt's tokens and the reply so far."""

    def __init__(self, guard: DecodeGuard, prompt: Sequence[int], tokenize: Tokenize) -> None:
        self._n = guard.copy_ngram
        self._spans: dict[tuple[int, ...], set[int]] = {}
        if self._n:
            quotable: set[tuple[int, ...]] = set()
            for text in dict.fromkeys(t.strip() for t in guard.allowed):
                for variant in (text, " " + text) if text else ():
                    ids = tuple(tokenize(variant))
                    quotable.update(ids[i : i + self._n] for i in range(len(ids) - self._n + 1))
            for i in range(len(prompt) - self._n + 1):
                span = tuple(prompt[i : i + self._n])
                if span not in quotable:
                    self._add_span(span)
        self._indexed = 0  # reply n-grams already added to _spans
        self._anywhere: dict[tuple[int, ...], set[int]] = {}
        self._at_start: dict[tuple[int, ...], set[int]] = {}
        for phrase in dict.fromkeys(p.strip() for p in guard.phrases):
            if not phrase:
                continue
            forms = [(self._at_start, phrase), (self._anywhere, " " + phrase)]
            if not phrase[0].isalnum():  # punctuation follows a word without a space
                forms.append((self._anywhere, phrase))
            for table, variant in forms:
                tokens = tuple(tokenize(variant))
                if tokens:
                    table.setdefault(tokens[:-1], set()).add(tokens[-1])
        self._lengths = sorted({len(prefix) for prefix in self._anywhere})
        self._start_max = max((len(prefix) for prefix in self._at_start), default=-1)

    def _add_span(self, span: tuple[int, ...]) -> None:
        self._spans.setdefault(span[:-1], set()).add(span[-1])

    def banned(self, reply: Sequence[int]) -> set[int]:
        """The tokens that may not come next after ``reply`` (the tokens generated so far).

        Called once per step with the reply growing by one token each time; the reply's own
        n-grams are indexed as it grows, so it cannot repeat itself either.
        """
        out: set[int] = set()
        n, length = self._n, len(reply)
        if n:
            while self._indexed + n <= length:
                self._add_span(tuple(reply[self._indexed : self._indexed + n]))
                self._indexed += 1
            if length >= n - 1:
                out |= self._spans.get(tuple(reply[length - (n - 1) :]), set())
        for size in self._lengths:
            if size > length:
                break
            out |= self._anywhere.get(tuple(reply[length - size :]), set())
        if length <= self._start_max:
            out |= self._at_start.get(tuple(reply), set())
        return out
