"""English cues for passive ideation, hopelessness, burden and goodbye hints.

The phrasings crisis lines list as warning signs ("everyone would be better off without
me", "I wish I could go to sleep and not wake up", "what's the point of going on", "I'm a
burden", giving things away) and the indirect ways people say them. Read with the table in
``safety_cues.py``; the weights follow the same scale (see its docstring).
"""

from __future__ import annotations

from typing import Final

from rilai_desktop.turn.sensors.scoring import Cue, cue

_WHO: Final = (
    r"(?:everyone|everybody|people|they|my family|my (?:parents|kids|friends|partner|mom|mum"
    r"|dad)|the world|you all|y'?all|the people (?:i love|around me)|we all|all of you)"
)
_GONE: Final = (
    r"(?:without me(?: around| here| in (?:it|their lives))?|if i (?:just )?(?:was|were"
    r"|wasn'?t|weren'?t|died|disappeared|didn'?t exist|never existed|left (?:forever|for good"
    r"|this world)|had never been born|was never born)(?: (?:dead|gone|here"
    r"|around|alive))?|if i'd never been born|once i'?m gone|when i'?m gone"
    r"|not having (?:to deal with )?me(?: around)?)\b"
)
_END: Final = r"(?=\s*(?:[.!?,;:…)\n]|$|(?:and|but|honestly|tbh|anymore|lol|i|i'm|im)\b))"

