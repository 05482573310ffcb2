"""What a message does in a conversation that is already about risk.

Three kinds of message mean little alone and a lot after a disclosure or after distress
(``turn/safety_state.py`` reads them; none of them changes the ``safety_risk`` reading by
itself):

* :func:`means_question` — a question about means: heights ("how tall is the bridge",
  "highest building near me"), amounts of medication ("how many of my sleeping pills",
  "what's the max dose of paracetamol"), trains, ropes. Alone it is a trip, a headache, a
  school project; after distress it is means-seeking, the sign clinicians weigh most.
* :func:`presence_request` — "can you just talk to me for a bit", "please don't go",
  "stay with me": after a disclosure, the person asks for company, not small talk.
* :func:`retraction` — "I'm fine, forget it", "I'm not going to do anything stupid",
  "jk": after a disclosure, a retraction does not close it.

Each returns the person's own words that matched (for evidence and the inspector), or None.
They read the safety sensor's respelled copy (accents stripped, txt-speak written out), so
"can u jus talk 2 me" and "ne t'en va pas" match like their tidy forms. Ordinary frames
("for our trip", "for my dog", "in the game") keep a means question ordinary.
"""

from __future__ import annotations

import re
from typing import Final

from rilai_desktop.turn.sensors.safety_context import safety_text
from rilai_desktop.turn.sensors.text import Text, normalise

_MEANS: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(p)
    for p in (
        # heights
        r"\bhow (?:high|tall|far down|far up|long (?:is )?the (?:drop|fall))\b[^.?!]{0,40}"
        r"\b(?:bridge|building|tower|cliff|roof|rooftop|balcony|parking (?:garage|deck)|floor"
        r"|ledge|drop|fall)\b",
        r"\b(?:highest|tallest|biggest|steepest) (?:bridge|building|tower|cliff|roof|rooftop"
        r"|parking garage|balcony|drop)s?\b",
        r"\b(?:survive|survivable|die from|fatal) (?:a |the )?(?:fall|jump|drop)\b"
        r"|\bhow many (?:floors|stories|storeys|meters|metres|feet)\b[^.?!]{0,30}\b(?:fatal"
        r"|survive|enough|die)\b",
        # medication amounts
        r"\bhow (?:many|much)\b[^.?!]{0,30}\b(?:pills|tablets|meds|medication|paracetamol"
        r"|acetaminophen|tylenol|ibuprofen|advil|aspirin|sleeping pills|xanax|valium"
        r"|insulin|antidepressants|painkillers|oxy\w*|codeine|benadryl|melatonin)\b",
        r"\b(?:max(?:imum)?|lethal|toxic|fatal|deadly|too much of a) (?:dose|dosage|amount)\b",
        r"\bwhat happens if (?:you|i|someone) (?:take|takes|took|swallow\w*) (?:a lot|too many"
        r"|all|a whole)\b",
        # trains, ropes, guns, cutting
        r"\b(?:when|what time) does the (?:next |last |express |fast )?(?:train|freight)\b"
        r"[^.?!]{0,40}\b(?:pass|come through|go through|not stop|crossing)\b",
        r"\b(?:where|how) (?:can|do|could) (?:i|you|someone) (?:buy|get|find) (?:a |some )?"
        r"(?:gun|rope|pistol|rifle|barbiturates|nembutal|helium tank)\b",
        r"\bhow (?:deep|hard) (?:do|would|should) (?:i|you) (?:have to |need to )?cut\b",
        r"\bhow long (?:does it|would it) take to (?:bleed|drown|suffocate|pass out)\b",
        # es / pt / fr / de / it
        r"\b(?:cuantas|quantas|combien de|wie viele|quante) (?:\w+ )?(?:pastillas|pildoras"
        r"|comprimidos|pilulas|cachets|comprimes|pilules|tabletten|pillen|pastiglie|pillole)\b",
        r"\b(?:que|qual|quelle|wie) (?:altura|alto|hauteur|hoch)\b[^.?!]{0,30}\b(?:puente"
        r"|ponte|pont|brucke|edificio|predio|immeuble|gebaude|palazzo|torre|tour)\b",
        r"\bdosis (?:letal|maxima|mortal|todliche)\b|\bdose (?:letal|mortelle|maximale|letale"
        r"|massima)\b",
    )
)
# a means question about an ordinary purpose stays ordinary, even after distress
_ORDINARY_PURPOSE: Final = re.compile(
    r"\b(?:trip|visit|tour|travel|vacation|holiday|hike|photos?|photography|sightseeing"
    r"|homework|school|project|essay|quiz|trivia|exam|class|report|article|research"
    r"|game|level|minecraft|story|novel|movie|film|documentary|show"
    r"|dog|dogs|cat|cats|puppy|kitten|pet|pets|vet|horse|bird|kid'?s?|child'?s?|baby|toddler"
    r"|son|daughter|headache|migraine|toothache|fever|flu|period|cramps|back pain"
    r"|back ache|surgery|prescription|pharmacist|doctor said|label|per day|a day"
    r"|every \d+ hours|commute|ticket|tickets|station|delayed|platform)\b"
)

