"""The built-in day for ``rilai nudges simulate`` (also tests/data/daemon/day.jsonl; a test
keeps the two identical). A Python constant, so it works from an installed package.

The story: a stressful morning, a report due in the afternoon, a long working sitting at
lunch, a visa form due just after midnight, a misunderstanding at four, then silence all
evening and night (the simulation starts at 07:00 local and runs 24 hours).
"""

from __future__ import annotations

from typing import Final

DEFAULT_DAY: Final = """\
{"at": "07:40", "user": "Morning. Barely slept, and the quarterly report is due at five."}
{"at": "07:41", "goal": "Quarterly report", "deadline": "17:00", "note": "a deadline today"}
{"at": "08:15", "user": "I'm so stressed, I can't cope with all of this, everything is too much."}
{"at": "08:18", "user": "I feel like a failure and I'm completely overwhelmed."}
{"at": "08:25", "user": "Ok. I need to get going, talk later."}
{"at": "12:30", "user": "Quick lunch break. Two sections of the report are still left."}
{"at": "12:32", "goal": "Call the dentist back", "kind": "open_thread", "deadline": null}
{"at": "12:33", "goal": "Submit the visa form", "deadline": "00:30", "note": "after midnight"}
{"at": "12:45", "user": "Can you help me outline section three?"}
{"at": "13:00", "user": "Good, that works. Now the summary table."}
{"at": "13:20", "user": "The numbers for Q2 look off, let me check them."}
{"at": "13:40", "user": "Found it, a typo in the spreadsheet."}
{"at": "14:05", "user": "Section three is done. Onto the last one."}
{"at": "16:05", "user": "That's not what I said, you're not listening."}
"""
