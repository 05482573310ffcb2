"""Seed 004's knowledge bases in the turn: a manifest asks for them, recall searches them,
and a hit reaches MEMORY_RETRIEVED, the agents that declare ``knowledge`` and the voice."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from rilai_desktop.contracts import EventKind, validate_payload
from rilai_desktop.contracts.agent import KNOWLEDGE_BASES
from rilai_desktop.contracts.payloads import InvalidPayload
from rilai_desktop.errors import AgentManifestError
from rilai_desktop.turn.agents.loader import AgentRegistry, load_registry
from rilai_desktop.turn.ports import Recall
from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.speaking.voice_prompt import memory_lines
from tests.turn.conftest import PROMPTS, PROMPTS_DIR, Rig

LEASE = "The lease on the flat ends on 30 June, with two months' notice."
# "is it true" wakes reasoning.researcher, which reads kb_core
QUESTION = "is it true that the lease on my flat ends in June?"


def test_the_registry_asks_for_the_knowledge_bases_its_manifests_name() -> None:
    registry = load_registry(PROMPTS)
    asking = [s.id for s in registry.all() if s.manifest.knowledge_bases]
    assert "reasoning.researcher" in asking
    assert registry.knowledge_bases() == ("kb_core",)
    assert set(registry.knowledge_bases()) <= set(KNOWLEDGE_BASES)
    for spec in registry.all():
        assert bool(spec.manifest.knowledge_bases) == ("knowledge" in spec.manifest.inputs)


def test_a_kb_hit_reaches_the_event_the_declaring_agent_and_the_voice(rig: Rig) -> None:
    rig.memory.documents = {"kb_core": {"lease": LEASE, "cake": "a recipe for lemon cake"}}
    result = rig.runner.run_turn(QUESTION)
    assert rig.memory.kb_searches == ["kb_core"]
    (recalled,) = rig.log.events(kind=EventKind.MEMORY_RETRIEVED, turn_id=result.turn_id)
    knowledge = recalled.payload["knowledge"]
    assert [(h["kb"], h["id"], h["text"]) for h in knowledge] == [("kb_core", "lease", LEASE)]
    assert 0 < knowledge[0]["score"] <= 1
    waves = rig.log.events(kind=EventKind.WAVE_STARTED, turn_id=result.turn_id)
    assert "reasoning.researcher" in [a for e in waves for a in e.payload["agents"]]
    contexts = {r.messages[0].content for r in rig.agents.requests}
    assert contexts and all("From their documents: The lease on the flat" in c for c in contexts)
    voice = "\n".join(m.content for r in rig.voice.requests for m in r.messages)
    assert "from their documents: The lease on the flat ends on 30 June" in voice


def test_no_manifest_asking_means_no_kb_search(rig: Rig) -> None:
    rig.memory.documents = {"kb_core": {"lease": LEASE}}
    registry = rig.runner.waves.registry
    stripped = AgentRegistry(
        dataclasses.replace(
            spec,
            manifest=spec.manifest.model_copy(
                update={
                    "knowledge_bases": [],
                    "inputs": [i for i in spec.manifest.inputs if i != "knowledge"],
                }
            ),
        )
        for spec in registry.all()
    )
    assert stripped.knowledge_bases() == ()
    rig.runner.waves.registry = stripped
    result = rig.runner.run_turn(QUESTION)
    assert rig.memory.kb_searches == []
    (recalled,) = rig.log.events(kind=EventKind.MEMORY_RETRIEVED, turn_id=result.turn_id)
    assert recalled.payload["knowledge"] == []
    assert not any("From their documents" in r.messages[0].content for r in rig.agents.requests)


def test_an_unrelated_or_empty_knowledge_base_adds_nothing(rig: Rig) -> None:
    rig.memory.documents = {"kb_core": {"cake": "a recipe for lemon cake"}, "kb_1": {}}
    assert rig.memory.recall(QUESTION, knowledge_bases=("kb_core", "kb_1")).knowledge == []
    assert rig.memory.kb_searches == ["kb_core"]  # the empty one is not searched


def test_the_voice_notes_say_at_most_two_documents() -> None:
    docs = [
        {"kb": "kb_core", "id": str(i), "text": f"document number {i} about my lease", "score": 1}
        for i in range(4)
    ]
    lines = [line for line in memory_lines(Recall(knowledge=docs)) if "documents" in line]
    assert lines == [
        "from their documents: document number 0 about their lease",
        "from their documents: document number 1 about their lease",
    ]


def test_old_memory_retrieved_payloads_stay_readable() -> None:
    old = {"episodes": [], "user_facts": [], "open_threads": []}
    validate_payload(EventKind.MEMORY_RETRIEVED, old)  # no items, no knowledge: fine
    hit = {"kb": "kb_core", "id": "a", "text": "t", "score": 0.5}
    validate_payload(EventKind.MEMORY_RETRIEVED, {**old, "items": [], "knowledge": [hit]})
    with pytest.raises(InvalidPayload, match="knowledge"):
        validate_payload(EventKind.MEMORY_RETRIEVED, {**old, "knowledge": [{"text": "t"}]})


@pytest.fixture
def prompts_copy(tmp_path: Path) -> Path:
    shutil.copytree(PROMPTS_DIR, tmp_path / "prompts")
    return tmp_path / "prompts"


def test_a_bad_knowledge_base_or_a_lone_knowledge_input_is_refused(prompts_copy: Path) -> None:
    path = prompts_copy / "agents" / "reasoning" / "researcher.yaml"
    original = path.read_text("utf-8")
    path.write_text(original.replace("[kb_core]", "[kb_secret]"), "utf-8")
    with pytest.raises(AgentManifestError, match="knowledge_bases"):
        load_registry(Prompts(prompts_copy))
    path.write_text(original.replace("knowledge_bases: [kb_core]", ""), "utf-8")
    with pytest.raises(AgentManifestError, match="go together"):
        load_registry(Prompts(prompts_copy))
    path.write_text(original.replace(", knowledge]", "]"), "utf-8")
    with pytest.raises(AgentManifestError, match="go together"):
        load_registry(Prompts(prompts_copy))
