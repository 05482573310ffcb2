"""e2e fixtures: the real GGUF files `make test` installed (small, medium and large)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rilai_desktop.llm.installer import verify
from rilai_desktop.llm.llama_cpp_adapter import LlamaCppModel, LlamaOptions
from rilai_desktop.llm.manifest import load_manifest
from rilai_desktop.paths import REPO_ROOT
from tests.conftest import REAL_MODELS_DIR

MANIFEST = load_manifest(REPO_ROOT / "models" / "models.toml")


def model_path(tier: str) -> Path:
    entry = MANIFEST.for_tier(tier)
    if not verify(entry, REAL_MODELS_DIR).ok:
        pytest.fail(
            f"the {tier} model is not installed in {REAL_MODELS_DIR}: "
            f"run `make test` (it installs all three tiers) or `rilai models install {tier}`"
        )
    return entry.path_in(REAL_MODELS_DIR)


@pytest.fixture(scope="module", params=["small", "medium"])
def model(request: pytest.FixtureRequest) -> Iterator[LlamaCppModel]:
    tier = str(request.param)
    m = LlamaCppModel(
        model_path(tier), model_id=MANIFEST.tiers[tier], options=LlamaOptions(n_ctx=2048)
    )
    yield m
    m.close()
