"""Safety cues in Spanish, Portuguese, French, German and Italian.

Matched against the respelled copy (``safety_context.safety_text``): lower case, accents
stripped (``não`` → ``nao``, ``réveiller`` → ``reveiller``, ``wäre`` → ``ware``), so each
pattern is written without accents and reads both spellings. The phrasings follow the
warning-sign phrase lists of crisis lines in each language (docs/sensors.md) and the
idioms that must not fire ("me muero de risa", "ce boulot me tue") are in
``safety_context.SAFETY_IDIOMS``. Person is not resolved outside English: a match counts as
the writer's, which is what a chat message usually is.
"""

from __future__ import annotations

from typing import Final

from rilai_desktop.turn.sensors.scoring import Cue, cue

_NOT_PLACE_ES: Final = r"(?! (?:en|con|asi en|cerca|lejos|aqui en|al lado|sol[oa])\b)"
_NOT_PLACE_PT: Final = r"(?! (?:em|com|aqui em|perto|longe|sozinh[oa]|no|na|nesse|nessa)\b)"
_NOT_PLACE_FR: Final = r"(?! (?:a|en|avec|ici|chez|dans|au|aux|pres)\b)"
_NOT_PLACE_IT: Final = r"(?! (?:a|in|con|qui a|da|vicino|lontano)\b)"