_PRESENCE: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(p)
    for p in (
        r"\b(?:can|could|would|will) you (?:just |please |maybe )?(?:talk|chat|stay|be here"
        r"|keep talking|keep me company|sit with me|be with me)\b",
        r"\b(?:just |please )?(?:talk|keep talking|stay) (?:to|with) me\b",
        r"\b(?:please |pls )?(?:don'?t|do not) (?:go|leave|leave me|stop talking)\b",
        r"\bi (?:just )?(?:need|want) (?:someone|somebody|you) to (?:talk to|be here|stay"
        r"|listen)\b|\bi don'?t want to be alone\b|\bi don'?t want to be by myself\b",
        r"\b(?:are you still there|are you there|you still there)\b",
        r"\btalk to me about (?:anything|something)\b",
        # es / pt / fr / de / it
        r"\b(?:puedes|podes|podrias|pode|podia) (?:solo |so |apenas )?(?:hablar|falar|quedarte"
        r"|ficar)\b|\bno te vayas\b|\bnao (?:va|vai) embora\b|\bquedate conmigo\b"
        r"|\bfica comigo\b",
        r"\b(?:tu peux|pourrais-tu|peux-tu) (?:juste )?(?:me parler|parler|rester)\b"
        r"|\bne (?:t'en va|pars) pas\b|\breste avec moi\b",
        r"\b(?:kannst du|konntest du) (?:einfach |bitte )?(?:mit mir reden|reden|bleiben"
        r"|bei mir bleiben)\b|\bgeh nicht\b|\bbleib (?:bei mir|da)\b",
        r"\b(?:puoi|potresti) (?:solo |solamente )?(?:parlare|parlarmi|restare|stare)\b"
        r"|\bnon (?:andare|te ne andare|lasciarmi)\b|\bresta con me\b",
    )
)

_RETRACTION: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(p)
    for p in (
        r"\b(?:i'?m|im|i am) (?:fine|ok|okay|good|alright|all right)\b[^.?!]{0,20}"
        r"\b(?:forget|never ?mind|don'?t worry|really|honestly|seriously|it'?s nothing)\b",
        r"\b(?:forget (?:it|i said (?:it|that|anything))|never ?mind|ignore (?:that|what i said"
        r"|me)|don'?t worry about (?:it|me))\b",
        r"\bi'?m not (?:going to|gonna) do anything (?:stupid|dumb|crazy|drastic)\b"
        r"|\bi won'?t do anything (?:stupid|dumb|crazy|drastic)\b|\bi'?m not going to hurt"
        r" myself\b|\bi'?m not (?:suicidal|going to act on it)\b|\bi'?d never (?:do|act on) it\b",
        r"\b(?:jk|just kidding|only joking|just joking|i was joking|i'?m joking|lol jk"
        r"|it was a joke|just a joke)\b",
        r"\bit'?s (?:not a big deal|nothing|not that bad|not serious)\b|\bi was being dramatic\b"
        r"|\bi'?m overreacting\b|\bdon'?t make it a thing\b",
        # es / pt / fr / de / it
        r"\b(?:estoy|estou) (?:bien|bem)\b|\bolvidalo\b|\besquece\b|\bera broma\b"
        r"|\bera brincadeira\b|\bno voy a hacer nada\b|\bnao vou fazer nada\b",
        r"\bje vais bien\b|\boublie (?:ca|ça)\b|\bc'?etait une blague\b"
        r"|\bje ne vais rien faire\b",
        r"\bmir geht'?s gut\b|\bvergiss es\b|\bwar nur (?:ein )?spass\b|\bich werde nichts tun\b",
        r"\bsto bene\b|\blascia (?:stare|perdere)\b|\bscherzavo\b|\bnon faro niente\b",
    )
)


def _folded(text: str) -> Text | None:
    if not isinstance(text, str) or not text.strip():
        return None
    return safety_text(normalise(text))


def _first(patterns: tuple[re.Pattern[str], ...], text: Text) -> str | None:
    for pattern in patterns:
        found = pattern.search(text.folded)
        if found:
            return text.span(found.start(), found.end())
    return None


def means_question(text: str) -> str | None:
    """The words of a question about means (heights, medication amounts, trains, ropes),
    or None — also None when the message names an ordinary purpose (a trip, a pet, a
    headache, a game)."""
    folded = _folded(text)
    if folded is None:
        return None
    found = _first(_MEANS, folded)
    if found is None or _ORDINARY_PURPOSE.search(folded.folded):
        return None
    return found


def presence_request(text: str) -> str | None:
    """The words asking Rilai to stay, talk, not leave; or None."""
    folded = _folded(text)
    return None if folded is None else _first(_PRESENCE, folded)


def retraction(text: str) -> str | None:
    """The words playing an earlier disclosure down ("I'm fine, forget it"); or None."""
    folded = _folded(text)
    return None if folded is None else _first(_RETRACTION, folded)
