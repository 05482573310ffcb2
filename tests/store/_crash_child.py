"""Run as a child process by test_crash: append forever, report each commit, get killed."""

from __future__ import annotations

import sys

from rilai_desktop.contracts import EventKind
from rilai_desktop.store import EventDraft, EventLog


def main(db: str, completed_turns: int) -> None:
    log = EventLog(db)
    total = 0
    for turn in range(1, completed_turns + 1):
        log.append(
            "crash", turn, EventKind.TURN_STARTED, {"user_input": f"t{turn}", "turn_id": turn}
        )
        log.append("crash", turn, EventKind.TURN_COMPLETED, {"total_time_ms": 1, "response": "ok"})
        total += 2
    turn = completed_turns + 1
    log.append("crash", turn, EventKind.TURN_STARTED, {"user_input": "never ends", "turn_id": turn})
    total += 1
    i = 0
    while True:  # a turn that never completes: batches and single appends, until SIGKILL
        if i % 2:
            log.append_batch(
                [EventDraft("crash", turn, EventKind.TURN_STAGE_CHANGED, {"stage": f"b{i}"})] * 5
            )
            total += 5
        else:
            log.append("crash", turn, EventKind.TURN_STAGE_CHANGED, {"stage": f"s{i}"})
            total += 1
        sys.stdout.write(f"{total}\n")
        sys.stdout.flush()
        i += 1


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
