"""The 44 shipped agent manifests and prompts, and the loader's refusals on bad ones."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from rilai_desktop.contracts import MODULATOR_NAMES, SENSOR_NAMES, WorkspaceState
from rilai_desktop.contracts.agent import AgentPriority
from rilai_desktop.errors import AgentManifestError, RilaiError
from rilai_desktop.paths import REPO_ROOT, resolve_paths
from rilai_desktop.turn.agents.agencies import ALL_AGENT_IDS, ALWAYS_ON
from rilai_desktop.turn.agents.context import AGENT_INPUTS
from rilai_desktop.turn.agents.loader import (
    AgentRegistry,
    load_registry,
    yaml_mapping,
)
from rilai_desktop.turn.deliberation.council import ADVICE_WORDING, FIRST_PERSON
from rilai_desktop.turn.prompts import Prompts
from tests.turn.conftest import repo_prompts

PROMPTS = repo_prompts()
AGENTS = PROMPTS.folder / "agents"
# five or more single words separated by commas (optionally "and"/"or" after the comma)
WORD_LIST = re.compile(r"\w+(?:\s*,\s*(?:(?:and|or)\s+)?\w+){4,}")
# an example claim, or any quoted sentence (three or more words) the model could copy
EXAMPLE = re.compile(r'example claim|"\w+(?:\s+\S+){2,}"', re.IGNORECASE)
STANCE_AGENTS = {"social.empathy", "inhibition.censor", "monitoring.trigger_watcher"}
MEMORY_AGENTS = {
    "self.attachment_learner",
    "social.mental_model",
    "social.relationships",
    "planning.long_term",
    "planning.short_term",
    "execution.habits",
    "resource.time",
}


@pytest.fixture(scope="module")
def registry() -> AgentRegistry:
    return load_registry(PROMPTS)


def _yaml(agent_id: str) -> Path:
    agency, name = agent_id.split(".")
    return AGENTS / agency / f"{name}.yaml"


# ── the shipped manifests ────────────────────────────────────────────────────


def test_default_prompts_dir_is_the_repo_prompts_folder() -> None:
    assert repo_prompts().folder == REPO_ROOT / "prompts" == resolve_paths({}).prompts_dir


def test_all_44_agents_load_in_the_agencies_order(registry: AgentRegistry) -> None:
    assert len(registry) == 44
    assert [spec.id for spec in registry.all()] == list(ALL_AGENT_IDS)
    assert all(agent_id in registry for agent_id in ALL_AGENT_IDS)
    assert "emotion.nonexistent" not in registry
    assert registry.get("resource.financial").agency == "resource"


def test_ids_match_folder_and_file_names(registry: AgentRegistry) -> None:
    for spec in registry.all():
        agency, name = spec.id.split(".")
        assert _yaml(spec.id).is_file()
        assert spec.manifest.agency_id == agency
        assert spec.manifest.prompt_template == f"{name}.md"
        assert spec.prompt == (AGENTS / agency / f"{name}.md").read_text("utf-8").strip()


def test_always_on_flags_and_priorities(registry: AgentRegistry) -> None:
    assert [s.id for s in registry.always_on()] == [a for a in ALL_AGENT_IDS if a in ALWAYS_ON]
    assert {s.id for s in registry.always_on()} == set(ALWAYS_ON)
    for spec in registry.all():
        if spec.id in ALWAYS_ON:
            expected = AgentPriority.ALWAYS_ON
        elif spec.agency == "monitoring":
            expected = AgentPriority.MONITOR
        else:
            expected = AgentPriority.NORMAL
        assert spec.manifest.priority is expected, spec.id
        assert spec.always_on == (spec.id in ALWAYS_ON)


def test_manifest_fields_are_in_range(registry: AgentRegistry) -> None:
    slots = set(WorkspaceState.model_fields)
    for spec in registry.all():
        m = spec.manifest
        assert 120 <= m.cost_estimate <= 220, spec.id
        assert m.version == 1
        assert m.cooldown >= 0
        assert m.display_name.strip() and m.description.strip()
        assert m.inputs and set(m.inputs) <= slots, spec.id
        assert "user_message" in m.inputs
        assert "claims" in m.outputs
        assert set(m.outputs) <= {"claims", "stance_delta", "memory_candidates"}


def test_stance_and_memory_outputs_go_to_the_right_few(registry: AgentRegistry) -> None:
    stance = {s.id for s in registry.all() if "stance_delta" in s.manifest.outputs}
    memory = {s.id for s in registry.all() if "memory_candidates" in s.manifest.outputs}
    emotion = {a for a in ALL_AGENT_IDS if a.startswith("emotion.")}
    assert stance == emotion | STANCE_AGENTS
    assert memory == MEMORY_AGENTS
    assert not stance & memory  # no agent pays for both
    assert len(stance) + len(memory) < len(ALL_AGENT_IDS) / 2  # rare


def test_triggers_are_valid(registry: AgentRegistry) -> None:
    for spec in registry.all():
        t = spec.triggers
        assert set(t.sensors) <= set(SENSOR_NAMES), spec.id
        assert set(t.modulators) <= set(MODULATOR_NAMES), spec.id
        assert all(0.0 < w <= 1.0 for w in [*t.sensors.values(), *t.modulators.values()])
        lowered = [k.casefold() for k in t.keywords]
        assert len(lowered) == len(set(lowered)), spec.id
        assert all(k == k.strip() and k.lower() == k for k in t.keywords), spec.id
        if not spec.always_on:  # something must be able to wake it
            assert t.sensors or t.modulators or t.keywords, spec.id
            assert t.keywords, spec.id


@pytest.mark.parametrize("agent_id", ALL_AGENT_IDS)
def test_prompt_is_short_specific_and_list_free(registry: AgentRegistry, agent_id: str) -> None:
    """Changed on purpose (issue 16): the prompt is one short question; the agent answers
    with one of its labels (the runner appends them), never with prose."""
    prompt = registry.get(agent_id).prompt
    assert 4 <= len(prompt.split()) <= 20  # every word is paid on every call
    assert prompt.rstrip().endswith("?")
    assert not WORD_LIST.search(prompt), WORD_LIST.search(prompt)
    assert not EXAMPLE.findall(prompt)  # nothing quoted the model could copy
    assert "{" not in prompt and "json" not in prompt.lower()  # the runner owns the format
    keywords = registry.get(agent_id).triggers.keywords
    assert not [k for k in keywords if f'"{k}"' in prompt.lower()]


@pytest.mark.parametrize("agent_id", ALL_AGENT_IDS)
def test_labels_are_few_and_their_claims_read_as_notes(
    registry: AgentRegistry, agent_id: str
) -> None:
    """The claim a label stands for becomes a key point in the voice's notes: about the
    person in the third person (a first-person claim made the voice answer as them), and
    no advice wording unless it is typed a recommendation (filtered when advice is out)."""
    labels = registry.get(agent_id).labels
    assert 2 <= len(labels) <= 8
    assert len({lab.name for lab in labels}) == len(labels)
    for lab in labels:
        assert not FIRST_PERSON.search(lab.claim), lab
        if lab.type != "recommendation":
            assert not ADVICE_WORDING.search(lab.claim), lab


def test_prompts_never_advise_the_user_directly(registry: AgentRegistry) -> None:
    for spec in registry.all():
        lowered = spec.prompt.lower()
        assert "tell the user to" not in lowered
        assert "advise the user" not in lowered
        assert not lowered.startswith("you should")


# ── the loader's refusals, on temporary copies ───────────────────────────────


@pytest.fixture
def prompts_copy(tmp_path: Path) -> Path:
    target = tmp_path / "prompts"
    shutil.copytree(AGENTS, target / "agents")
    return target


def _expect_error(prompts_dir: Path, *fragments: str) -> AgentManifestError:
    with pytest.raises(AgentManifestError) as info:
        load_registry(Prompts(prompts_dir))
    err = info.value
    assert isinstance(err, RilaiError)
    assert err.code == "RIL-050"
    assert err.recovery_suggestions  # says how to fix it
    for fragment in fragments:
        assert fragment in str(err), str(err)
    return err


def test_a_clean_copy_loads(prompts_copy: Path) -> None:
    assert len(load_registry(Prompts(prompts_copy))) == 44


def test_bad_yaml_is_refused_naming_the_file(prompts_copy: Path) -> None:
    path = prompts_copy / "agents" / "resource" / "financial.yaml"
    path.write_text("id: resource.financial\ninputs: [user_message\n", encoding="utf-8")
    err = _expect_error(prompts_copy, "financial.yaml", "YAML")
    assert err.context["path"] == str(path)


def test_yaml_that_is_not_a_mapping_is_refused(prompts_copy: Path) -> None:
    (prompts_copy / "agents" / "resource" / "financial.yaml").write_text("- a\n- b\n", "utf-8")
    _expect_error(prompts_copy, "financial.yaml", "mapping")


def test_unknown_manifest_field_is_refused(prompts_copy: Path) -> None:
    path = prompts_copy / "agents" / "social" / "empathy.yaml"
    path.write_text(path.read_text("utf-8") + "temperature: 0.9\n", encoding="utf-8")
    _expect_error(prompts_copy, "empathy.yaml", "temperature")


def test_unknown_sensor_and_bad_weight_are_refused(prompts_copy: Path) -> None:
    path = prompts_copy / "agents" / "social" / "empathy.yaml"
    original = path.read_text("utf-8")
    path.write_text(original.replace("vulnerability:", "sadness:"), encoding="utf-8")
    _expect_error(prompts_copy, "empathy.yaml", "sadness")
    path.write_text(original.replace("vulnerability: 0.8", "vulnerability: 1.5"), "utf-8")
    _expect_error(prompts_copy, "empathy.yaml", "1.5")
    path.write_text(original.replace("vulnerability: 0.8", "vulnerability: true"), "utf-8")
    _expect_error(prompts_copy, "empathy.yaml", "vulnerability")
    path.write_text(original.replace("social_risk:", "boredom:"), encoding="utf-8")
    _expect_error(prompts_copy, "empathy.yaml", "boredom")
    path.write_text(original.replace("  keywords:", "  phrases:"), encoding="utf-8")
    _expect_error(prompts_copy, "empathy.yaml", "phrases")


def test_wrong_id_and_wrong_priority_are_refused(prompts_copy: Path) -> None:
    path = prompts_copy / "agents" / "emotion" / "stress.yaml"
    original = path.read_text("utf-8")
    path.write_text(original.replace("id: emotion.stress", "id: emotion.worry"), "utf-8")
    _expect_error(prompts_copy, "stress.yaml", "emotion.stress")
    path.write_text(original.replace("priority: always_on", "priority: normal"), "utf-8")
    _expect_error(prompts_copy, "stress.yaml", "always_on")


def test_unknown_output_and_input_are_refused(prompts_copy: Path) -> None:
    path = prompts_copy / "agents" / "social" / "norms.yaml"
    original = path.read_text("utf-8")
    path.write_text(original.replace("outputs: [claims]", "outputs: [claims, poems]"), "utf-8")
    _expect_error(prompts_copy, "norms.yaml", "poems")
    path.write_text(original.replace("inputs: [", "inputs: [horoscope, "), "utf-8")
    _expect_error(prompts_copy, "norms.yaml", "horoscope")


def test_every_declared_input_is_one_the_turn_provides(registry: AgentRegistry) -> None:
    for spec in registry.all():
        assert set(spec.manifest.inputs) <= AGENT_INPUTS, spec.id


def test_a_workspace_slot_no_turn_provides_is_refused(prompts_copy: Path) -> None:
    # current_goal is a WorkspaceState field, but no agent ever receives it
    assert "current_goal" in WorkspaceState.model_fields
    assert "current_goal" not in AGENT_INPUTS
    path = prompts_copy / "agents" / "social" / "norms.yaml"
    original = path.read_text("utf-8")
    path.write_text(original.replace("inputs: [", "inputs: [current_goal, "), "utf-8")
    _expect_error(prompts_copy, "norms.yaml", "current_goal")


def test_missing_prompt_is_refused(prompts_copy: Path) -> None:
    (prompts_copy / "agents" / "reasoning" / "debugger.md").unlink()
    _expect_error(prompts_copy, "debugger.md", "missing")


def test_empty_or_binary_prompt_is_refused(prompts_copy: Path) -> None:
    path = prompts_copy / "agents" / "reasoning" / "debugger.md"
    path.write_text("  \n\t\n", encoding="utf-8")
    _expect_error(prompts_copy, "debugger.md", "empty")
    path.write_bytes(b"\xff\xfe\x00bad")
    _expect_error(prompts_copy, "debugger.md", "UTF-8")


def test_extra_agent_is_refused(prompts_copy: Path) -> None:
    folder = prompts_copy / "agents" / "social"
    shutil.copy(folder / "norms.yaml", folder / "gossip.yaml")
    shutil.copy(folder / "norms.md", folder / "gossip.md")
    _expect_error(prompts_copy, "social.gossip", "agencies.py")


def test_missing_agent_is_refused(prompts_copy: Path) -> None:
    (prompts_copy / "agents" / "creative" / "synthesizer.yaml").unlink()
    _expect_error(prompts_copy, "creative.synthesizer", "missing")


def test_missing_agents_folder_and_yml_extension_are_refused(
    prompts_copy: Path, tmp_path: Path
) -> None:
    _expect_error(tmp_path / "nowhere", "agents folder")
    folder = prompts_copy / "agents" / "creative"
    (folder / "synthesizer.yaml").rename(folder / "synthesizer.yml")
    _expect_error(prompts_copy, "synthesizer.yml", "extension")


def test_underscore_files_and_folders_are_not_agents(prompts_copy: Path) -> None:
    (prompts_copy / "agents" / "_drafts").mkdir()
    (prompts_copy / "agents" / "_drafts" / "idea.yaml").write_text("nonsense: [", "utf-8")
    (prompts_copy / "agents" / "social" / "_notes.yaml").write_text("x: 1\n", "utf-8")
    assert len(load_registry(Prompts(prompts_copy))) == 44


def test_a_manifest_without_triggers_loads_with_empty_triggers(prompts_copy: Path) -> None:
    path = prompts_copy / "agents" / "creative" / "synthesizer.yaml"
    text = path.read_text("utf-8")
    head, rest = text.split("triggers:")
    path.write_text(head + "labels:" + rest.split("labels:")[1], encoding="utf-8")
    spec = load_registry(Prompts(prompts_copy)).get("creative.synthesizer")
    assert not spec.triggers.sensors and not spec.triggers.keywords


def test_registry_get_unknown_raises_key_error(registry: AgentRegistry) -> None:
    with pytest.raises(KeyError, match=r"nobody\.home"):
        registry.get("nobody.home")


def test_yaml_mapping_reads_a_shipped_manifest() -> None:
    data = yaml_mapping(PROMPTS, _yaml("resource.financial"))
    assert data["id"] == "resource.financial"
    assert isinstance(data["triggers"], dict)


def test_the_system_prompt_names_the_answer_fields() -> None:
    """Changed on purpose (issue 16): agents answer present / label / confidence / span."""
    system = (AGENTS / "_system.md").read_text(encoding="utf-8")
    for word in ("present", "label", "confidence", "span", "copied exactly"):
        assert word in system
    assert len(system.split()) <= 80


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ('labels: {only: "one label"}', "2-8 label"),
        ("labels: [a, b]", "2-8 label"),
        ('labels: {a: "x", B!: "y"}', "bad label name"),
        ('labels: {a: "x", b: {claim: "y", type: advice}}', "unknown type"),
        ('labels: {a: "x", b: {claim: "y", urgency: 5}}', "urgency 5"),
        ('labels: {a: "x", b: {claim: "y", gate: {nonsense: 0.3}}}', "bad gate"),
        ('labels: {a: "x", b: {claim: "y", stance: {valence: 0.9}}}', "bad stance"),
        ('labels: {a: "x", b: {claim: "y", colour: red}}', "bad entry"),
    ],
)
def test_bad_labels_are_refused(prompts_copy: Path, block: str, problem: str) -> None:
    path = prompts_copy / "agents" / "emotion" / "wellbeing.yaml"
    text = path.read_text("utf-8")
    path.write_text(text.split("labels:")[0] + block + "\n", encoding="utf-8")
    with pytest.raises(AgentManifestError, match=problem):
        load_registry(Prompts(prompts_copy))
