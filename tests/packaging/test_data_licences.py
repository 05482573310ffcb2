"""The public data in the safety exemplar bank carries its attribution into the bundle."""

from __future__ import annotations

import json
from pathlib import Path

import licences

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT / "rilai_desktop" / "turn" / "sensors" / "safety_bank.jsonl"


def test_every_public_source_of_the_bank_has_an_attribution() -> None:
    shipped = {json.loads(line)["source"] for line in BANK.read_text().splitlines() if line}
    known = {str(s["id"]) for s in licences.DATA_SOURCES}
    assert shipped - {"own"} <= known, shipped - {"own"} - known
    for source in licences.DATA_SOURCES:
        folder = licences.TEXTS / "data" / str(source["id"])
        notice = (folder / "NOTICE.txt").read_text()
        assert "safety_bank" in notice and "Licence" in notice
        if source["licence"] == "CC-BY-4.0":  # attribution + a link to the licence
            assert "creativecommons.org/licenses/by/4.0" in notice
        if str(source["licence"]).startswith("MIT"):  # the copyright notice travels
            assert "Permission is hereby granted" in (folder / "LICENSE").read_text()


def test_the_bundle_gets_each_data_source_with_its_licence_text(tmp_path: Path) -> None:
    bundle = tmp_path / "rilai"
    bundle.mkdir()
    rows = licences.write_licences(bundle / "licenses", frozen_modules=[], bundle=bundle, models=[])
    data = {r["component"]: r for r in rows if r["kind"] == "data (safety exemplar bank)"}
    assert len(data) == len(licences.DATA_SOURCES)
    for row in data.values():
        names = {Path(f).name for f in row["files"]}
        assert "NOTICE.txt" in names
        for rel in row["files"]:
            assert (bundle / rel).is_file(), rel
    xstest = next(r for r in data.values() if "XSTest" in str(r["component"]))
    text = next(f for f in xstest["files"] if f.endswith("CC-BY-4.0.txt"))
    assert "Attribution 4.0 International" in (bundle / text).read_text()
    srl = next(r for r in data.values() if "Suicide Risk Lexicon" in str(r["component"]))
    assert any(f.endswith("Apache-2.0.txt") for f in srl["files"])
