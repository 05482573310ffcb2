"""Word lists shared by several sensors: idioms, fiction markers, humour wrappers.

Everything here is matched against the folded text (lower case, straight quotes), compiled
once at import. Sensor-specific cue tables live beside their sensor.
"""

from __future__ import annotations

import re
from typing import Final

# Death/violence words used figuratively. A safety or vulnerability cue that overlaps one of
# these spans is dropped, and the idiom is shown as counterevidence. A first-person cue
# elsewhere in the message still counts: "this traffic is killing me and I want to die"
# keeps its "I want to die".
IDIOMS: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(p)
    for p in (
        r"\b(?:is|are|was|were|'s|'re|keeps?|keeping|been|be|it|this|that|they)\s+"
        r"(?:literally |actually |honestly |just |really |slowly )?killing (?:me|it|us)\b",
        r"\bkill(?:s|ed|ing)? (?:it|time|two birds|the (?:lights?|music|mood|vibe|engine"
        r"|conversation|process|tab|app|server|bug|deal|idea|flag|job))\b",
        r"\bkill(?:s|ed|ing)? (?:a|an|the|this|that|my|our|old|all) (?:\w+ )?(?:process(?:es)?"
        r"|feature(?: flag)?|flag|job|task|app|tab|server|bug|lights?|engine|dragon|boss"
        r"|zombies?|monsters?|enemies|weeds?|germs|bacteria|spiders?|mosquito(?:es)?)\b",
        r"\bkill(?:ed|s)? (?:for|at) (?:an? |the )?\w+",
        r"\b(?:killing|killed|kills|slay(?:ed|ing)?) it\b",
        r"\b(?:joke|that|this|it|video|meme|show|story|line|song|movie|episode|workout|hike)"
        r" (?:\w+ )?(?:literally |honestly |totally |just |is going to |gonna |will )?"
        r"(?:killed|kill|kills) me\b",
        r"\bkiller\w*\b|\bdead ?lines?\b|\bdeadlift\w*\b|\bdeadlock\w*\b|\bdeadpan\b",
        r"\b(?:could|would|'d|gonna|going to|about to|might|will|literally|almost|nearly)"
        r" (?:literally |just |actually )?die (?:of|from) (?:embarrassment|cringe|laughter"
        r"|laughing|boredom|happiness|joy|cuteness|excitement|heat|thirst|hunger)\b",
        r"\bdie (?:of|from) (?:embarrassment|cringe|laughter|laughing|boredom|cuteness)\b",
        r"\b(?:hungry|tired|happy|excited|embarrassed|jealous|full|thirsty|cute) i (?:could|might)"
        r" (?:literally |just )?die\b",
        r"\bfunny i (?:could|might) (?:literally |just )?die\b",
        r"\bdead (?:tired|serious|on arrival|battery|end|last|set|center|wrong|right|silent"
        r"|quiet|simple|easy|ass|asleep"
        r"|weight(?! (?:to|for|on) (?:everyone|everybody|my|them|people)))\b",
        r"\b(?:phone|battery|laptop|car|plants?|code|server|app|game|party|town|chat|group chat"
        r"|conversation|mic|headphones|tv|engine|bulb|printer|tablet|computer)"
        r" (?:is |was |went |keeps? |just |finally |has |had )*(?:dead|dying|died)\b",
        r"\bdying (?:to|for|of laughter|laughing|my|her|his|their)\b|\bto die for\b",
        r"\b(?:i'?m|im|i am) (?:literally |so |actually |fucking |lowkey |just )*"
        r"(?:dead|dying|ded)\b(?! (?:inside|soon|tonight|alone|already|weight))",
        r"\bi (?:literally |actually |just |almost |nearly )?died (?:when|at|of|laughing)\b",
        r"\b(?:bored|scared|worried|frightened|tickled|freezing|loved?) (?:me |myself )?to death\b",
        r"\b(?:died|dying|dead) (?:of |from )?laugh(?:ing|ter)\b|\blaughed to death\b",
        r"\bliterally died\b|\bbe the death of\b|\bdeath stare\b",
        r"\bover ?dos(?:e|ed|ing) on (?:coffee|caffeine|sugar|chocolate|netflix|tv|memes|tiktok"
        r"|anime|candy|cake)\b",
        r"\bcrying laughing\b|\bcried laughing\b|\bcry[- ]laugh\w*\b|\blaughing so hard i cried\b"
        r"|\bcried (?:from|with) laughter\b|\btears of (?:joy|laughter)\b",
        r"\bmurder (?:mystery|mysteries|podcast|documentary|shows?|in the)\b|\btrue crime\b",
    )
)

# Fiction, media and information: a death or sadness word in "the character in my novel",
# "a documentary about suicide prevention" or "the report says loneliness is rising" is not
# the writer's own state. Sensors apply this only to matches that are not explicitly first
# person ("I want to die" stays "I want to die" whatever else the message mentions).
FICTION: Final[tuple[re.Pattern[str], ...]] = (
    re.compile(
        r"\b(?:character|characters|novel|story|stories|book|books|movie|movies|film|films"
        r"|show|series|episode|game|level|villain|protagonist|narrator|fanfic|fic|plot|scene"
        r"|chapter|play|script|lyrics?|song|songs|poem|anime|manga|dnd|d&d|campaign"
        r"|documentary|essay|prevention|awareness|statistics|research|article|report|survey"
        r"|study|news|class|lecture|podcast|opening line|paper|thesis|difference between"
        r"|symptoms of|definition of|signs of|school project)\b"
    ),
)

# Humour wrappers, with their weight as evidence of a joking frame. 😭 is left weak on
# purpose: people use it for laughing and for crying alike.
HUMOUR: Final[tuple[tuple[re.Pattern[str], float], ...]] = tuple(
    (re.compile(p), w)
    for p, w in (
        (r"\b(?:lo+l+|lo+lz|lmf?a+o+|rofl|roflmao|xd+)\b", 0.8),
        (r"\b(?:a?ha(?:ha)+h?|he(?:he)+|hah|heh|ha ha(?: ha)*|ha\. ha|ha,)", 0.75),
        (r"\b(?:jk|jkjk|j/k|just kidding|kidding|just joking|joking)\b", 0.8),
        (r"(?:^|\s)/s\b", 0.7),
        (r"[\U0001f605\U0001f643]", 0.85),  # 😅 🙃
        (r"[\U0001f602\U0001f923\U0001f480\U0001f921\U0001f606\U0001f639\U0001f972]", 0.75),
        (r"\U0001f62d", 0.35),  # 😭
        (
            r"\b(?:classic me|fun times|good times|what else is new|love that for me|oops"
            r"|lmk|anyway|it'?s fine|totally fine|this is fine|unless\?)\b",
            0.55,
        ),
        (r"\b(?:ironic(?:ally)?|funny|hilarious)\b", 0.35),
    )
)