WORLD: Final[tuple[Cue, ...]] = (
    # ── español ──
    cue(
        r"\b(?:(?:me )?quiero|quisiera|queria|ganas de|deseo|solo quiero) (?:solo |ya )?"
        r"(?:morir(?:me)?|matarme|suicidarme|dejar de existir|estar muert[oa]|desaparecer para"
        r" siempre)\b|\bme quiero (?:morir|matar)\b",
        0.9,
    ),
    cue(
        r"\b(?:quitarme la vida|suicidarme|suicidio|acabar con (?:mi vida|todo de una vez)"
        r"|pienso en (?:morir|matarme|la muerte))\b",
        0.85,
    ),
    cue(
        rf"\b(?:ya )?no quiero (?:seguir )?(?:vivir|viviendo|existir|despertar)\b{_NOT_PLACE_ES}",
        0.85,
    ),
    cue(
        r"\b(?:ya no|no) quiero (?:estar|seguir) aqui(?: nunca mas| mas| ya)\b|\bno quiero estar"
        r" (?:viv[oa]|en este mundo)\b",
        0.9,
        contextual=True,
    ),
    cue(r"\bno quiero (?:estar|seguir) aqui\b", 0.5, contextual=True),
    cue(r"\bya no quiero (?:estar|seguir) aqui\b", 0.85, contextual=True),
    cue(
        r"\b(?:seria|estaria|es) mejor (?:morirme|morir|estar muert[oa]|no existir|no estar aqui"
        r"|desaparecer para siempre)\b",
        0.85,
    ),
    cue(
        r"\bno tengo (?:razones|motivos?|razon) para vivir\b|\bsans raisons? de vivre\b"
        r"|\bplus (?:de|aucune) raisons? de vivre\b|\bnessun motivo per vivere\b"
        r"|\bkeinen grund (?:mehr )?(?:zu leben|zum leben)\b",
        0.85,
    ),
    cue(r"\b(?:cansad|hart)[oa]s? de (?:vivir|la vida|existir|estar viv[oa]|luchar)\b", 0.8),
    cue(r"\bcansad[oa]s? de todo\b(?=\s*(?:[.!?,;]|$|y\b))", 0.4, contextual=True),
    cue(
        r"\b(?:todos|todo el mundo|mi familia|ustedes|vosotros|el mundo)"
        r" (?:estarian|estaria|estariais|estaran|serian|seria) mejor sin mi\b"
        r"|\bsin mi (?:todos |ustedes |vosotros )?(?:estarian|estareis|estarias|estaran)"
        r" (?:todos )?mejor\b|\bmejor sin mi\b",
        0.85,
    ),
    cue(r"\bla vida no (?:vale|merece) la pena\b", 0.8),
    cue(
        r"\bno (?:tiene|le veo|veo) (?:ningun )?sentido (?:a )?(?:seguir(?: viviendo)?|vivir"
        r"|la vida|mi vida)\b|\bpara que seguir(?: viviendo)?\b",
        0.85,
    ),
    cue(r"\bya no le veo sentido a nada\b|\bnada importa ya\b", 0.5),
    cue(r"\b(?:no tengo|sin|perdi las) (?:mas |ya )?ganas de vivir\b", 0.85),
    cue(r"\bno tengo (?:fuerzas|fuerza) para (?:seguir|vivir)\b", 0.8),
    cue(r"\bquiero que todo (?:termine|acabe|se acabe)\b", 0.55),
    cue(r"\bnadie (?:me )?(?:extranaria|echaria de menos|notaria)\b", 0.6),
    cue(r"\bsi (?:me muriera|muero|me muero|desapareciera)\b", 0.45),
    cue(r"\bacabar con todo\b(?! (?:esto|eso|lo|de|el|la|en))", 0.75),
    cue(r"\b(?:ojala|quisiera|me gustaria) (?:nunca hubiera|no hubiera|no haber) nacido\b", 0.9),
    cue(
        r"\b(?:ojala|quisiera|quiero|me gustaria|ojala pudiera)(?: (?:dormir|dormirme) y)?"
        r" no (?:volver a )?despertar(?:me)?\b",
        0.85,
    ),
    cue(r"\b(?:soy|me siento) (?:una|un) (?:carga|estorbo)\b", 0.6),
    cue(r"\b(?:quiero|quisiera) desaparecer\b", 0.45, contextual=True),
    cue(r"\bdesaparecer y no volver(?: nunca| jamas)?\b", 0.85),
    cue(r"\bya no (?:puedo|aguanto) mas\b|\bno (?:puedo|aguanto) mas\b", 0.4, contextual=True),
    # ── português ──
    cue(
        r"\b(?:quero|queria|vontade de|eu so queria|so queria|desejo) (?:so )?(?:morrer|me matar"
        r"|me suicidar|sumir pra sempre|sumir para sempre|desaparecer pra sempre|desaparecer"
        r" para sempre|deixar de existir)\b",
        0.9,
    ),
    cue(
        r"\b(?:me matar|me suicidar|suicidio|tirar (?:a )?minha (?:propria )?vida|acabar com"
        r" (?:a )?minha vida|penso em morrer)\b",
        0.85,
    ),
    cue(rf"\bnao (?:quero|aguento) (?:mais )?viver\b{_NOT_PLACE_PT}", 0.85),
    cue(r"\b(?:nao tenho|sem|perdi a) (?:mais )?vontade de viver\b", 0.85),
    cue(r"\bnao quero mais (?:estar|ficar) aqui\b", 0.9, contextual=True),
    cue(r"\bcansad[oa]s? de (?:viver|lutar|existir|estar viv[oa])\b", 0.8),
    cue(r"\bcansad[oa]s? de tudo\b(?=\s*(?:[.!?,;]|$|e\b))", 0.4, contextual=True),
    cue(
        r"\b(?:voces|todos|todo mundo|minha familia|o mundo|a minha familia)"
        r" (?:estariam|estaria|ficariam|ficaria|seriam|seria|vao ficar)"
        r" (?:mais felizes|melhor(?:es)?)"
        r" sem mim\b|\bmelhor sem mim\b",
        0.85,
    ),
    cue(
        r"\b(?:queria|quero|gostaria de|queria poder)(?: (?:dormir|deitar) e)? (?:nao|nunca mais)"
        r" acordar(?: mais)?\b",
        0.85,
    ),
    cue(
        r"\bnao (?:vejo|tem|ha) (?:mais )?sentido (?:em |na |de )?(?:viver|vida|continuar)\b", 0.85
    ),
    cue(r"\b(?:sou|me sinto) um (?:peso|fardo)\b", 0.6),
    cue(r"\b(?:queria|quero) (?:poder )?(?:sumir|desaparecer)\b", 0.45, contextual=True),
    cue(r"\b(?:sumir|desaparecer) e (?:nunca mais|nao) voltar\b", 0.85),
    cue(
        r"\b(?:sumir|desaparecer) (?:pra|para) sempre\b|\bdesaparecer para siempre\b"
        r"|\bdisparaitre pour toujours\b|\bsparire per sempre\b|\bfur immer verschwinden\b",
        0.85,
    ),
    cue(r"\bnao aguento mais\b", 0.4, contextual=True),
    cue(r"\b(?:queria|preferia|gostaria de) (?:nao ter|nunca ter) nascido\b", 0.9),
    cue(r"\bacabar com tudo\b(?! (?:isso|isto|aqui|de|do|da|no|na|o|a))", 0.75),
    cue(
        r"\bninguem (?:sentiria|ia sentir|iria sentir|vai sentir) (?:a )?(?:minha )?falta\b"
        r"|\bninguem (?:notaria|perceberia|ia notar|ia perceber)\b",
        0.6,
    ),
    cue(r"\b(?:nao tenho|sem) (?:mais )?(?:motivos?|razao|razoes) (?:para|pra) viver\b", 0.85),
    cue(r"\bse eu (?:morresse|sumisse|desaparecesse)\b", 0.45),
    cue(r"\bquero que tudo (?:acabe|termine)\b|\blogo tudo (?:isso )?vai acabar\b", 0.55),
    # ── français ──
    cue(
        r"\b(?:je veux|j'ai envie de|je voudrais|j'aimerais|envie de|je souhaite)"
        r" (?:juste |seulement )?(?:mourir|me tuer|me suicider|etre mort(?:e)?|disparaitre pour"
        r" toujours|ne plus exister)\b",
        0.9,
    ),
    cue(r"\b(?:je veux |j'ai envie d')?en finir\b(?! avec (?!la vie|tout|moi|ma vie))", 0.75),
    cue(r"\b(?:me suicider|suicide|me tuer|mettre fin a (?:mes jours|ma vie))\b", 0.85),
    cue(rf"\bje ne veux plus vivre\b{_NOT_PLACE_FR}", 0.85),
    cue(r"\b(?:je n'ai )?plus (?:envie|gout) de vivre\b", 0.85),
    cue(r"\bje ne (?:peux|supporte) plus vivre (?:comme ca|ainsi)\b", 0.8),
    cue(
        r"\bne (?:plus (?:jamais )?|jamais plus |jamais )me reveiller\b"
        r"|\b(?:m'endormir|dormir) (?:et|pour) ne plus me reveiller\b",
        0.85,
    ),
    cue(
        r"\b(?:vous seriez|tout le monde serait|ils seraient|le monde serait|ma famille serait"
        r"|vous iriez|tu serais)(?: tous)? (?:beaucoup )?(?:mieux|plus heureux(?:se)?s?) sans moi\b"
        r"|\bsans moi (?:vous|tout le monde|ils) (?:seriez|serait|seraient|iriez)\b",
        0.85,
    ),
    cue(r"\bla vie ne vaut (?:plus|pas) la peine\b", 0.8),
    cue(
        r"\b(?:a quoi bon|a quoi ca sert de) (?:continuer|vivre|me lever|exister)\b"
        r"|\bma vie n'a plus (?:de|aucun) sens\b",
        0.8,
    ),
    cue(r"\bje regrette d'etre nee?\b", 0.85),
    cue(r"\bje suis un (?:fardeau|poids)\b", 0.6),
    cue(r"\bplus (?:la force|l'envie|le courage|le gout) de (?:vivre|continuer)\b", 0.85),
    cue(r"\b(?:l'interet|le sens|le but|l'utilite) de (?:vivre|continuer|la vie)\b", 0.8),
    cue(
        r"\b(?:plus simple|mieux|plus facile|plus heureux)[^.!?]{0,25}\bsi je (?:n'etais plus la"
        r"|mourais|disparaissais|n'existais pas)\b",
        0.85,
    ),
    cue(
        r"\bpersonne ne (?:remarquerait|verrait|me regretterait|s'en apercevrait"
        r"|le remarquerait)\b",
        0.6,
    ),
    cue(r"\bsi je (?:mourais|disparaissais|n'etais plus la)\b", 0.45),
    cue(r"\bj'aurais (?:voulu|prefere) ne (?:jamais|pas) naitre\b", 0.9),
    cue(r"\bdisparaitre et ne (?:jamais|plus jamais) revenir\b", 0.85),
    cue(r"\b(?:je veux|je voudrais|j'aimerais) disparaitre\b", 0.45, contextual=True),
    cue(r"\b(?:j'en|je n'en) peux plus\b", 0.4, contextual=True),
    # ── deutsch ──
    cue(
        r"\bich (?:will|mochte|wurde gern|wunschte|wunsche mir)(?: einfach| nur| lieber| echt)*"
        r" (?:sterben|tot sein|nicht mehr leben|nicht mehr aufwachen|nicht mehr existieren"
        r"|mich umbringen)\b",
        0.9,
    ),
    cue(
        r"\bich (?:will|mochte)(?: einfach| nur| echt| wirklich)* nicht mehr (?:da|hier|am leben)"
        r" sein\b",
        0.85,
        contextual=True,
    ),
    cue(
        r"\b(?:mich umbringen|mich (?:selbst )?toten|mir das leben nehmen|selbstmord|suizid\w*"
        r"|mir das leben zu nehmen|mich umzubringen|mich zu toten|allem ein ende (?:setzen|machen)"
        r"|meinem leben ein ende)\b",
        0.85,
    ),
    cue(
        r"\bohne mich\b[^.!?]{0,25}\bbesser\b|\bbesser dran ohne mich\b"
        r"|\b(?:ware|waren) (?:es |alle )?(?:besser|leichter|einfacher),? wenn ich (?:nicht mehr"
        r" (?:da|hier|am leben)|tot|weg) (?:bin|ware)\b"
        r"|\bam besten ware ich (?:gar )?nicht (?:mehr )?(?:hier|da|am leben)\b",
        0.85,
    ),
    cue(r"\b(?:bin|sei)(?: \w+){0,2} (?:nur )?(?:eine )?(?:last|belastung)\b", 0.6),
    cue(
        r"\b(?:einschlafen|schlafen) und (?:nie(?:mals)? (?:wieder|mehr)|nicht mehr) aufwachen\b"
        r"|\bnicht mehr aufwachen\b",
        0.85,
    ),
    cue(
        r"\b(?:das|mein) leben hat (?:keinen|gar keinen) sinn(?: mehr)?\b|\blebensmude\b"
        r"|\bwas hat das (?:alles )?(?:noch )?(?:fur )?(?:einen )?sinn\b",
        0.8,
    ),
    cue(r"\bich (?:will|kann) nicht mehr\b(?=\s*(?:[.!?,]|$))", 0.4, contextual=True),
    cue(r"\bkeine kraft mehr (?:zu leben|zum leben|weiterzuleben|weiterzumachen)\b", 0.85),
    cue(r"\b(?:mein|das) leben ist (?:sinnlos|wertlos|nichts wert|bedeutungslos)\b", 0.8),
    cue(r"\bniemand wurde (?:mich vermissen|es merken|es bemerken|mich suchen)\b", 0.6),
    cue(r"\bwenn ich (?:sterbe|tot ware|nicht mehr da ware|weg ware)\b", 0.45),
    cue(r"\bich wunschte,? ich ware (?:nie|niemals|nicht) geboren\b", 0.9),
    # ── italiano ──
    cue(
        r"\b(?:voglio|vorrei|ho voglia di)(?: solo| soltanto| davvero)? (?:morire|uccidermi"
        r"|ammazzarmi|suicidarmi|farla finita|sparire per sempre|non esistere piu|non esistere)\b",
        0.9,
    ),
    cue(r"\b(?:farla finita|togliermi la vita|suicid(?:armi|io)|uccidermi|ammazzarmi)\b", 0.85),
    cue(
        rf"\bnon voglio piu (?:vivere|svegliarmi|esistere|stare al mondo)\b{_NOT_PLACE_IT}",
        0.85,
    ),
    cue(r"\bnon voglio piu (?:essere|stare) qui\b", 0.85, contextual=True),
    cue(r"\bnon voglio piu esserci\b", 0.85),
    cue(r"\bmeglio se (?:non ci fossi|morissi|sparissi|fossi mort[oa]|non esistessi)\b", 0.85),
    cue(
        r"\b(?:starebbero|stareste|sarebbero|starebbe|sarebbe) (?:tutti )?(?:meglio|piu felici)"
        r" senza di me\b|\bmeglio senza di me\b",
        0.85,
    ),
    cue(r"\b(?:addormentarmi|dormire) e non svegliarmi (?:piu|mai piu)\b", 0.85),
    cue(r"\bstanc[oa] di vivere\b|\bstanc[oa] di lottare\b", 0.8),
    cue(
        r"\bnon ha (?:piu )?senso (?:vivere|la vita|andare avanti)\b|\bche senso ha (?:vivere"
        r"|la vita|andare avanti)\b|\bla (?:mia )?vita non ha (?:piu )?senso\b",
        0.85,
    ),
    cue(r"\bsono un peso\b", 0.6),
    cue(r"\bnon ho piu (?:voglia|la forza) di vivere\b", 0.85),
    cue(r"\bvorrei non essere (?:mai )?nat[oa]\b", 0.9),
    cue(r"\bnessuno (?:sentirebbe la mia mancanza|se ne accorgerebbe|noterebbe)\b", 0.6),
    cue(r"\bse (?:morissi|sparissi|non ci fossi piu)\b", 0.45),
    cue(r"\b(?:sparire|andarmene) e non tornare (?:piu|mai piu)\b", 0.85),
    cue(r"\b(?:voglio|vorrei) sparire\b", 0.45, contextual=True),
    cue(r"\bnon ce la faccio piu\b", 0.4, contextual=True),
    # across the five languages: sleeping for ever, throwing oneself, better dead
    cue(
        r"\b(?:dormir (?:para siempre|pra sempre|para sempre|pour toujours|per sempre)"
        r"|fur immer (?:schlafen|einschlafen|weg sein|verschwinden))\b",
        0.8,
    ),
    cue(
        r"\b(?:me jogar (?:da|de uma|de um|do|na frente)|tirarme (?:de|del|por|al)|me jeter"
        r" (?:du|d'un|d'une|sous|par)|buttarmi (?:dal|da|sotto|giu))\b",
        0.85,
    ),
    cue(r"\bmejor muert[oa]s?\b|\b(?:am liebsten|lieber) ware ich tot\b", 0.85),
    cue(
        r"\b(?:no le encuentro|no encuentro|no le veo) (?:ningun )?sentido a (?:la vida|vivir"
        r"|mi vida)\b",
        0.8,
    ),
    cue(r"\bje ne supporte plus (?:la vie|de vivre|d'etre en vie|d'exister)\b", 0.8),
    cue(r"\bkeinen sinn (?:mehr )?(?:im|in meinem) leben\b", 0.8),
    cue(r"\bnon ce la faccio piu a vivere\b", 0.8),
    cue(r"\bnessuno mi (?:cercherebbe|piangerebbe|rimpiangerebbe)\b", 0.6),
    cue(r"\bdesaparecer de este mundo\b|\bdesaparecer deste mundo\b", 0.85),
    cue(
        r"\b(?:todos|todo el mundo|mi familia)(?: \w+)? (?:estarian|estaria|estarian mas)"
        r" (?:mas )?(?:tranquil[oa]s?|felices|feliz|en paz) sin mi\b",
        0.85,
    ),
    cue(r"\bnao quero mais existir\b|\bno quiero (?:existir|seguir existiendo)\b", 0.85),
    cue(r"\btomar todos os (?:remedios|comprimidos)\b|\btomarme todas las pastillas\b", 0.8),
    cue(r"\btout arreter,? definitivement\b|\btout arreter pour de bon\b", 0.8),
    cue(r"\bje pense (?:tous les jours |souvent |beaucoup )?a mourir\b", 0.8),
    cue(r"\baddormentarmi per sempre\b|\bdormire per sempre\b", 0.8),
)
