"""The slash commands, once, for every client: the shell's ``/help`` and the window's
completer and help overlay read this table, so a command added here is listed everywhere.

It lives in ``app`` (below both ``cli`` and ``ui``): the shell may not import the window
and the window may not import the shell. What a command *does* stays with each client (the
shell prints tables, the window opens its inspector); what the window shows for /status,
/stance and /memory is written here from the Engine, so it reads like the shell's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rilai_desktop.app.engine import Engine

Client = Literal["shell", "window"]
_COMMAND = re.compile(r"^/[A-Za-z]+$")


@dataclass(frozen=True)
class SlashCommand:
    name: str  # "/status"
    summary: str  # one line, for /help and the completer
    aliases: tuple[str, ...] = ()
    clients: tuple[Client, ...] = ("shell", "window")


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("/help", "this list (F1 in the window)"),
    SlashCommand("/new", "start a new conversation (memory stays)", clients=("window",)),
    SlashCommand("/reset", "start a new conversation (memory stays)"),
    SlashCommand("/status", "session, turns, models, memory, check-ins"),
    SlashCommand("/stance", "Rilai's current stance and modulators"),
    SlashCommand("/why", "what happened inside the last turn"),
    SlashCommand("/memory", "what memory holds, and what the last turn recalled and kept"),
    SlashCommand("/quit", "leave", aliases=("/exit", "/q")),
)


def for_client(client: Client) -> list[SlashCommand]:
    return [c for c in COMMANDS if client in c.clients]


def looks_like_command(text: str) -> bool:
    """One word after a slash ("/status", "/x"); "/usr/bin is odd" is a message."""
    return bool(_COMMAND.match(text.strip()))


def lookup(text: str, client: Client) -> SlashCommand | None:
    word = text.strip().lower()
    for command in for_client(client):
        if word == command.name or word in command.aliases:
            return command
    return None


def help_lines(client: Client) -> list[str]:
    """``  /status   session, turns, …`` — one line per command."""
    return [f"  {c.name:<9} {c.summary}" for c in for_client(client)]


# ── what the window shows (plain text; read on a thread that may touch the Engine) ────────


def status_text(engine: Engine) -> str:
    lines = [
        f"session {engine.session_id[:8]} · turns in this session: {engine.turns_in_session()}",
        f"models loaded: {', '.join(engine.loaded_models()) or 'none yet'}",
    ]
    if engine.memory.available:
        st = engine.memory.stats()
        lines.append(f"memory: {st.total_items} items, {st.total_resources} resources")
    lines.append(f"check-ins: {_daemon_state(engine)}")
    return "\n".join(lines)


def _daemon_state(engine: Engine) -> str:
    if engine.daemon is None:
        return "not running in this window"
    quiet = engine.nudges.state().quiet_reason(datetime.now(UTC))
    return f"running ({quiet})" if quiet else "running"


def stance_text(engine: Engine) -> str:
    session = engine.session
    stance = ", ".join(f"{k} {v:+.2f}" for k, v in session.stance.to_dict().items())
    mods = ", ".join(f"{k} {v:.2f}" for k, v in session.modulators.to_dict().items())
    return f"stance: {stance}\nmodulators: {mods}"


def memory_text(engine: Engine) -> str:
    if not engine.memory.available:
        return "Memory is not open in this window."
    st = engine.memory.stats()
    line = (
        f"memory: {st.total_items} items in {st.total_categories} categories,"
        f" {st.total_resources} resources"
    )
    last = engine.last_result
    if last is not None:
        recall = last.state.recall
        found = len(recall.user_facts) + len(recall.episodes) + len(recall.items)
        line += f"\nlast turn: {found} things recalled; kept: {last.memory_summary or 'nothing'}"
    return line
