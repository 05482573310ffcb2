"""`rilai doctor` names `--repair` for a damaged database and leaves it alone;
`rilai doctor --repair` moves it aside and restores the newest backup (issue 30, proof 7)."""

from __future__ import annotations

import functools

from rilai_desktop.cli.commands import doctor
from rilai_desktop.contracts import EventKind
from rilai_desktop.paths import ensure_private_dir, resolve_paths
from rilai_desktop.store import EventLog
from tests.cli_runner import RunWith

doctor_stubbed = functools.partial(
    doctor.run, libraries=[functools.partial(doctor.Check, "torch", "ok", "stub")]
)


def test_doctor_names_repair_and_repair_restores_the_backup(run_with: RunWith) -> None:
    paths = resolve_paths()
    backups = ensure_private_dir(paths.data_dir / "backups")
    with EventLog(paths.db_path) as log:
        log.append("s", 0, EventKind.SESSION_STARTED, {"session_id": "s"})
        log.backup(backups / "rilai-20260101-000000.db")
    paths.db_path.write_bytes(b"\x00garbage" * 512)

    plain = run_with(doctor_stubbed, "doctor", "--json", "--no-smoke").json()
    checks = {c["name"]: c for c in plain["checks"]}
    assert "repair" not in checks
    assert "rilai doctor --repair" in checks["database"]["fix"]
    assert paths.db_path.read_bytes() == b"\x00garbage" * 512

    fixed = run_with(doctor_stubbed, "doctor", "--json", "--no-smoke", "--repair").json()
    checks = {c["name"]: c for c in fixed["checks"]}
    assert checks["repair"]["status"] == "ok"
    assert "rilai-20260101-000000.db (1 events) was restored" in checks["repair"]["detail"]
    assert checks["database"]["status"] == "ok"
    (aside,) = paths.data_dir.glob("rilai.db.damaged-*")
    assert aside.read_bytes() == b"\x00garbage" * 512
    with EventLog(paths.db_path) as log:
        assert log.count() == 1
