"""The English cue table of the safety sensor (``safety.py`` reads it).

Weights: about 0.9 for an unmistakable wish to die or plan, 0.6–0.85 for passive ideation,
hopelessness about living, burden and goodbye phrases, 0.3–0.45 for what is worrying only
in company ("I can't do this anymore", "I'm so tired of everything", a rope, "what's the
point"): below ``SAFETY_INTERRUPT_THRESHOLD`` alone, above ``SAFETY_CONCERN_THRESHOLD`` so
that they keep a conversation careful after a disclosure (docs/sensors.md). Cues marked
``contextual=True`` are dropped in a sentence about something ordinary (a meeting, the rain:
``safety_context.ordinary_spans``).
"""

from __future__ import annotations

from typing import Final

from rilai_desktop.turn.sensors.scoring import Cue, cue

_A: Final = (
    r"(?:(?:just|really|honestly|literally|actually|so|fucking|kinda|kind of|sort of|seriously"
    r"|truly|still|sometimes|often|always|even|lowkey|genuinely|simply|all|badly|kind|sorta)\s+)*"
)
_THINK: Final = (
    r"(?:(?:really|even|honestly|actually|think|feel like|believe|know if|know that)\s+(?:i\s+)?)*"
)
_METHOD: Final = r"(?:kill|hurt|harm|cut|unalive|off|hang|drown|poison|shoot|starve|burn|end|stab)"

