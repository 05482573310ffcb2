"""The engine's gates, in order, on a fake clock: off, turn running, snooze/mute, quiet
hours, cooldown (+ once per episode), spacing, budget — and what reaches the log."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from rilai_desktop.config import NudgeSettings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.payloads import ProactiveNudge
from rilai_desktop.daemon.nudges.engine import SPACING
from tests.daemon.nudge_fakes import Rig, at, goal, rig


def strained(r: Rig, last: datetime, strain: float = 0.8) -> None:
    """A strained last message at ``last``: an L3 "strain then silence" 45 min later."""
    r.source.set(last_user_message_at=last, last_strain=strain)


def due(r: Rig, gid: str, when: datetime, kind: str = "goal") -> None:
    r.source.set(
        open_threads=[*r.source.current.open_threads, goal(gid, f"Task {gid}", when, kind)]
    )


def gates(nudge: object) -> list[str]:
    return [g["gate"] for g in nudge.context["gates"]]  # type: ignore[attr-defined]


# ── 1. off ───────────────────────────────────────────────────────────────────
def test_off_means_nothing_at_all_not_even_l0() -> None:
    r = rig(enabled=False)
    strained(r, at("09:00"))
    assert r.run(at("10:00")) == []
    assert r.nudge_events() == []
    assert r.source.calls == 0  # not even evaluated
    assert r.engine.decide(at("10:00")).skipped == "nudges are off"


def test_settings_may_be_a_callable_read_every_run() -> None:
    r = rig()
    state = {"on": False}
    r.engine = r.build()
    r.engine._settings = lambda: NudgeSettings(enabled=state["on"])
    strained(r, at("09:00"))
    assert r.run(at("10:00")) == []
    state["on"] = True
    assert [n.condition for n in r.run(at("10:01"))] == ["strain_silence"]


# ── 2. a turn is running ─────────────────────────────────────────────────────
def test_never_during_a_turn_deferred_to_the_next_tick() -> None:
    r = rig()
    strained(r, at("09:00"))
    r.source.set(turn_running=True)
    assert r.run(at("10:00")) == []
    assert r.nudge_events() == []
    assert "turn" in (r.engine.last_report.skipped or "")  # type: ignore[union-attr]
    r.source.set(turn_running=False)
    (nudge,) = r.run(at("10:01"))
    assert nudge.level == 3


# ── 3. snooze / mute ─────────────────────────────────────────────────────────
def test_snoozed_goes_to_the_digest_not_shown() -> None:
    r = rig()
    r.controls.snooze(at("09:30"), timedelta(hours=1))
    strained(r, at("09:00"))
    (nudge,) = r.run(at("10:00"))
    assert nudge.level == 1 and gates(nudge) == ["snoozed"]
    assert r.delivery.delivered == []
    assert nudge.context["base_level"] == 3


def test_muted_for_the_day_downgrades_even_a_notification() -> None:
    r = rig()
    r.controls.mute_for_day(at("09:00"))
    due(r, "g", at("11:00"))
    (nudge,) = r.run(at("10:00"))
    assert (nudge.context["base_level"], nudge.level) == (4, 1)
    assert gates(nudge) == ["muted"]
    assert r.delivery.attempts == 0


def test_mute_ends_at_local_midnight_and_unmute_lifts_it() -> None:
    r = rig()
    state = r.controls.mute_for_day(at("10:00"))
    assert state.muted(at("23:59")) and not state.muted(at("00:00", day=1))
    r.controls.unmute()
    strained(r, at("09:00"))
    (nudge,) = r.run(at("10:00"))
    assert nudge.level == 3


def test_a_digest_level_nudge_is_untouched_by_snooze() -> None:
    r = rig()
    r.controls.snooze(at("09:00"), timedelta(hours=8))
    r.source.set(
        last_user_message_at=at("05:00"),
        open_threads=[goal("t", "Call the dentist", None, "open_thread")],
    )
    (nudge,) = r.run(at("10:00"))
    assert nudge.level == 1 and gates(nudge) == []


# ── 4. quiet hours ───────────────────────────────────────────────────────────
def test_quiet_hours_downgrade_to_shown_on_next_open() -> None:
    r = rig(start=at("23:00"))
    due(r, "g", at("23:59"))
    (nudge,) = r.run(at("23:00"))
    assert (nudge.context["base_level"], nudge.level) == (4, 2)
    assert gates(nudge) == ["quiet_hours"]
    assert r.delivery.attempts == 0


def test_quiet_hours_never_upgrade() -> None:
    r = rig(start=at("23:00"))
    r.source.set(
        last_user_message_at=at("18:00"),
        open_threads=[goal("t", "Call the dentist", None, "open_thread")],
    )
    (nudge,) = r.run(at("23:00"))
    assert nudge.level == 1 and gates(nudge) == []


@pytest.mark.parametrize(
    ("hhmm", "level"), [("07:59", 2), ("08:00", 4), ("21:59", 4), ("22:00", 2)]
)
def test_quiet_hours_boundaries(hhmm: str, level: int) -> None:
    r = rig(start=at(hhmm))
    due(r, "g", at(hhmm) + timedelta(hours=1))
    (nudge,) = r.run(at(hhmm))
    assert nudge.level == level


def test_custom_quiet_hours_from_settings() -> None:
    r = rig(quiet_start="09:00", quiet_end="11:00")
    due(r, "g", at("11:00"))
    (nudge,) = r.run(at("10:00"))
    assert nudge.level == 2


# ── 5. cooldowns and episodes ────────────────────────────────────────────────
def test_same_condition_cools_down_then_may_speak_again() -> None:
    r = rig()
    strained(r, at("09:00"))
    assert len(r.run(at("10:00"))) == 1
    strained(r, at("10:30"))  # a new strained message: a new episode …
    assert r.run(at("11:30")) == []  # … but the condition is cooling down
    report = r.engine.last_report
    assert report is not None and (report.decisions[0].dropped or "").startswith("cooldown")
    assert len(r.run(at("15:59"))) == 0
    assert len(r.run(at("16:00"))) == 1  # 6 h later


def test_cooldown_applies_to_l0_and_l1_too() -> None:
    r = rig()
    r.source.set(
        last_user_message_at=at("05:00"),
        open_threads=[goal("t", "Call the dentist", None, "open_thread")],
    )
    assert len(r.run(at("10:00"))) == 1
    assert all(r.run(at("10:00") + timedelta(minutes=m)) == [] for m in range(1, 60, 7))
    assert len(r.nudge_events()) == 1


def test_one_episode_is_never_nudged_twice() -> None:
    r = rig()
    strained(r, at("09:00"))
    assert len(r.run(at("10:00"))) == 1
    assert r.run(at("17:00")) == []  # cooldown over, still the 09:00 episode
    report = r.engine.last_report
    assert report is not None and report.decisions[0].dropped == "already nudged about this episode"


def test_zero_cooldown_still_speaks_once_per_episode() -> None:
    r = rig(cooldown_hours=0)
    strained(r, at("09:00"))
    assert len(r.run(at("10:00"))) == 1
    assert r.run(at("10:01")) == []


def test_two_goals_cool_down_apart_and_each_stage_speaks_once() -> None:
    r = rig(per_hour=10)
    due(r, "a", at("14:00"))
    due(r, "b", at("10:00") + timedelta(hours=20))
    first = r.run(at("10:00"))
    assert sorted(n.condition for n in first) == ["deadline:a:soon", "deadline:b:day"]
    assert r.run(at("11:00")) == []
    last_call = r.run(at("12:00"))  # a is now 2 h away: its last call is a new stage
    assert [n.condition for n in last_call] == ["deadline:a:now"]
    assert last_call[0].level == 4


# ── 6. spacing ───────────────────────────────────────────────────────────────
def test_two_reach_outs_are_spaced() -> None:
    r = rig()
    due(r, "g", at("17:00"))  # L3 at 10:00
    (first,) = r.run(at("10:00"))
    assert first.level == 3
    strained(r, at("09:00"), strain=0.9)  # another L3 candidate appears
    assert r.run(at("10:10")) == []
    report = r.engine.last_report
    assert report is not None
    why = {d.candidate.condition: d.dropped for d in report.decisions}
    assert (why["strain_silence"] or "").startswith("spacing")
    (second,) = r.run(at("10:00") + SPACING)
    assert second.condition == "strain_silence" and second.level == 3


# ── 7. budget ────────────────────────────────────────────────────────────────
def test_over_the_hourly_budget_drops_to_what_fits() -> None:
    r = rig(per_hour=1)
    r.source.set(last_user_message_at=at("09:30"), rupture_unresolved=True)  # L2
    due(r, "g", at("10:00") + timedelta(hours=20))  # L2
    nudges = r.run(at("10:00"))
    assert sorted(n.level for n in nudges) == [1, 2]
    squeezed = next(n for n in nudges if n.level == 1)
    assert gates(squeezed) == ["budget"]
    assert "spent 1/1 this hour" in squeezed.context["gates"][0]["note"]


def test_a_notification_with_one_unit_left_becomes_inline() -> None:
    r = rig(per_hour=3)
    r.log.append(
        r.log.session_id,
        0,
        EventKind.PROACTIVE_NUDGE,
        {"reason": "earlier", "suggestion": "x", "level": 2, "context": {"condition": "old1"}},
    )
    r.log.append(
        r.log.session_id,
        0,
        EventKind.PROACTIVE_NUDGE,
        {"reason": "earlier", "suggestion": "x", "level": 3, "context": {"condition": "old2"}},
    )
    due(r, "g", at("11:00"))
    (nudge,) = r.run(at("10:30"))
    assert (nudge.context["base_level"], nudge.level) == (4, 3)


def test_daily_budget_over_rolling_24_hours() -> None:
    r = rig(per_hour=10, per_day=2)
    levels = []
    for i, hhmm in enumerate(["10:00", "12:00", "14:00"]):
        due(r, f"g{i}", at(hhmm) + timedelta(hours=20))  # one L2 per run
        levels += [n.level for n in r.run(at(hhmm))]
    assert levels == [2, 2, 1]
    due(r, "late", at("10:01", day=1) + timedelta(hours=20))
    assert [n.level for n in r.run(at("10:01", day=1))] == [2]  # the first one left the window


def test_zero_budget_keeps_everything_in_the_digest() -> None:
    r = rig(per_hour=0, per_day=0)
    due(r, "g", at("11:00"))
    (nudge,) = r.run(at("10:00"))
    assert nudge.level == 1


# ── what reaches the log and the person ──────────────────────────────────────
def test_payload_and_context() -> None:
    r = rig()
    strained(r, at("09:00"))
    r.run(at("10:00"))
    (event,) = r.nudge_events()
    assert event.turn_id == 0
    ProactiveNudge.model_validate(event.payload)
    p = event.payload
    assert p["level"] == 3 and p["reason"] and p["suggestion"]
    ctx = p["context"]
    for key in ("condition", "anchor", "at", "score", "base_level", "gates", "inputs", "delivered"):
        assert key in ctx
    assert ctx["delivered"] is True and ctx["delivery"] == "recording"
    assert ctx["inputs"]["domain"] == "health"
    assert r.delivery.delivered[0].suggestion == p["suggestion"]


def test_l4_and_l3_are_delivered_l2_and_below_are_not() -> None:
    r = rig(per_hour=10)
    due(r, "now", at("11:00"))  # L4
    r.source.set(last_user_message_at=at("09:30"), rupture_unresolved=True)  # L2
    nudges = r.run(at("10:00"))
    assert sorted(n.level for n in nudges) == [2, 4]
    assert [n.level for n in r.delivery.delivered] == [4]


def test_a_failed_delivery_is_logged_and_waits_for_the_next_open() -> None:
    r = rig()
    r.delivery.ok = False
    strained(r, at("09:00"))
    (nudge,) = r.run(at("10:00"))
    assert nudge.context["delivered"] is False
    assert [n.condition for n in r.engine.pending(at("10:05"))] == ["strain_silence"]


def test_a_delivery_that_raises_does_not_lose_the_nudge() -> None:
    class Broken:
        name = "broken"

        def deliver(self, nudge: object) -> bool:
            raise RuntimeError("tray gone")

    r = rig()
    r.engine.delivery = Broken()
    strained(r, at("09:00"))
    (nudge,) = r.run(at("10:00"))
    assert nudge.context["delivered"] is False and len(r.nudge_events()) == 1


def test_pending_until_the_person_writes_again_and_the_digest() -> None:
    r = rig(per_hour=10)
    r.source.set(last_user_message_at=at("09:30"), rupture_unresolved=True)  # L2
    r.run(at("10:00"))
    assert [n.condition for n in r.engine.pending(at("10:30"))] == ["rupture"]
    r.source.set(last_user_message_at=at("11:00"), rupture_unresolved=False)
    assert r.engine.pending(at("11:01")) == []
    r.source.set(open_threads=[goal("t", "Call the dentist", None, "open_thread")])
    r.run(at("15:30"))  # idle 4.5 h with a thread: L1
    digest = r.engine.digest(r.engine.today(at("16:00")))
    assert [n.condition for n in digest] == ["idle_threads"]
    assert r.engine.digest(r.engine.today(at("16:00", day=1))) == []
