"""Deliberation: the agents' claims with who supports and who opposes each, and each
round's consensus (with what was contested and who was asked to follow up).

Reads the ``claims`` of AGENT_COMPLETED (``id``, ``text``, ``type``, ``source_agent``,
``supports``/``opposes`` as claim ids), DELIB_ROUND_STARTED / DELIB_ROUND_COMPLETED
(``round``, ``consensus``, ``active_claims``, ``contested``, ``followups``,
``exit_reason``) and CONSENSUS_UPDATED (``level``, ``by_type``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QTreeWidgetItem, QWidget

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.ui.inspector.fields import (
    as_dict,
    as_int,
    as_list,
    as_str,
    as_strs,
    fmt_num,
)
from rilai_desktop.ui.inspector.panel import (
    Panel,
    make_table,
    make_tree,
    set_cell,
    table_texts,
    tree_item,
    tree_texts,
)

CLAIM_HEADERS = ["Claim", "Type", "Agent", "For", "Against"]


@dataclass
class ClaimRow:
    claim_id: str
    text: str
    type: str
    agent: str
    supports: list[str] = field(default_factory=list)
    opposes: list[str] = field(default_factory=list)


class DeliberationPanel(Panel):
    title = "Deliberation"
    kinds = frozenset(
        {
            EventKind.AGENT_COMPLETED,
            EventKind.DELIB_ROUND_STARTED,
            EventKind.DELIB_ROUND_COMPLETED,
            EventKind.CONSENSUS_UPDATED,
        }
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.consensus = QLabel("Consensus: –", self)
        self.consensus.setObjectName("deliberation-consensus")
        self.consensus.setAccessibleName("Consensus")
        self.claims = make_table("Claims", CLAIM_HEADERS, self, stretch=0)
        self.rounds = make_tree("Deliberation rounds", ["Round", "Consensus", "Claims", "Exit"])
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.setObjectName("deliberation-splitter")
        splitter.setAccessibleName("Claims and rounds")
        splitter.addWidget(self.claims)
        splitter.addWidget(self.rounds)
        self.layout_.addWidget(self.consensus)
        self.layout_.addWidget(splitter)
        self._claims: dict[str, ClaimRow] = {}
        self._contested: set[str] = set()
        self._round: dict[int, QTreeWidgetItem] = {}
        self._last_round: QTreeWidgetItem | None = None

    def clear(self) -> None:
        self._claims.clear()
        self._contested.clear()
        self._round.clear()
        self._last_round = None
        self.claims.setRowCount(0)
        self.rounds.clear()
        self.consensus.setText("Consensus: –")

    def claim_rows(self) -> list[list[str]]:
        return table_texts(self.claims)

    def round_lines(self) -> list[str]:
        return tree_texts(self.rounds)

    def handle(self, event: EngineEvent) -> None:
        payload = as_dict(event.payload)
        if event.kind is EventKind.AGENT_COMPLETED:
            self._add_claims(payload)
        elif event.kind is EventKind.DELIB_ROUND_STARTED:
            self._round_item(as_int(payload.get("round"), 0) or 0)
        elif event.kind is EventKind.DELIB_ROUND_COMPLETED:
            self._round_done(payload)
        else:
            self._consensus(payload)

    def _add_claims(self, payload: dict[str, object]) -> None:
        agent = as_str(payload.get("agent_id"))
        for raw in as_list(payload.get("claims")):
            claim = as_dict(raw)
            text = as_str(claim.get("text"))
            if not claim or not text:
                continue
            claim_id = as_str(claim.get("id")) or f"{agent}:{len(self._claims)}"
            self._claims[claim_id] = ClaimRow(
                claim_id,
                text,
                as_str(claim.get("type")),
                as_str(claim.get("source_agent")) or agent,
                as_strs(claim.get("supports")),
                as_strs(claim.get("opposes")),
            )
        self._render_claims()

    def _render_claims(self) -> None:
        rows = list(self._claims.values())
        self.claims.setRowCount(len(rows))
        for row, claim in enumerate(rows):
            backers = [c for c in rows if claim.claim_id in c.supports]
            against = [c for c in rows if claim.claim_id in c.opposes]
            text = f"{claim.text}  (contested)" if claim.claim_id in self._contested else claim.text
            set_cell(self.claims, row, 0, text)
            set_cell(self.claims, row, 1, claim.type)
            set_cell(self.claims, row, 2, claim.agent)
            set_cell(self.claims, row, 3, str(len(backers)), _who(backers, "supported by"))
            set_cell(self.claims, row, 4, str(len(against)), _who(against, "opposed by"))
        self.claims.resizeRowsToContents()

    def _round_item(self, number: int) -> QTreeWidgetItem:
        item = self._round.get(number)
        if item is None:
            item = tree_item(self.rounds, [f"Round {number}", "…", "", ""])
            self._round[number] = item
        self._last_round = item
        return item

    def _round_done(self, payload: dict[str, object]) -> None:
        item = self._round_item(as_int(payload.get("round"), 0) or 0)
        level = payload.get("consensus")
        item.setText(1, fmt_num(level))
        active = as_int(payload.get("active_claims"))
        item.setText(2, "" if active is None else f"{active} active")
        item.setText(3, as_str(payload.get("exit_reason")))
        for n in range(3, -1, -1):
            item.setToolTip(n, item.text(n))
        contested = as_strs(payload.get("contested"))
        self._contested.update(contested)
        for claim_id in contested:
            claim = self._claims.get(claim_id)
            tree_item(item, ["contested", "", claim.text if claim else claim_id, ""])
        for agent in as_strs(payload.get("followups")):
            tree_item(item, ["follow-up", "", agent, ""])
        item.setExpanded(True)
        self.consensus.setText(f"Consensus: {fmt_num(level)}")
        if contested:
            self._render_claims()

    def _consensus(self, payload: dict[str, object]) -> None:
        level = fmt_num(payload.get("level"))
        by_type = as_dict(payload.get("by_type"))
        parts = ", ".join(f"{kind} {fmt_num(value)}" for kind, value in by_type.items())
        self.consensus.setText(f"Consensus: {level}" + (f" (by type: {parts})" if parts else ""))
        if self._last_round is not None and parts:
            tree_item(self._last_round, ["by type", level, parts, ""])
            self._last_round.setExpanded(True)


def _who(claims: list[ClaimRow], verb: str) -> str:
    return f"{verb}: " + "; ".join(f"{c.agent}: {c.text}" for c in claims) if claims else ""