CUES: Final[tuple[Cue, ...]] = (
    # wanting to die / not to exist
    cue(
        rf"\b(?:want(?:s|ed|ing)?|wanna|wish(?:es|ed|ing)?|need(?:s)?|deserve(?:s)?|ready"
        rf"|hope|long|planning|plan|trying|tried|decided) (?:to )?{_A}"
        r"(?:die|be dead|not exist|stop existing|not be alive|not be here|disappear forever"
        r"|sleep forever|not wake up|never wake up|die already|be gone forever|go away"
        r" forever)\b",
        0.9,
    ),
    cue(
        r"\bi(?:'ve| have)? (?:wish|wished|hope|hoped) i (?:was|were|had|could be|'d be|would) "
        r"(?:dead|never (?:been )?born|not born|gone|never wake up)\b",
        0.9,
        "first",
    ),
    cue(
        r"\b(?:wish|hope|pray) (?:i|to) (?:don'?t|never|not|won'?t) wake up\b",
        0.85,
        "first",
        negatable=False,
    ),
    cue(
        r"\b(?:rather|better|easier|happier) (?:off )?(?:be |being )?dead\b"
        r"(?! than (?!feel|live|keep|go on|be (?:alive|here)|wake|continue|face)\w)",
        0.8,
    ),
    cue(
        r"\b(?:easier|better|happier|relieved|fine)(?: off)?(?: for (?:everyone|everybody|them|all"
        r"|my family|you all|you|people))? if i (?:just )?(?:was|were|wasn'?t|weren'?t|didn'?t)"
        r" (?:dead|gone|alive|here|around|exist|born)\b",
        0.85,
        "first",
        negatable=False,
    ),
    cue(r"\b(?:better|easier|happier|fine|lighter|relieved) (?:off? )?without me\b", 0.85, "first"),
    cue(
        r"\b(?:didn'?t|did not|wouldn'?t|don'?t|do not|not|stop(?:ped)?|cease to|never) exist"
        r"(?:ing|ed)?(?: any ?more| at all)?\b",
        0.55,
        negatable=False,
    ),
    cue(
        r"\bwhat if i (?:just )?(?:died|disappeared|didn'?t exist|wasn'?t here|was gone|were gone"
        r"|ended it|never woke up|stopped existing)\b",
        0.8,
        "first",
    ),
    cue(
        r"\b(?:nobody|no one|no-one|noone) would (?:even |really )?(?:notice|care|miss me)"
        r"(?=\s*(?:[.!?,;]|$| (?:anyway|at all|honestly|tbh|lol|really"
        r"|if i (?:was|were|died|disappeared|wasn'?t|weren'?t"
        r"|stopped|never|vanished|left (?:forever|for good|this world)|was dead|killed)\b)))",
        0.65,
        "first",
        negatable=False,
    ),
    cue(
        r"\b(?:nobody|no one|no-one|noone) would (?:even |really )?(?:notice|care|miss me)\b",
        0.3,
        "first",
        negatable=False,
        contextual=True,
    ),
    cue(
        r"\bif i (?:was|were|died|disappeared|was gone|wasn'?t (?:here|alive|around)|killed"
        r"|ended it|left forever)\b",
        0.45,
        "first",
        contextual=True,
    ),
    cue(
        r"\bwhy (?:am i|i'?m|im|do i|should i) (?:still |even )*(?:alive|here|breathing|exist"
        r"|bother living|keep living)\b",
        0.75,
        "first",
    ),
    # killing / hurting oneself
    cue(rf"\b{_METHOD}(?:s|ed|ing|ting|ning|e)? myself\b", 0.92, "first"),
    cue(
        rf"\b{_METHOD}(?:s|ed|ing|ting|ning|e)? (?:himself|herself|themselves|themself)\b",
        0.9,
        "third",
    ),
    cue(r"\b(?:kms|kys|unaliv\w*|sewer ?slide|self[- ]?delete)\b", 0.8),
    cue(r"\bself[- ]?harm\w*\b|\bself[- ]?injur\w*\b", 0.7),
    cue(
        r"\b(?:started|start|been|keep|kept|back to|relapsed|relapse|urge to) "
        r"(?:cutting|burning|hurting|scratching|self[- ]?harm\w*)\b",
        0.85,
    ),
    cue(
        r"\b(?:cut(?:ting)?|burn(?:ing|ed)?|scratch(?:ing|ed)?) (?:my )?(?:arms?|wrists?|legs?"
        r"|thighs?|skin)\b",
        0.85,
    ),
    cue(r"\bsuicid(?:al|e)\b", 0.75),
    cue(
        r"\b(?:commit(?:ting)?|attempt(?:ed|ing)?) suicide\b|\bsuicide (?:plan|note|letter"
        r"|attempt|method)s?\b",
        0.85,
    ),
    cue(
        r"\b(?:think|thinking|thought|thoughts|considering|contemplating|consider|planning)"
        r" (?:a lot )?(?:about |of )?(?:swerving|crashing|jumping|overdosing|cutting|not waking up"
        r"|suicide|killing"
        r" myself|ending (?:it|my life|things)|dying|death|not being here|not existing)\b",
        0.85,
    ),
    # ending one's life
    cue(r"\bend(?:ing|ed)? it all\b|\bend(?:ing|ed)? everything\b", 0.85),
    cue(r"\bend(?:ing|ed)? things\b(?! with| between| off with)", 0.45),
    cue(
        r"\bend(?:ing|ed)? (?:it|things|everything|it all|my life) (?:for good|forever|permanently"
        r"|tonight)\b",
        0.85,
    ),
    cue(
        r"\b(?:end|ending|ended) it\b(?! (?:with|between|off with|for|early|there|here|now,"
        r"|on a))",
        0.6,
    ),
    cue(r"\b(?:stop|end|be over|over)\W{1,5}(?:permanently|forever|for good|for ever)\b", 0.75),
    cue(
        r"\b(?:want|need|wish)\b[^.!?\n]{0,12}\b(?:it|everything|it all|this|the pain|my life)"
        r" to (?:stop|end)\b",
        0.45,
        contextual=True,
    ),
    cue(
        r"\b(?:want|need|wish)\b[^.!?\n]{0,12}\b(?:everything|it all|all of it) to stop\b"
        r"(?! (?:for a|for one|for just|so i)\b)",
        0.55,
        contextual=True,
    ),
    cue(
        r"\bdo something (?:to|stupid to|bad to) myself\b|\bdo something (?:stupid|drastic"
        r"|permanent)\b|\bsomething drastic\b",
        0.75,
    ),
    cue(
        r"\b(?:walk(?:ed|ing)?|swim(?:ming)?|swam|drive|drove|driving|step(?:ped|ping)?|run"
        r"|ran) (?:out )?(?:into|in front of|off|under) (?:the |a |an )?(?:sea"
        r"|ocean|river|lake|traffic|train|bus|truck|cliff|edge|bridge|car)\b",
        0.7,
    ),
    cue(r"\bgoodbye (?:text|message|note|letter|email|post|video|call)s?\b", 0.6),
    cue(
        r"\bnot (?:answering|responding|picking up)\b|\bjust in case\b|\bnot for (?:camping"
        r"|cooking|work|hiking|climbing|the garden)\b|\b(?:in my|under my) (?:drawer|bed"
        r"|pillow|closet|desk)\b",
        0.3,
    ),
    cue(
        r"\b(?:threw|throws|thrown|punched|punches|pushed|pushes|shoved|strangled|choked|hit)"
        r" (?:[\w']+ ){0,3}(?:at |into )?me\b"
        r"|\bnext time (?:it'?ll|it will|he'?ll|she'?ll|they'?ll) be worse\b"
        r"|\byou'?ll regret\b|\bor else\b",
        0.55,
        "any",
    ),
    cue(
        r"\b(?:hurting|hurt|attacking|attack|killing|stabbing|punching|shooting) (?:someone"
        r"|somebody|people|everyone|anyone)\b",
        0.5,
    ),
    cue(r"\b(?:close to|about to|going to|gonna) (?:snap|snapping|lose it|losing it)\b", 0.3),
    cue(
        r"\b(?:hope|wish|pray) (?:that )?i (?:just )?(?:die|get hit|don'?t make it|never wake"
        r"|crash|get sick and die)\b",
        0.85,
        "first",
    ),
    cue(
        r"\b(?:want|wish|need|hope) (?:someone|somebody|something|a car|a bus|a truck|god)"
        r" (?:to|would) (?:kill|hit|end) me\b",
        0.8,
        "first",
    ),
    cue(
        r"\b(?:life|living|it|my life)(?:'s| is)? (?:not|isn'?t|ain'?t|no longer) worth (?:living"
        r"|it any ?more|living for|the pain)\b",
        0.8,
        negatable=False,
    ),
    cue(
        r"\b(?:going to|gonna|want to|wanna|about to|thinking (?:about|of)) (?:jump|jumping)\b",
        0.55,
    ),
    cue(
        r"\b(?:bought|buying|got|getting|ordered|found|have|hid|hidden|stashed|hoarding|keep"
        r"|kept|keeping) (?:a |some |the |my |enough )?(?:[\w']+ ){0,2}(?:rope|noose|gun|razors?"
        r"|razor blades?|blades?|pistol|rifle|ammo|bullets|charcoal|pills|sleeping pills)\b",
        0.45,
    ),
    cue(r"\bi (?:have|made|got|'ve got) a plan\b", 0.3),
    cue(
        r"\bwish (?:i'?d|i had|i was|i were|i) (?:never|not) (?:been )?born\b"
        r"|\bwish i (?:hadn'?t|wasn'?t|weren'?t) (?:been )?born\b",
        0.9,
        "first",
    ),
    cue(
        r"\b(?:tonight|today)(?:'s| is) (?:the|my) last (?:night|day)\b|\bmy last (?:night|day)"
        r" (?:alive|on earth|here)\b",
        0.7,
    ),
    cue(
        r"\b(?:should|could|might|gonna|going to|will) (?:just )?jump\b(?! (?:in|into|on|at|rope"
        r"|start|ahead|right))",
        0.6,
    ),
    cue(
        r"\b(?:letters?|notes?|messages?) (?:explaining|saying|about) why\b|\bexplaining why i\b",
        0.6,
    ),
    cue(
        r"\b(?:bottle|box|handful|pile|stash) of (?:pills|meds|tablets|painkillers|sleeping pills"
        r"|antidepressants)\b",
        0.45,
    ),
    cue(r"\b(?:staring at|looking at|counting|holding) (?:it|them)\b", 0.25),
    cue(
        r"\b(?:staring at|looking at|counting|holding) (?:the|my|all the|all my) (?:pills|bottle"
        r"|rope|blade|razor|meds)\b",
        0.5,
    ),
    cue(
        r"\b(?:want|need|ready for|wish|wishing|hope|waiting for)\b[^.!?\n]{0,20}\b(?:it|this"
        r"|everything|all of it|life|my life|it all) (?:to be |to |would be |will be )?(?:over|end)"
        r"\b(?! with)",
        0.7,
        contextual=True,
    ),
    cue(
        r"\bover for good\b|\bend of the road\b"
        r"|\btired of fighting\b(?=\s*(?:[.!?,;]|$|any ?more|it\b"
        r"|this\b|for my life|to (?:live|stay|survive|keep)))"
        r"|\bgive up on (?:life"
        r"|living)\b|\bgiving up on (?:life|living)\b",
        0.7,
    ),
    cue(r"\b(?:giv(?:e|ing)|gave) up on (?:everything|it all|myself)\b", 0.45),
    cue(
        r"\b(?:don'?t|can'?t|do not|cannot|never) see (?:a |any )?(?:future|way out|point|light"
        r"|tomorrow|reason)\b(?! with| for (?:us|this|that|the|our)| in (?:this|that|the|our))"
        r"|\bno future\b(?! with| for (?:us|this|that|the|our)| in (?:this|that|the|our))"
        r"|\bno way out\b",
        0.6,
        negatable=False,
        contextual=True,
    ),
    cue(
        r"\b(?:won'?t|will not|wont|might not|may not) (?:be (?:here|around|alive)|make it"
        r"(?: to| through)?|see (?:tomorrow|christmas|next (?:week|year|month)))\b"
        r"(?! (?:next|this|on|at|for|until|till|today|tomorrow|later|in the|when|because|from"
        r"|to (?:the|a|an|my|your|his|her|their|work|class|school|dinner|lunch|practice))\b)",
        0.55,
        negatable=False,
        contextual=True,
    ),
    cue(
        r"\b(?:notes?|letters?|messages?) (?:to|for) (?:my )?(?:family|mom|mum|dad|parents|kids"
        r"|friends|everyone|sister|brother|wife|husband|partner)\b",
        0.45,
    ),
    cue(
        r"\bwould (?:anyone|anybody|people|they) (?:even )?(?:look for|notice|care|miss|come to"
        r"|find)\b",
        0.5,
    ),
    cue(
        r"\b(?:step(?:ping)?|jump(?:ing)?|fall(?:ing)?|walk(?:ing)?|lean(?:ing)?) (?:forward|off"
        r"|in front|out in front|into traffic|onto the tracks|over the edge)\b",
        0.5,
    ),
    cue(r"\b(?:platform|edge|ledge|oncoming)\b", 0.2),
    cue(
        r"\bmake (?:him|her|them|everyone) pay\b|\bi know where (?:he|she|they) lives?\b"
        r"|\b(?:get|take) revenge\b",
        0.45,
    ),
    cue(
        r"\b(?:have|got|bring|brought|take|took|grab|grabbed|get|carry|carrying)"
        r" (?:a |my |the |his |her |my (?:dad|mom|father|brother)'s )?(?:gun|knife|rifle|pistol"
        r"|weapon)\b",
        0.5,
    ),
    cue(r"\b(?:end|ending|take|taking|took) (?:my|his|her|their) (?:own )?li(?:fe|ves)\b", 0.9),
    cue(r"\b(?:want|going|gonna|plan(?:ning)?|ready|decided) to end it\b(?! with)", 0.6),
    cue(
        rf"\b(?:don'?t|do not|dont|no longer|never) {_THINK}(?:want|wanna|wish) (?:to )?"
        r"(?:live|be alive|exist|go on|keep going|continue living|wake up|do life|do this life)\b"
        r"(?! (?:in|with|at|near|on|like (?!this|that)|there|somewhere|together|far|close|by"
        r"|alone|without|the|a|an|this|that|my|holiday|vacation|trip|tour|date|diet|stage|early"
        r"|tomorrow early|so early|before|for (?:the|work|school|class|a|my|an?)|until|till"
        r"|to (?:that|the|my|an?) (?!pain|hurt|reality|life|world|nightmare|same))\b)",
        0.85,
        negatable=False,
    ),
    cue(
        rf"\b(?:don'?t|do not|dont|no longer) {_THINK}(?:want|wanna) (?:to )?be "
        r"(?:here|around)(?: any ?more| no more| to (?:see|find out)| much longer| for long)\b",
        0.9,
        negatable=False,
        contextual=True,
    ),
    cue(
        rf"\b(?:don'?t|do not|dont) {_THINK}(?:want|wanna) (?:to )?be (?:here|around)\b",
        0.5,
        negatable=False,
        contextual=True,
    ),
    cue(
        r"\bno (?:point|reason|purpose|use) (?:in |to |of |for )?(?:me (?:to |in )?)?(?:living|live"
        r"|life|being alive|going on|go on|keep(?:ing)? going|keep living|go on living|carry on"
        r"|continue|stay(?:ing)?|exist(?:ing)?|be(?:ing)? here|wak(?:e|ing) up"
        r"|stay(?:ing)? alive|trying any ?more)\b(?! (?:the|a|an|this|that|on|at|with)\b)",
        0.85,
        negatable=False,
    ),
    cue(
        r"\b(?:what'?s|whats|what is) (?:even )?the point (?:of|in) (?:living|life|being alive"
        r"|going on|existing|(?:(?:even )?trying to )?stay(?:ing)? alive|me|my life|my existence"
        r"|being me|carrying on"
        r"|waking up)\b(?! (?:the|a|an|this|that|my|holiday|vacation|trip|tour|date|diet|with"
        r"|at|on)\b)",
        0.85,
    ),
    cue(
        r"\b(?:what'?s|whats|what is) (?:even )?the point (?:of|in) (?:anything|any of (?:this|it)"
        r"|trying|it all)\b",
        0.45,
        contextual=True,
    ),
    cue(
        r"\b(?:(?:tired|sick|exhausted|weary) (?:of|from)|hate|done with|over) (?:living|being"
        r" alive|existing|life|being here|my life|this life|waking up)\b(?! (?:in|with|at|on"
        r"|out of|early|for|so|to"
        r"|paycheck|like (?!this|that)|as an?|the|alone|admin|stuff|chores|insurance|before"
        r"|until|till|without|on (?:a|mondays?))\b)",
        0.8,
    ),
    cue(
        r"\bdone with (?:living|everything|it all|this world)\b(?! (?:on|in|for|at|about|from"
        r"|at work)\b)",
        0.7,
    ),
    cue(
        r"\bcan'?t (?:do this|go on|take (?:it|this)|keep going|cope)(?: any ?more| much longer)?"
        r"\b",
        0.45,
        negatable=False,
        contextual=True,
    ),
    cue(r"\bcan'?t (?:go on )?live like (?:this|that)\b", 0.7, negatable=False),
    cue(r"\b(?:goodbye|bye) (?:everyone|world|forever|all|cruel)\b", 0.6, contextual=True),
    cue(
        r"\b(?:said|saying|say|said all) (?:my )?goodbyes?\b|\b(?:gave|giving|given) away (?:all )?"
        r"my (?:stuff|things|belongings|possessions)\b",
        0.7,
        contextual=True,
    ),
    cue(
        r"\b(?:finally|gonna|going to|ready to) (?:finally )?do it\b|\btonight'?s the night\b", 0.35
    ),
    cue(r"\b(?:goodbye|farewell|final|last) (?:letters?|notes?|messages?)\b", 0.75),
    cue(r"\b(?:want|need) (?:it|everything|it all|the pain|this) to (?:stop|end) forever\b", 0.8),
    cue(
        r"\b(?:disappear|vanish|sleep) forever\b|\b(?:never|not) (?:wak(?:e|ing)|woke) up\b"
        r"(?! (?:until|till|before|early|at|on time|in time)\b)",
        0.7,
        contextual=True,
    ),
    cue(r"\bi'?m (?:such )?a burden\b|\b(?:everyone|everybody)'?s? burden\b", 0.35),
    # means and plans
    cue(r"\b(?:overdos(?:e|ed|ing)|od'?d|lethal dose|painless(?: way)?s?)\b", 0.6),
    cue(
        r"\bways to (?:die|kill myself|end it|end my life|go)\b|\bhow to (?:kill myself|die"
        r"|end it|end my life|overdose)\b",
        0.85,
    ),
    cue(
        r"\bpills? (?:saved|stockpiled|hoarded|ready|lined up)\b|\b(?:saved|saving|stockpil\w*"
        r"|hoard\w*|collecting) (?:up )?(?:the |my |all |some |a lot of )?(?:\w+ )?(?:pills|meds"
        r"|tablets|antidepressants|painkillers|opioids|insulin|prescriptions?|medications?)\b",
        0.8,
    ),
    cue(
        r"\b(?:took|take|taking|swallowed|swallow|swallowing|downed|ate) (?:a (?:bunch|handful|lot"
        r"|load|whole bottle|bottle)|all|every|the whole|too many|\d+|loads|lots) (?:of )?"
        r"(?:[\w']+ ){0,3}(?:pills|meds|tablets|medication|painkillers|sleeping pills|paracetamol"
        r"|tylenol|ibuprofen)\b",
        0.85,
    ),
    cue(
        r"\b(?:drive|driving|drove|crash(?:ing)?|steer(?:ing)?) (?:my |the )?(?:car )?(?:into|off)"
        r" (?:a |the |an )?(?:wall|tree|bridge|cliff|traffic|truck|river|lake|oncoming)\b",
        0.8,
    ),
    cue(
        r"\b(?:parking garage|rooftop|roof|bridge|balcony|ledge|cliff|train tracks|railway"
        r"|tracks)\b",
        0.25,
    ),
    cue(r"\bhow (?:high|tall|far down|deep)\b", 0.25),  # with a height: concern alone
    cue(
        r"\b(?:sleeping )?pills? would be\b|\bhow many (?:of )?(?:my )?(?:\w+ )?(?:pills|meds"
        r"|tablets)\b",
        0.5,
    ),
    cue(
        r"\b(?:jump(?:ing)?|throw(?:ing)? myself) (?:off|from|in front of) (?:a |the |my )?"
        r"(?:\w+ )?(?:bridge|roof|building|train|balcony|cliff|window|car|bus)\b",
        0.85,
    ),
    cue(r"\b(?:noose|rope|razor|blade)\b", 0.3),
    cue(
        r"\btonight is the night\b|\bhow i'?d do it\b|\b(?:planned|plan(?:ning)?) (?:it|how|my"
        r" death|to do it)\b",
        0.45,
    ),
    # violence, towards others or against the writer
    cue(
        r"\b(?:going to|gonna|want to|wanna|will|'ll|plan to|about to|ready to|could) "
        r"(?:kill|hurt|stab|shoot|murder|strangle|beat up|attack) (?:him|her|them|someone"
        r"|somebody|everyone|people|you|my \w+|anyone|that \w+|this \w+)\b",
        0.6,
    ),
    cue(
        r"\b(?:hits?|hitting|beats?|beating|beat|chokes?|choked|choking|hurts?|abuses?"
        r"|abused|kicks?|kicked|slaps?|slapped|threatens?|threatened) me\b",
        0.55,
        "any",
    ),
    cue(
        r"\b(?:he'?ll|she'?ll|they'?ll|he will|she will|they will|he'?d|she'?d|they'?d|he would"
        r"|she would|they would|he said he'?d|she said she'?d) (?:\w+ )?(?:kill|hurt|hit|beat|stab"
        r"|shoot) me\b|\bthreat(?:en|ens|ened|ening)? (?:me |to )?(?:to )?(?:kill|hurt)\b",
        0.6,
        "any",
    ),
    cue(
        r"\b(?:scared|afraid|terrified|worried) (?:that )?(?:he|she|they|he'?ll|she'?ll"
        r"|they'?ll)(?: will| is going to| might| could)? (?:kill|hurt|hit) me\b",
        0.8,
        "any",
    ),
    cue(r"\b(?:knife|gun|rifle|pistol|weapon|bullets?)\b", 0.3),
    cue(r"\b(?:i'?m (?:dead )?serious|i mean it|not joking|not kidding)\b", 0.2),
    # any death word at all: weak on its own, so that two signals are needed to interrupt;
    # "my friend" / fiction framing scale it down like any other match
    cue(
        r"\b(?:die|dying|died|dead|death|kill|killing|killed|suicide|cut myself|wanna die"
        r"|end myself|not be alive|alive|existing|exist)\b",
        0.3,
    ),
)
