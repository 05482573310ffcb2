"""The llama.cpp adapter: one loaded GGUF behind the LLM port.

- The chat template comes from the GGUF metadata; without one, the documented ChatML
  fallback (gguf.CHATML_TEMPLATE) is used, or NoChatTemplateError when the settings say so.
- A JSON schema is followed by the structured writer (``json_plan`` + ``json_writer``: the
  schema's fixed text is batched, only choices and string contents are decoded) when it
  fits that subset, else it becomes a llama.cpp grammar (never regex repair); ``parsed`` holds the
  decoded object and callers still validate it against their pydantic contract.
- Prompts that share a prefix with the previous call on this model reuse the KV cache
  (llama-cpp-python keeps the evaluated tokens and only decodes the new suffix); the number
  of reused tokens is reported as ``usage.cached_prompt_tokens``.
- A llama.cpp context is not thread-safe: every call holds this model's lock, a stream
  holds it until it is exhausted or closed.
- MODEL_CALL_STARTED / MODEL_CALL_COMPLETED go to the ``on_event`` sink with tokens and ms.
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.llm import (
    ChatMessage,
    Completion,
    CompletionStream,
    DecodeGuard,
    Usage,
)
from rilai_desktop.llm.constrained import ConstrainedDecoder, GrammarSampler, utf8_pieces
from rilai_desktop.llm.decode_guard import GuardIndex
from rilai_desktop.llm.errors import (
    ModelCallError,
    ModelFileCorruptError,
    NoChatTemplateError,
    PromptTooLongError,
)
from rilai_desktop.llm.gguf import CHATML_TEMPLATE, check_file
from rilai_desktop.llm.json_plan import Node, UnsupportedSchema, compile_schema
from rilai_desktop.llm.json_writer import JsonWriter, LlamaTokens, ReplyCut, VocabTable
from rilai_desktop.llm.messages import as_messages, split_reasoning

if TYPE_CHECKING:
    from llama_cpp import LogitsProcessorList

OnModelEvent = Callable[[EventKind, dict[str, Any]], None]  # the caller records these


@dataclass(frozen=True)
class LlamaOptions:
    n_ctx: int = 4096
    n_threads: int = 1
    n_threads_batch: int | None = None  # prompt processing; None: n_threads
    n_gpu_layers: int = 0
    n_batch: int = 512
    seed: int = 1234
    template_fallback: Literal["chatml", "error"] = "chatml"


class LlamaCppModel:
    """One GGUF file loaded in llama.cpp."""

    def __init__(
        self,
        path: Path,
        *,
        model_id: str | None = None,
        options: LlamaOptions | None = None,
        expected_size: int | None = None,
        on_event: OnModelEvent | None = None,
    ) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.path = Path(path)
        self.options = options or LlamaOptions()
        self._model_id = model_id or self.path.stem
        self._on_event = on_event
        self._lock = threading.Lock()
        self._grammars: dict[str, GrammarSampler] = {}
        self._plans: dict[str, Node | None] = {}  # None: the schema needs the grammar path
        self._decoder: ConstrainedDecoder | None = None
        self._tokens: LlamaTokens | None = None
        self._table: VocabTable | None = None
        self.structured = True  # False: always the grammar sampler (benchmarks, tests)
        self.last_cached_prompt_tokens = 0
        check_file(self.path, expected_size=expected_size)
        o = self.options
        try:
            self._llm = Llama(
                model_path=str(self.path),
                n_ctx=o.n_ctx,
                n_threads=o.n_threads,
                n_threads_batch=o.n_threads_batch or o.n_threads,
                n_gpu_layers=o.n_gpu_layers,
                n_batch=o.n_batch,
                seed=o.seed,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelFileCorruptError(
                f"llama.cpp could not load {self.path}: {exc} (truncated or damaged?)",
                context={"path": str(self.path)},
                recovery_suggestions=["Run `rilai models verify`, then reinstall the tier"],
            ) from exc
        meta = self._llm.metadata
        template = meta.get("tokenizer.chat_template")
        self.has_chat_template = template is not None
        if template is None:
            if o.template_fallback == "error":
                self._llm.close()
                raise NoChatTemplateError(
                    f"{self.path.name} has no chat template in its metadata",
                    context={"path": str(self.path)},
                    recovery_suggestions=[
                        "Use an instruct/chat GGUF (a base model will not chat)",
                        "Or set llm.chat_template_fallback = chatml to use ChatML",
                    ],
                )
            template = CHATML_TEMPLATE
        eos = self._llm.token_eos()
        bos = self._llm.token_bos()
        self._formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=self._llm._model.token_get_text(eos) if eos != -1 else "",
            bos_token=self._llm._model.token_get_text(bos) if bos != -1 else "",
            stop_token_ids=[eos],
        )

    # ── the port ────────────────────────────────────────────────────────────
    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def n_ctx(self) -> int:
        return int(self._llm.n_ctx())

    def format_prompt(self, messages: Sequence[ChatMessage]) -> tuple[str, list[str]]:
        result = self._formatter(messages=[m.as_dict() for m in messages])  # type: ignore[misc]
        stop = (
            result.stop if isinstance(result.stop, list) else [result.stop] if result.stop else []
        )
        return result.prompt, [s for s in stop if s]

    def complete(
        self,
        messages: Sequence[ChatMessage | Mapping[str, str]],
        *,
        schema: Mapping[str, Any] | None = None,
        max_tokens: int = 256,
        temperature: float = 0.7,
        stop: Sequence[str] | None = None,
        stream: bool = False,
        guard: DecodeGuard | None = None,
    ) -> Completion | CompletionStream:
        prompt, template_stop = self.format_prompt(as_messages(messages))
        return self.complete_prompt(
            prompt,
            schema=schema,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=[*template_stop, *(stop or [])],
            stream=stream,
            guard=guard,
        )

    def format_prompt_pair(self, system: str, user: str) -> str:
        """The formatted prompt for one system + one user message (benchmarks, tests)."""
        return self.format_prompt([ChatMessage("system", system), ChatMessage("user", user)])[0]

    def prefill(self, messages: Sequence[ChatMessage | Mapping[str, str]]) -> int:
        """Evaluate the formatted prompt into the KV cache now; the tokens evaluated.

        The turn runner calls it between turns with the next voice prompt's stable part
        (static system + conversation), so the next reply pays only for what is new. A
        prompt that does not fit the context is left alone (0).
        """
        prompt, _ = self.format_prompt(as_messages(messages))
        with self._lock:
            llm = self._llm
            tokens = llm.tokenize(prompt.encode("utf-8"), special=True)
            if not tokens or len(tokens) >= self.n_ctx:
                return 0
            cached = self._cached_prefix(tokens)
            if self._decoder is None:
                self._decoder = ConstrainedDecoder(llm)
            try:
                self._decoder.prefill(tokens)
            except (RuntimeError, ValueError) as exc:
                raise ModelCallError(f"{self._model_id} failed to prefill: {exc}") from exc
            return len(tokens) - cached

    def complete_prompt(
        self,
        prompt: str,
        *,
        schema: Mapping[str, Any] | None = None,
        max_tokens: int = 256,
        temperature: float = 0.7,
        stop: Sequence[str] | None = None,
        stream: bool = False,
        guard: DecodeGuard | None = None,
    ) -> Completion | CompletionStream:
        """Complete an already formatted prompt (the chat path and the benchmarks use it).

        A ``guard`` applies to free text only (a schema's grammar already bounds a reply).
        """
        pieces = self._run(prompt, schema, max_tokens, temperature, list(stop or []), guard)
        state: dict[str, Any] = {}

        def collect() -> Iterator[str]:
            for piece in pieces:
                if isinstance(piece, dict):
                    state.update(piece)
                else:
                    yield piece

        if stream:
            return CompletionStream(collect(), lambda: state["completion"])
        for _ in collect():
            pass
        completion: Completion = state["completion"]
        return completion

    # ── the work ────────────────────────────────────────────────────────────
    def _grammar(self, schema: Mapping[str, Any]) -> GrammarSampler:
        from llama_cpp.llama_grammar import json_schema_to_gbnf

        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            # Properties keep the schema's order (the model writes what it noticed before
            # its claims), and the optional space between JSON tokens is removed: a tiny
            # model otherwise spends a decode step on each one.
            gbnf = json_schema_to_gbnf(json.dumps(schema))
            gbnf = gbnf.replace('space ::= " "?', 'space ::= ""')
            self._grammars[key] = GrammarSampler(self._llm._model.vocab, gbnf)
        sampler: GrammarSampler = self._grammars[key]
        return sampler

    def _plan(self, schema: Mapping[str, Any]) -> Node | None:
        """The structured writer's plan for ``schema``, or None when it needs a grammar."""
        key = json.dumps(schema, sort_keys=True)
        if key not in self._plans:
            try:
                self._plans[key] = compile_schema(schema)
            except UnsupportedSchema:
                self._plans[key] = None
        return self._plans[key] if self.structured else None

    def _structured(
        self, tokens: list[int], plan: Node, max_tokens: int, temperature: float
    ) -> Iterator[tuple[str, str | None]]:
        """The fast path: fixed text batched, a decode step only where the model chooses."""
        llm = self._llm
        if self._decoder is None:
            self._decoder = ConstrainedDecoder(llm)
        if self._tokens is None:
            self._tokens = LlamaTokens(llm)
        if self._table is None:
            self._table = self._tokens.table()
        self._decoder.prefill(tokens)
        writer = JsonWriter(
            self._tokens,
            self._table,
            temperature=temperature,
            seed=self.options.seed,
            max_tokens=max_tokens,
        )
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        finish = "stop"
        try:
            for chunk in writer.write(plan):
                text = decoder.decode(chunk)
                if text:
                    yield text, None
        except ReplyCut:
            finish = "length"
        tail = decoder.decode(b"", final=True)
        yield tail, finish

    def _pieces(
        self,
        prompt: str,
        tokens: list[int],
        grammar: GrammarSampler | None,
        max_tokens: int,
        temperature: float,
        stop: list[str],
        plan: Node | None = None,
        guard: DecodeGuard | None = None,
    ) -> Iterator[tuple[str, str | None]]:
        """(text piece, finish reason or None) — the writer, the grammar or the library."""
        llm = self._llm
        if plan is not None:
            yield from self._structured(tokens, plan, max_tokens, temperature)
            return
        if grammar is not None:
            if self._decoder is None:
                self._decoder = ConstrainedDecoder(llm)
            self._decoder.prefill(tokens)
            count = 0

            def counted() -> Iterator[int]:
                nonlocal count
                for token in self._decoder.tokens(  # type: ignore[union-attr]
                    grammar, max_tokens, temperature, self.options.seed
                ):
                    count += 1
                    yield token

            for piece in utf8_pieces(llm, counted()):
                yield piece, None
            yield "", "length" if count >= max_tokens else "stop"
            return
        chunks: Iterator[Any] = llm.create_completion(  # type: ignore[assignment]
            prompt,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=stop or None,
            stream=True,
            logits_processor=None if guard is None else self._guard_processor(guard, tokens),
        )
        for chunk in chunks:
            choice = chunk["choices"][0]
            yield choice.get("text") or "", choice.get("finish_reason")

    def _guard_processor(self, guard: DecodeGuard, prompt: list[int]) -> LogitsProcessorList:
        """llama-cpp-python logits processors that take the guard's banned tokens out."""
        from llama_cpp import LogitsProcessorList

        llm = self._llm

        def tokenize(text: str) -> list[int]:
            return list(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

        index = GuardIndex(guard, prompt, tokenize)
        start: list[int] = []  # the prompt's length as the library sees it, at the first step

        def process(input_ids: Any, scores: Any) -> Any:
            if not start:
                start.append(len(input_ids))
            banned = index.banned([int(t) for t in input_ids[start[0] :]])
            if banned:
                scores[list(banned)] = -float("inf")
            return scores

        return LogitsProcessorList([process])

    def _cached_prefix(self, tokens: list[int]) -> int:
        """How many prompt tokens llama-cpp-python will reuse from the KV cache."""
        llm = self._llm
        evaluated = llm.input_ids[: llm.n_tokens]
        common = 0
        for a, b in zip(evaluated, tokens, strict=False):
            if a != b:
                break
            common += 1
        return common - 1 if common == len(tokens) and common > 0 else common

    def _emit(self, kind: EventKind, payload: dict[str, Any]) -> None:
        if self._on_event is not None:
            self._on_event(kind, payload)

    def _run(
        self,
        prompt: str,
        schema: Mapping[str, Any] | None,
        max_tokens: int,
        temperature: float,
        stop: list[str],
        guard: DecodeGuard | None = None,
    ) -> Iterator[str | dict[str, Any]]:
        with self._lock:
            llm = self._llm
            tokens = llm.tokenize(prompt.encode("utf-8"), special=True)
            n_ctx = self.n_ctx
            if len(tokens) >= n_ctx:
                raise PromptTooLongError(
                    f"The prompt is {len(tokens)} tokens; {self._model_id} has a context of"
                    f" {n_ctx} (llm.n_ctx)",
                    context={"prompt_tokens": len(tokens), "n_ctx": n_ctx},
                    recovery_suggestions=[
                        "Shorten the conversation or the memory included",
                        "Or raise llm.n_ctx: rilai config set llm.n_ctx 8192",
                    ],
                )
            max_tokens = max(1, min(max_tokens, n_ctx - len(tokens)))
            cached = self._cached_prefix(tokens)
            self.last_cached_prompt_tokens = cached
            self._emit(
                EventKind.MODEL_CALL_STARTED,
                {
                    "model": self._model_id,
                    "prompt_tokens": len(tokens),
                    "cached_prompt_tokens": cached,
                    "schema": schema is not None,
                },
            )
            plan = self._plan(schema) if schema is not None else None
            grammar = self._grammar(schema) if schema is not None and plan is None else None
            t0 = time.perf_counter()
            first: float | None = None
            parts: list[str] = []
            finish: str | None = None
            try:
                for text, reason in self._pieces(
                    prompt, tokens, grammar, max_tokens, temperature, stop, plan, guard
                ):
                    finish = reason or finish
                    if text:
                        if first is None:
                            first = time.perf_counter()
                        parts.append(text)
                        yield text
            except (RuntimeError, ValueError) as exc:
                raise ModelCallError(f"{self._model_id} failed: {exc}") from exc
            latency = (time.perf_counter() - t0) * 1000
            raw = "".join(parts)
            text, reasoning = split_reasoning(raw)
            completion_tokens = (
                len(llm.tokenize(raw.encode("utf-8"), add_bos=False, special=True)) if raw else 0
            )
            usage = Usage(
                len(tokens),
                completion_tokens,
                cached,
                None if reasoning is None else len(reasoning.split()),
            )
            completion = Completion(
                text=text,
                model=self._model_id,
                usage=usage,
                latency_ms=latency,
                finish_reason="length" if finish == "length" else "stop",
                parsed=None,
                reasoning=reasoning,
                time_to_first_token_ms=None if first is None else (first - t0) * 1000,
            )
            self._emit(
                EventKind.MODEL_CALL_COMPLETED,
                {
                    "model": self._model_id,
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                    "reasoning_tokens": usage.reasoning_tokens,
                    "latency_ms": round(latency),
                    "cached_prompt_tokens": cached,
                    "finish_reason": completion.finish_reason,
                    "ttft_ms": None if first is None else round((first - t0) * 1000),
                },
            )
            # parsed after MODEL_CALL_COMPLETED: a reply cut by max_tokens still was a call
            parsed = None
            if schema is not None:
                try:
                    # strict=False: the grammar lets a raw newline into a string
                    parsed = json.loads(text, strict=False)
                except json.JSONDecodeError as exc:
                    raise ModelCallError(
                        f"{self._model_id} returned JSON that does not parse ({exc});"
                        f" finish reason {finish}",
                        recovery_suggestions=["Raise max_tokens if the reply was cut off"],
                    ) from exc
            if parsed is not None:
                completion = dataclasses.replace(completion, parsed=parsed)
            yield {"completion": completion}

    def reset_cache(self) -> None:
        """Forget the evaluated tokens, so the next call pays its full prompt (benchmarks)."""
        with self._lock:
            self._llm.reset()  # type: ignore[no-untyped-call]

    def close(self) -> None:
        with self._lock:
            for sampler in self._grammars.values():
                sampler.close()
            self._grammars.clear()
            self._llm.close()