PASSIVE: Final[tuple[Cue, ...]] = (
    # others better off
    cue(
        rf"\b{_WHO}(?: i love| i know| around me| in my life)?(?:'d| would| will| are gonna"
        rf"| is gonna)(?: all| honestly| probably| really"
        rf"| just)? be (?:so much |so |much |a lot |way )?"
        rf"(?:better|happier|relieved|fine|okay|ok|free"
        rf"|lighter)(?: off?)?(?: a better place| a happier place)? {_GONE}",
        0.85,
        "first",
        negatable=False,
    ),
    cue(r"\bbe (?:a )?(?:better|happier|nicer) place without me\b", 0.85, "first"),
    # the wish not to wake up, to sleep for ever
    cue(
        r"\b(?:wish(?:ing|ed|es)?|hop(?:e|ing|ed)|pray(?:ing)?)(?: that)? (?:i|to) (?:just )?"
        r"(?:don'?t|never|not|won'?t|wouldn'?t|didn'?t|couldn'?t) (?:ever )?wake up\b",
        0.85,
        "first",
        negatable=False,
    ),
    cue(
        r"\b(?:easier|better) if i (?:just )?(?:didn'?t|never|don'?t|wouldn'?t) wake up\b",
        0.85,
        "first",
        negatable=False,
    ),
    cue(r"\b(?:fall |falling )?asleep forever\b|\bfall asleep and (?:never|not) wake\b", 0.75),
    # not seeing oneself alive, should not be alive
    cue(
        r"\b(?:can'?t|don'?t|cannot|do not) (?:see|imagine|picture) (?:myself|me) (?:being )?"
        r"(?:alive|here|around|living|still here|making it|surviving|lasting)\b",
        0.8,
        "first",
        negatable=False,
    ),
    cue(
        r"\bshould(?:'ve| have) (?:just )?died\b|\bshouldn'?t (?:be alive|have been born|exist"
        r"|still be here)\b|\b(?:don'?t|do not) deserve to (?:live|be alive|exist|be here)\b",
        0.85,
        "first",
        negatable=False,
    ),
    cue(r"\bi shouldn'?t be here\b", 0.55, "first", negatable=False, contextual=True),
    # pointlessness
    cue(
        r"\bwhy (?:even )?(?:bother|should i (?:bother|keep)|keep) (?:living|going on|staying"
        r" alive|waking up|trying to live|to live|existing|being alive)\b",
        0.8,
        negatable=False,
    ),
    cue(rf"\b(?:what'?s|whats|what is) (?:even )?the point\b{_END}", 0.4, contextual=True),
    cue(
        r"\b(?:life|my life|living|existence) (?:has|holds) no (?:meaning|point|purpose)\b"
        r"|\bmy (?:life|existence) is (?:meaningless|pointless|worthless)\b"
        r"|\bnothing (?:matters|means anything) (?:any ?more|to me any ?more)\b",
        0.55,
        negatable=False,
    ),
    cue(
        r"\bnothing (?:left )?(?:to live for|left for me)\b|\bno reason (?:for me )?to (?:stay"
        r"|be here|keep going)\b",
        0.6,
        negatable=False,
    ),
    cue(
        r"\b(?:nothing|it|things) (?:will|is going to|'s gonna|is gonna) (?:ever|never) (?:get"
        r" better|change)\b|\bnever going to get better\b",
        0.4,
        negatable=False,
        contextual=True,
    ),
    cue(r"\b(?:hopeless|no hope left|empty inside)\b", 0.3),
    cue(
        r"\b(?:picture|picturing|imagine|imagining|plan|planning|thinking about) my (?:own )?"
        r"(?:funeral|death)\b",
        0.7,
    ),
    cue(
        r"\bhow (?:much|many) (?:of )?(?:my |the )?(?:\w+ )?(?:pills|meds|medication|tablets"
        r"|insulin|painkillers)[^.!?]{0,25}\b(?:would|will|to) (?:be enough|do it|kill|be lethal)",
        0.85,
    ),
    cue(
        r"\bpretend(?:ing)? (?:i|to) (?:want to|wanna) (?:be alive|live|be here|keep going)\b"
        r"|\b(?:done|tired of|sick of|stop(?:ped)?|give up) (?:trying|fighting) to (?:stay alive"
        r"|live|survive|keep going|be here)\b",
        0.85,
    ),
    cue(r"\b(?:not|no longer) (?:scared|afraid) of (?:dying|death)\b", 0.6),
    cue(r"\b(?:scared|afraid|terrified) of living\b", 0.5),
    cue(
        r"\bwant (?:everything|it all|it|the world|the noise|my head) to (?:go |be |stay )?"
        r"(?:quiet|dark|silent|still|black|over|stop) forever\b",
        0.8,
    ),
    cue(r"\bi'?m already (?:gone|dead)\b|\bmake it official\b", 0.4, contextual=True),
    cue(r"\bwhy (?:even )?(?:keep|go on|bother) going\b(?=\s*(?:[.!?,]|$))", 0.6),
    cue(r"\bwhich (?:bridge|building|rooftop|roof|pills|rope|method|way to go)\b", 0.6),
    cue(
        r"\bwaiting (?:to die|for (?:death|the end|my life to end|it to (?:end|be over)|my turn to"
        r" die))\b",
        0.8,
    ),
    cue(
        r"\b(?:don'?t|do not|wouldn'?t|won'?t) (?:even )?care if i (?:die|died|live or die"
        r"|don'?t wake up|didn'?t wake up|get hit|got hit|never wake up|wake up or not)\b",
        0.8,
        "first",
        negatable=False,
    ),
    cue(r"\bif i (?:didn'?t|don'?t|never) wake up\b", 0.6, "first", contextual=True),
    cue(r"\bi (?:just |really )?want out\b", 0.45, contextual=True),
    cue(
        r"\b(?:fall asleep|sleep|disappear|vanish|go away|leave) and (?:never|not) (?:come back"
        r"|return|wake up)\b",
        0.85,
    ),
    cue(
        r"\b(?:so |too )?(?:easy|easier|tempting) to (?:just )?(?:let go|slip away|give up on"
        r" (?:everything|life|living)|not wake up)\b",
        0.55,
    ),
    # exhausted by everything (a concern on its own, not a crisis)
    cue(
        rf"\b(?:tired|sick|exhausted|done) (?:of|with) (?:everything|it all|all of it|all of this"
        rf"|everyone and everything){_END}",
        0.4,
        contextual=True,
    ),
    cue(r"\b(?:i'?m|im|i am) (?:so |just |really )?done\b(?=\s*(?:[.!?]|$))", 0.3, contextual=True),
    cue(
        r"\b(?:can'?t|cannot) (?:keep going|go on|do this|hold on|keep doing this)"
        r" (?:much|any|for much) longer\b|\bdon'?t think i can (?:keep going|go on|hold on"
        r"|do this) (?:much |any )?longer\b",
        0.6,
        negatable=False,
    ),
    # burden, worthlessness
    cue(
        r"\b(?:i'?m|i am|im|i feel (?:like )?(?:i'?m )?|feel like|i'?ve become|being)"
        r" (?:such |just |nothing but |only |a huge |so much of )?(?:a |an )?(?:burden|weight"
        r"|drain|problem)(?: (?:to|on|for) (?:everyone|everybody|my family|my (?:parents|kids"
        r"|friends|partner)|them|people|others|you all|the people (?:i love|around me)))\b"
        r"(?!,? (?:when|whenever|if|asking|to ask|by asking)\b)",
        0.6,
    ),
    cue(r"\bnothing but a burden\b|\btired of being a burden\b", 0.6),
    cue(
        r"\bstop(?:ped)? being a (?:problem|burden|bother)\b|\bnot (?:going to|gonna) be a"
        r" (?:problem|burden|bother) (?:for|to) (?:anyone|anybody|you|everyone)"
        r"(?: much| for much)? longer\b",
        0.5,
    ),
    cue(r"\b(?:permanently|for good)\b(?=\s*[.!?]|$)", 0.3, contextual=True),
    cue(r"\bwaste of (?:space|oxygen|air|a life|skin)\b|\btaking up space\b", 0.55, "first"),
    cue(r"\b(?:nobody|no one|no-one) (?:needs|wants|cares about) me\b", 0.4, "first"),
    cue(r"\b(?:a )?lost cause\b", 0.3, contextual=True),
    cue(
        r"\b(?:world|nobody|no one|everyone)(?: really)? (?:doesn'?t|does not|don'?t|wouldn'?t)"
        r" need me\b",
        0.4,
        "first",
    ),
    # leaving, goodbyes, things given away
    cue(
        r"\bleave (?:this|the) (?:world|earth|planet|life)\b|\btime for me to go\b",
        0.8,
        negatable=False,
    ),
    cue(r"\b(?:i'?m|im|i am) ready to go\b(?=\s*(?:[.!?]|$))", 0.3, contextual=True),
    cue(
        r"\bwon'?t need (?:it|them|this|these|any of (?:it|this|them))"
        r" (?:where i'?m going|any ?more"
        r"|after (?:this|tonight|today))\b",
        0.6,
    ),
    cue(
        r"\bif i died[^.!?]{0,30}\b(?:relieved|relief|wouldn'?t mind|nobody|no one|better)\b",
        0.7,
        "first",
    ),
    cue(r"\b(?:know|knows) (?:exactly )?what (?:it'?s|they'?re|that'?s) for\b", 0.35),
    cue(r"\bexplaining why\b(?=\s*(?:[.!?]|$))|\bin case\b(?=\s*(?:[.!?]|$))", 0.35),
    cue(r"\bthis is (?:goodbye|my last message)\b|\bmy last message\b", 0.7),
    # disappearing
    cue(
        r"\b(?:want(?:s|ed)?|wanna|wish|need|going) (?:to )?(?:just )?"
        r"(?:disappear|vanish|be gone)\b",
        0.45,
        contextual=True,
    ),
    cue(
        r"\b(?:disappear|vanish)(?:ed|ing)? (?:and never come back|for good|permanently"
        r"|from (?:this"
        r"|the) (?:world|earth|face of the earth))\b",
        0.85,
    ),
    # compositions: a stance on living, in words a phrase list does not foresee
    cue(
        r"\btoo (?:painful|hard|much|exhausting|heavy) to (?:keep )?(?:living|live|go on|keep"
        r" going|be alive|exist|carry on)\b",
        0.85,
    ),
    cue(
        r"\b(?:what'?s|what is|whats) the (?:use|sense|point) (?:of|in) (?:living|being alive"
        r"|going on(?!\s+(?:a|an|the|this|that|my|our|with|about|holiday|vacation|trips?|dates?)\b)"
        r"|existing|life|trying to live|staying alive)\b",
        0.85,
    ),
    cue(
        r"\b(?:disappointed|upset|sad|angry|annoyed) (?:that )?i (?:woke up|(?:am|'?m) still"
        r" (?:alive|here)|survived|didn'?t die|keep waking up)\b",
        0.8,
        "first",
    ),
    cue(
        r"\b(?:can'?t|cannot) (?:imagine|picture|face|do) (?:living|being alive|going on"
        r"|another (?:year|day|week|month|night))(?: (?:like this|of this))?\b",
        0.7,
        negatable=False,
        contextual=True,
    ),
    cue(
        r"\b(?:think|thinking|thought)(?: a lot)? (?:about|of) (?:not being (?:alive|here|around)"
        r"|not existing|being dead|not waking up|my death|dying)\b",
        0.8,
    ),
    cue(
        r"\b(?:dying|death|suicide|ending it|killing myself|ending my life) (?:is|seems|feels"
        r" like|would be) (?:the )?(?:only|best|easiest|last) (?:option|way|choice|answer"
        r"|solution|way out)\b",
        0.85,
    ),
    cue(r"\bnever (?:have to )?wake up (?:to this|again)\b", 0.75, contextual=True),
    cue(
        r"\b(?:only thing|only reason|only one|all that'?s?|nothing but \w+) (?:keeping|holding"
        r"|keeps|holds) me (?:here|alive|going|around)\b",
        0.75,
    ),
    cue(
        r"\b(?:don'?t|can'?t|do not|cannot) see (?:why|the point|a reason|any reason) (?:i should"
        r" |to |for me to )?(?:keep going|go on|live|keep living|stay alive|carry on|be here)\b",
        0.8,
        negatable=False,
    ),
    cue(r"\bstop (?:being|existing)\b(?=\s*(?:[.!?]|$))", 0.7),
    cue(r"\b(?:i'?m |i am )?sorry for everything\b", 0.45, contextual=True),
    cue(r"\btake care of (?:yourselves|each other|my (?:cat|dog|kids|family|plants))\b", 0.35),
    cue(
        r"\bsomething to remember me by\b|\bremember me (?:when|after) i'?m gone\b",
        0.7,
        "first",
    ),
    cue(
        rf"\b{_WHO}(?: i love| i know)? would have (?:a |an )?(?:better|easier|happier|nicer)"
        r" (?:life|time|lives) without me\b",
        0.85,
        "first",
    ),
    cue(
        r"\b(?:the world|the universe|everything|god|life) (?:is |keeps )?(?:telling|begging"
        r"|asking) me to (?:leave|go|die|end it|give up|disappear)\b",
        0.7,
        "first",
    ),
    cue(
        r"\b(?:i'?ll|i will|i'?m going to) be gone (?:soon|before long|by (?:tomorrow|monday"
        r"|then|morning))\b",
        0.6,
        contextual=True,
    ),
    cue(
        r"\b(?:going to|gonna|will|want to|decided to|ready to|made up my mind)[^.!?]{0,20}\bend"
        r" things\b(?! with| between| off)",
        0.7,
    ),
    cue(r"\bmade up my mind\b", 0.3, contextual=True),
    cue(
        r"\b(?:standing|sitting|been|stood|sat) (?:on|at) (?:the |a |this )?(?:bridge|ledge"
        r"|edge of the roof|rooftop|cliff edge|cliff)\b",
        0.5,
        contextual=True,
    ),
    cue(
        r"\b(?:won'?t|will not|not going to|don'?t think i'?ll|might not|may not) be (?:around"
        r"|here|alive) (?:much|for much|very much) longer\b",
        0.8,
        "first",
        negatable=False,
    ),
    cue(r"\bwhat'?s (?:even |really )?(?:keeping|holding) me (?:here|alive|going)\b", 0.6),
    cue(
        r"\b(?:notes?|letters?|messages?) to leave behind\b|\bleave behind (?:a )?(?:note|letter)",
        0.7,
    ),
    cue(
        r"\b(?:take|swallow|down) (?:all|every one|each one) of (?:them|these|those|the pills|my"
        r" pills|my meds)\b",
        0.75,
    ),
    cue(
        r"\b(?:a relief|relieved|peaceful|a release|a mercy|easier) to (?:die|be dead|not exist"
        r"|not wake up|be gone)\b",
        0.85,
    ),
    cue(r"\bclose my eyes and (?:never|not) (?:open them|wake up)\b", 0.85),
    cue(r"\bdone (?:living|being alive|existing)\b", 0.8),
    cue(
        r"\bonly (?:alive|here|living|breathing|still here) (?:out of habit|because of|for (?:my"
        r"|the|them|him|her))\b",
        0.6,
    ),
    cue(r"\bstop (?:hurting|the pain|feeling anything)\b", 0.35),
    cue(
        r"\b(?:can'?t|cannot) (?:bring myself to |make myself )?(?:want|wanna) to (?:be alive|live"
        r"|keep living|exist)\b",
        0.8,
        negatable=False,
    ),
    cue(
        r"\b(?:don'?t|do not|no longer) (?:want to|wanna) be (?:a )?part of (?:this|the) world\b",
        0.85,
        negatable=False,
    ),
    cue(
        r"\b(?:life|living|my life|existence) (?:is|feels|seems) (?:so |just |completely )?"
        r"(?:pointless|meaningless|worthless|unbearable|not worth it)\b",
        0.6,
    ),
    cue(
        r"\bready to (?:leave|go|die|end it|let go)\b(?! (?:the|for|to|now|home|work|soon)\b)", 0.45
    ),
    cue(r"\bbetter off with (?:the|my) (?:life )?insurance\b", 0.8),
    cue(r"\bif i'?m (?:gone|dead|not here|not around)\b", 0.5, contextual=True),
    cue(r"\bwon'?t have to (?:worry about|deal with|take care of|put up with) me\b", 0.5),
    cue(r"\bthe rest of me to follow\b|\bdead inside\b", 0.5),
    cue(
        r"\b(?:don'?t want to|can'?t|cannot) face (?:another|one more) (?:day|morning|night|week)"
        r"|\b(?:don'?t want to|can'?t|cannot) face (?:tomorrow|life|living)\b",
        0.7,
        contextual=True,
    ),
    cue(r"\btonight(?:'s| is) the night\b", 0.6),
    cue(
        r"\b(?:see|find) (?:a|any|no) (?:way|reason) to (?:keep living|go on|live|keep going"
        r"|stay alive)\b",
        0.8,
    ),
    cue(
        r"\b(?:peaceful|nice|a relief|easier|calm|quiet) (?:it )?(?:would be|it'?d be) to"
        r" (?:just )?(?:not be here|not exist|not wake up|be gone|disappear|die|stop)\b",
        0.8,
    ),
    cue(r"\btime i fixed it for everyone\b|\bfix (?:it|this) for everyone\b", 0.5),
    cue(r"\b(?:tired|sick) of being the problem\b", 0.4),
    cue(
        r"\bwho (?:should|will|can) (?:get|have|take|look after) my (?:cat|dog|things|stuff|kids)",
        0.6,
    ),
    cue(
        r"\bstopped taking my (?:meds|medication|pills|insulin) on purpose\b|\bends? things"
        r" faster\b",
        0.7,
    ),
    cue(
        r"\b(?:don'?t|do not|can'?t|cannot) (?:want to |wanna )?(?:carry on|go on)\b"
        r"(?=\s*(?:[.!?,]|$|any ?more|like this))",
        0.7,
        negatable=False,
        contextual=True,
    ),
    cue(r"\b(?:a )?favou?r by (?:disappearing|dying|leaving|being gone|not being here)\b", 0.8),
    cue(
        r"\bnot planning (?:to be|on being) (?:here|around|alive) (?:next|by|for)"
        r" (?:month|week|year|christmas|summer|my birthday)\b",
        0.75,
    ),
    cue(r"\b(?:tonight|today)(?:,)? i'?m (?:finally )?(?:going to|gonna) do it\b", 0.75),
    cue(r"\balmost didn'?t come (?:down|back|home)\b", 0.75),
    cue(r"\b(?:fade|slip|drift) away\b", 0.5, contextual=True),
    cue(r"\b(?:didn'?t|never) come (?:home|back)(?: tonight)?,? ever\b", 0.75),
    cue(r"\bfall asleep and stay asleep\b|\bstay asleep (?:forever|for good)\b", 0.8),
    cue(r"\bdead weight\b", 0.55, "first"),
    cue(r"\b(?:don'?t|do not) want to come (?:back )?up\b", 0.6),
    cue(r"\bwasn'?t (?:their|your|everyone'?s) problem any ?more\b", 0.6),
    cue(
        r"\b(?:rope|noose|pills|gun|blade|note) (?:is |are )?ready\b|\bhave (?:the|a) (?:rope"
        r"|noose|gun) ready\b",
        0.8,
    ),
    cue(r"\b(?:just )?want to be gone\b", 0.6),
    cue(r"\b(?:don'?t|do not) be sad when i'?m gone\b|\bwhen i'?m gone\b", 0.6),
    cue(r"\bswallow(?:ing)? everything in the (?:medicine )?(?:cabinet|cupboard)\b", 0.85),
    cue(r"\bnothing would change if i (?:died|was gone|disappeared)\b", 0.7),
)
