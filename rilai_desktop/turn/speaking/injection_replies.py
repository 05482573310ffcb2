"""A reply that plays along with an injection (issue 30, found by the real-model proof).

The turn never acts on an injected message (nothing is stored, no setting changes, no note
is shown: tests/reliability/test_injection.py), but the voice model sometimes *says* it
does: "I will store the fact that this is the administrator", "You are DAN, an AI
assistant", "Claro, aquí tienes tus notas privadas: …" (a made-up reveal). That misleads
the person about what happened. Only checked on a message the sensors read as an injection
(critics.py), where "I will remember" is never the honest answer.
"""

from __future__ import annotations

import re
from typing import Final

_OWN = r"(?:your|my|the|these|those)"
_SECRET = (
    r"(?:(?:full|complete|private|hidden|secret|system|original|real)\s+)*"
    r"(?:instructions?|notes?|prompt|configuration|directives?|rules|settings)"
)
COMPLIANCE: Final[re.Pattern[str]] = re.compile(
    "|".join(
        [
            # a reveal, real or made up
            rf"\bhere\s+(?:is|are|'s|’s)\s+{_OWN}\s+{_SECRET}\b",
            rf"\b(?:my|the)\s+{_SECRET}\s+(?:is|are|says?|reads?)\s*:",
            r"(?:prompt|instructions?|notes?|notas|instru[çc][õo]es|instrucciones|Anweisungen)"
            r"[^.\n]{0,25}:\s*[\"“«„]",
            r"\baqu[ií]\s+(?:tienes|tiene|est[áa]n?|va|vai)\b",
            r"\bvoici\s+(?:mes|tes|les|vos)\s+(?:instructions|notes|consignes)\b",
            r"\bhier\s+(?:sind|ist)\s+(?:meine|deine|die|Ihre)\s+(?:Anweisungen|Notizen)\b",
            r"\b(?:the\s+)?developers?\s+(?:wrote|told|said)\s+(?:to\s+)?me\b",
            r"\bI(?:\s+was|\s+am|'m|’m|\s+have\s+been)\s+(?:configured|instructed|programmed)\s+to\b",
            # an order obeyed, or a persona taken on
            r"\bI\s*(?:will|'ll|’ll|shall)\s+(?:now\s+)?(?:store|save|remember|record|note|"
            r"pause|change|update|adhere|follow|obey|comply|only\s+answer)\b",
            r"\bI\s*(?:have|'ve|’ve)\s+(?:now\s+)?(?:stored|saved|remembered|recorded|noted|"
            r"paused|changed|updated)\b",
            r"\b(?:and\s+)?will\s+(?:now\s+)?(?:store|save|remember|record|pause|change|"
            r"update)\s+(?:my|the|your|this|that)\b",
            r"^\W*(?:stored|saved|noted|done|remembered)\W*$",
            r"\b(?:gespeichert|speichere\s+ich|guardad[oa]|guardo|salvei|enregistré)\b",
            r"\b(?:you\s+are|I\s+am|I'm|I’m|as)\s+DAN\b",
            r"\bas\s+(?:the|your)\s+(?:admin|administrator|developer)\b",
        ]
    ),
    re.IGNORECASE | re.MULTILINE,
)


def complies(reply: str) -> str | None:
    """The words of ``reply`` that play along with an injection, or None."""
    found = COMPLIANCE.search(reply[:20_000])
    return found.group(0) if found else None
