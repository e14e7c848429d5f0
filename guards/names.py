"""Names of people and places in technical text: capitalised words, decided by lexicons and their neighbours.

NER alone takes product names for people ("Grafana", "Kafka") and misses
names it has not seen in that position ("Jake and Emily are backpacking").
Here each run of capitalised words outside code (not glued to `_`, `.`, `(`,
digits; not in backticks; not ALL CAPS) is looked up: a given name, a
surname, a place, a word of a product's name, an ordinary English word
(guards/lexicons.py, kinds.py). Most runs are decided by that alone: `Priya`,
`Bjørn Håland` and `Ho Chi Minh City` are what they look like; `Grafana` and
`Convert` are not names. The words around a run decide the rest: a name that
is also a product or an ordinary word (`Cassandra`, `Chase`, `June`) is a
person only next to a person's cue (cues.py: `said`, `Thanks`, `her brother`,
`name=`) and never next to a system's (systems.py: `cluster`, `upgrade`, a
version number, `(the old chatbot integration)`); a place is decided by
placenames.py (`in`, `from`, `to`, a journey, an office, a lake; not where a
system runs). A word no lexicon knows, or a rare given name, is read by the
NER model, and only then: that is the only NER call, and a cue must agree with
it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from . import chat, cues, deployments, mailboxes, places
from . import systems as said
from .cues import Token
from .findings import Overlaps
from .initials import initialled
from .introductions import introductions
from .kinds import COMMON_SURNAME, INITIAL_WORD, Kinds
from .languages import identifier, language_at
from .lexicons import Lexicons, fold, lexicons
from .lexicons import words as _words
from .lowercase import lower_names
from .otherplaces import other_places
from .placenames import Placenames
from .places import state_codes
from .records import code_names, header_cells, personas, record_names, record_places, street_places
from .scriptnames import (
    ARABIC_TITLES_BEFORE,
    BURMESE_TITLES,
    CASED_TITLES,
    ETHIOPIC_TITLES,
    HONORIFICS_AFTER,
    common_word,
    function_words,
    latin_function_words,
    said_in_its_language,
    script_names,
)
from .scriptplaces import script_places, words_by_script
from .things import header_key, things
from .vetting import Vetter

if TYPE_CHECKING:
    from .pii_params import PiiParams

Label = tuple[int, int, str]  # (start, end, label) of one of the NER model's entities
Ner = Callable[[str, Sequence[tuple[int, int]]], list[Label]]  # the entities around the spans asked about
Span = tuple[str, int, int]  # entity type, start, end

_HTML_TAGS = _words(
    "a b i u p q s em strong small sub sup code pre kbd span div li ul ol dl dt dd td th tr table tbody thead br hr "
    "h1 h2 h3 h4 h5 h6 img label option title head body html section article nav header footer main aside blockquote "
    "figure figcaption mark time abbr cite"
)


def names_for(params: PiiParams) -> Names | None:
    """The name reader a `guards.pii` step with these params builds: none unless names are read by the lexicons;
    with the vetter unless it is turned off."""
    if params.backend != "ner" or params.names != "lexicon":
        return None
    function_words()  # spaCy's stop-word lists, read when the step is built, not on its first request
    latin_function_words()
    identifier()  # and the language identifier's model
    return Names(lexicons(), Vetter.load(threshold=params.vetter_threshold) if params.vetter else None)


_TIMES_OF_DAY = _words("morgen tag abend nacht")
# a .mailmap line's second name, in lower case, between the proper address and the one commits carry: `Annelise
# Brøndum <annelise.brondum@gmail.com> annelise <annelise@users.noreply.github.com>` (a handle, not a name)
_MAILMAP_HANDLE = re.compile(
    r"(?m)^(?P<name>[^\n<>:]*)<(?P<local>[^<>\s@]+)@[^<>\s]+> (?P<handle>[a-z][\w.\-]*) <[^<>\s@]+@[^<>\s]+>[ \t]*$"
)


def _no_one_at(spans: list[Span], at: set[tuple[int, int]]) -> list[Span]:
    """`spans` less the people's readings of exactly the spans `at`."""
    return [x for x in spans if x[0] != "PERSON" or (x[1], x[2]) not in at]


def _mailmap_handles(text: str) -> set[tuple[int, int]]:
    """The .mailmap lines' commit names that are a word of the proper name or of its address (`annelise` after
    `Annelise Brøndum <annelise.brondum@...>`), not another person's (`Team Payments <...> henrik <...>`, `To:
    Jonas Weber <...> maria <...>`: a label's line is no mailmap's)."""
    out = set()
    for m in _MAILMAP_HANDLE.finditer(text):
        own = set(mailboxes.name_words(m.group("name"))) | mailboxes.local_parts(m.group("local"))
        if fold(m.group("handle")) in own:
            out.add(m.span("handle"))
    return out


def _initialled(kinds: Kinds, text: str, spans: list[Span], sure: set[Span]) -> list[Span]:
    """`spans` with the names written with an initial (`SCHMIDT K.`, `J. Kowalski`, `Brenda K. Holloway`) in place
    of the person's readings across them, apart from other kinds' spans; those names are added to `sure` too."""
    found = Overlaps(spans)
    initials, placed = [], []
    for x in initialled(kinds, text):
        others = [o for o in found.over(x[1], x[2]) if o[0] != "PERSON"]
        # two initials outweigh a place's reading of the surname inside the name (`Соколов П. В.`: Sokolov, a town)
        if (
            others
            and _TWO_INITIALS.search(text, x[1], x[2])
            and all(o[0] == "LOCATION" and x[1] <= o[1] and o[2] <= x[2] for o in others)
        ):
            placed += others
        elif others:
            continue
        initials.append(x)
    if not initials:
        return spans
    if placed:
        spans = [x for x in spans if x not in placed]
    # a person's reading across one joins it (`Luis A.` and `A. Fernández` of `Luis A. Fernández`)
    people = Overlaps(x for x in spans if x[0] == "PERSON")
    joined: list[Span] = []
    for _, a, b in initials:
        for _, s, e in people.over(a, b):
            a, b = min(a, s), max(b, e)
        if joined and a < joined[-1][2]:
            continue  # a reading across two of them: the first keeps it
        joined.append(("PERSON", a, b))
    index = Overlaps(joined)
    sure.update(joined)
    return [x for x in spans if not (x[0] == "PERSON" and index.over(x[1], x[2]))] + joined


_TWO_INITIALS = re.compile(r"(?<![^\W\d_])[^\W\d_]\.[ \t]?[^\W\d_]\.")
_KEY_AFTER = re.compile(r"[ \t]*(?:=(?![=>])|:)[ \t]*[\"'«“]")


# languages' literals, as code writes them: `{"manager": None}`, `active: True`
# a person's name of two to four words and an opening bracket: `Isla Morrison (`, `Mairéad Ní Dhomhnaill (`
_PERSON_OPEN = re.compile(
    r"(?<![\w\-])(?P<first>[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)"
    r"(?:[ \t]+(?:[A-ZÀ-ÖØ-Þ][\w'’\-]+|Ní|Nic|Ó|Mac|Mc|ap|van|von|de|da|di|del|der|den|la|le)){1,3}"
    r"[\"'”’]?[ \t]+\(\Z"
)
# the last words of a service's or a desk's name, never a surname: `Lido Notifications`, `Marina Bookings Team`
# the first words of what is named after someone: a hut, a hospital, a school, a museum, a theatre, a street, an inn
# (`Rifugio Vittorio Emanuele`, `Liceo Giuseppe Verdi`): not a noun before a person's name
_NAMED_AFTER_SOMEONE = _words(
    "rifugio refugio hütte hutte ospedale krankenhaus liceo lycée lycee scuola schule escuela escola colegio "
    "instituto istituto institut museo musée musee teatro théâtre theatre theater stadio estadio stadion piazza "
    "via viale corso calle avenida rua praça praca rue platz gasthaus gasthof hostal pensione villa palazzo "
    "fondazione fundación fundacion stiftung universidad università universita universität universitat aeroporto "
    "aeropuerto flughafen ponte puente brücke brucke "
    # and businesses, practices, prizes and operations named after someone: `Bäckerei Anna Schmidt`, `Kanzlei Thomas
    # Berger`, `Fondation Marie Curie`, `Preis Hans Fischer`
    "bäckerei backerei konditorei metzgerei apotheke kanzlei praxis galerie atelier kaffeehaus café cafe restaurante "
    "ristorante pizzeria trattoria osteria grundschule gymnasium realschule klinikum klinik fondation fondazione "
    "preis prix premio award operation dampfer verlag buchhandlung"
)
_SERVICE_WORDS = _words(
    "notifications notification alerts updates reminders bookings reservations newsletter newsletters "
    "helpdesk noreply no-reply mailer notifier digest"
    # and a newsletter's word in other languages: `Boletim Panquecas`, `Nieuwsbrief De Molen`
    " boletim boletín boletin nieuwsbrief nyhetsbrev infolettre"
)
# a sender's words that name no one first either: `Newsletter Panquecas <no-reply@...>`
_SERVICE_FIRST = _words(
    "newsletter newsletters noreply no-reply helpdesk mailer notifier boletim boletín boletin nieuwsbrief "
    "nyhetsbrev infolettre"
)
# French writes a space before a label's colon: `Ville : Nantes`, `Nom : Dupont`
_LABEL_AFTER = re.compile(r" ?:")
# a letter's `Dear` in other languages, before a title and a name: `Chère Madame Lemaire`, `Liebe Frau Roth` (folded)
_SALUTATIONS = _words(
    "chere cher cheres chers liebe lieber gentile gentilissima gentilissimo caro cara egregio egregia estimado "
    "estimada querido querida prezado prezada beste geachte kaere kare kara hyva drogi droga szanowny szanowna "
    "vazeny vazena"
)
_FRENCH_FIELDS = _words("ville nom prenom adresse pays objet client cliente societe code date")  # folded
_IMPERATIVE_PRONOUN = re.compile(r"[^\W\d_]-(?:moi|toi|nous|vous|lui|leur|les|le|la)\Z")
_PLACEHOLDER_TOWNS = _words("anytown musterstadt exampleville springfieldtest beispielstadt")
_WORDS = re.compile(r"[^\W\d_]{5,}")  # (not `нет`, `про`, `бот`: `net`, `pro`, `bot` in Latin letters)
# Russian's and Ukrainian's `from`, `in`, `to`, `near` before a place's case (not `от`, `к`, `у`: as often a person's),
# and the least a city so read has
_CYRILLIC_FROM_IN = re.compile(r"(?<!\w)(?i:из|в|во|до|под|около|возле|із|біля)[ \t]+\Z")  # (not `через`: a go-between)
CITY_CASED = 100_000
_INFINITIVE = re.compile(r"(?:ть|ти|чь)\Z")  # a Russian or Ukrainian verb's infinitive: `Обновить`, `Оновити`
_TWO_LETTER_CASES = _words("ой ей ом ем ам ям ах ях ью ою ею")
_GREETED = re.compile(r"(?i:привет|здравствуй|добрый\s+\w+)[,!]?\s+\Z")
# a name said to (`Кассандра, ...`), or a woman's past deed after it (`Кассандра сказала`, `звонила`)
_SAID_TO_OR_DID = re.compile(
    r"[ \t]*[,!]|[ \t]+(?:[а-яё]+ла|из|привет|пишет|говорит|просит|спрашивает|звонит|отвечает|сказал|считает|"
    r"думает|хочет|знает|предлагает)\b",
    re.IGNORECASE,
)
_ARTICLES = _words("de het den der le la les el los las il lo")
# a title and a name after a piece: `Grüß Gott| Herr Pichler`
_TITLE_AND_NAME_AFTER = re.compile(
    r"[ \t]+(?i:" + "|".join(sorted(cues.TITLES, key=len, reverse=True)) + r")\.?[ \t]+[A-ZÀ-ÖØ-ÞĀ-ſ]"
)
# a trade's or a shop's word, then the business's name in quotes: `pupusería "La Ceiba"`, `Bäckerei „Zur Linde“`
_QUOTED_AFTER_TRADE = re.compile(
    r"(?<![\w\-])(?i:"
    + "|".join(sorted(cues.TRADES))
    + r"|pupuser[ií]a|taquer[ií]a|tienda|negocio|loja|restaurante?|ristorante|café|cafe|bar|shop|store|bakery)"
    + r"[ \t]+[\"“„«'‘]\Z"
)
_WORD_RIGHT_BEFORE = re.compile(r"(?<![\w\-])([^\W\d_]+)[ \t]+\Z")
# a venue's word before its name: `sporthal De Geer`, `palestra Pertini` (the hall's name, no one there)
_VENUE_BEFORE = re.compile(
    r"(?<!\w)(?i:sporthal|sportzaal|sporthalle|turnhalle|stadion|sportpark|clubhuis|palazzetto|palestra|polideportivo"
    r"|pavilh[ãa]o|gymnase|pabell[óo]n)[ \t]+\Z"
)
_ABBREVIATED = re.compile(r"(?<![\w.])[A-Z]\.\Z")  # one capital and its dot, glued to the word after: `P.IVA`
_CAPITAL_START = re.compile(r"(?<![\w\-])[A-ZÀ-ÖØ-Þ]")
_NAME_AFTER = re.compile(r"[ \t]+[A-ZÀ-ÖØ-ÞĀ-ſ]")
# a ticket's key before its title: `[FERRATA-88] `, `ICE-203: `, `#4411 `
_TICKET_KEY_BEFORE = re.compile(r"(?:\[[A-Z][A-Z0-9]+-\d+\]|\b[A-Z][A-Z0-9]+-\d+:|#\d+)[ \t]+\Z")
# a name in code: a path's, a zone's or a setting's part (`configs/Lisbon.yaml`, `Europe/Berlin`, `SITE=Austin`),
# a class's or a call's (`class Denver(Region)`), a file's (`Lagos.tsx`)
_CODED_BEFORE = re.compile(r"[/=._\\]\Z")
_CODED_AFTER = re.compile(r"\.\w|\(|/")
_REGION_KEY_BEFORE = re.compile(r"(?i:\b(?:region|zone|tz|timezone|time_zone|class|host)[ \t]*[=:][ \t]*[\"']?)\Z")


def _coded_again(text: str, a: int, b: int) -> bool:
    """The name at text[a:b] is written as code: part of a path, a setting or a class (`configs/Lisbon.yaml`,
    `TZ=Europe/Berlin`, `class Denver(Region)`), or a region's or a host's value (`region = "London"`)."""
    return (
        _CODED_BEFORE.search(text, max(0, a - 1), a) is not None
        or _CODED_AFTER.match(text, b) is not None
        or _REGION_KEY_BEFORE.search(text, max(0, a - 24), a) is not None
    )


# a capitalised word or `of` right before a name: the name is part of a longer one (`Univ. Ibadan`, `University of
# Ibadan`)
_NAME_OR_OF_BEFORE = re.compile(r"(?:[A-ZÀ-ÖØ-Þ][\w.]*|\bof)[ \t]+\Z")
# where `a` before a name is no article but `to` or Portuguese's `the` (`a Fernanda Lima pagou`, `a Núria Vidal`)
_ROMANCE = frozenset({"pt", "ca", "gl", "es", "it", "fr", "oc", "an"})


def _romance_a(text: str, a: int, b: int) -> bool:
    """`a` before text[a:b] on a Romance language's line, or before a name with its accents (`a Núria`): products
    are spelled in ASCII."""
    return cues.word_before(text, a) == "a" and (not text[a:b].isascii() or language_at(text, a) in _ROMANCE)


_LITERALS = frozenset({"None", "True", "False", "Null", "NULL", "Nil", "NaN", "Undefined"})
_NUMBER_AFTER = re.compile(
    r"(?:[ \t]+(?:Straße|Strasse|Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Gasse|Weg|Platz))?[ \t]+\d"
)
# Visual Basic's declaration: `Dim holder As String` (its `As` after a field's name is no one)
_BASIC_DECLARED = re.compile(r"\b(?:Dim|ByVal|ByRef|Private|Public|Const|Friend|Static|ReDim)[ \t]+\w+[ \t]+\Z")


# a label's colon right before a name in another script, or a title right after it (`報告者：`, ` 先生`, `씨`)
_SCRIPT_FIELD = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af][：:][ \t]?\Z")
# (not `जी` alone: Marathi's `which` too, `स्क्रिप्ट लिहून द्या जी ...`; the vetter weighs it)
# nor a kinship word, which follows `my elder`, `both` as often (`বড় দিদি`, `ભાઈ અને બેન`)
_SURE_HONORIFICS = sorted(HONORIFICS_AFTER - {"जी", "ਜੀ", "જી", "দিদি", "আপা", "বাবু", "ભાઈ", "બેન"}, key=len, reverse=True)
_HONORIFIC_AFTER = re.compile(r" (?:" + "|".join(_SURE_HONORIFICS) + r")(?![\w\u0900-\u0dff])")
_ARABIC_TITLE_BEFORE = re.compile(r"(?<!\S)(?:" + "|".join(sorted(ARABIC_TITLES_BEFORE)) + r") \Z")
_CASED_TITLE_BEFORE = re.compile(r"(?<!\w)(?i:" + "|".join(sorted(CASED_TITLES)) + r")\.? \Z")
_SCRIPT_TITLE = re.compile(r"[ \t]?(?:さん|様|さま|氏|先生|くん|ちゃん|殿|女士|小姐|太太|老师|老師|씨|님)")


# a team's or a venue's word beside a place inside its name (`Baseball Tallinn`, `Killarney Netball`, `CB Zarautz`,
# `Lisbon Laser Arena`), and a month after a word that is a district's name too (`Mitte Juni`)
_CLUB_WORD = (
    r"(?:Baseball|Softball|Netball|Handball|Volleyball|Basketball|Football|Rugby|Hockey|Cricket|Curling|Arena|Club|"
    r"FC|CF|CB|SC|AC|SV|TSV|VfB|VfL|Athletic|Rovers|Wanderers|Harriers|Stadium|Laser|Padel|Tennis)"
)
# a Windows time zone's name after a place's or a person's: `SE Asia Standard Time`, `Pacific Daylight Time`, where
# it ends a line, a value or a sentence, or (`Standard Time`) a preposition follows (`shows Lord Howe Standard Time
# for ...`; not a form's `Donna Summer Time: 09:00`, `Kevin Standard Time spent`, `ask Donna Summer Time for`)
_ZONE_END = r"(?=[\"'\])},.;]|[ \t]*(?:\n|\Z))"
_PREPOSITION_AFTER = r"(?=[ \t]+(?:for|in|on|at|to|from|instead|and|or)\b)"
_ZONE_TAIL = re.compile(
    r"[ \t]+(?:Standard|Daylight|Summer)[ \t]+Time" + _ZONE_END + r"|[ \t]+Standard[ \t]+Time" + _PREPOSITION_AFTER
)
_TIME_AFTER = re.compile(r"[ \t]+Time" + _ZONE_END)
_TIME_BEFORE_PREPOSITION = re.compile(r"[ \t]+Time" + _PREPOSITION_AFTER)


def _zone_named(text: str, a: int, b: int) -> bool:
    """text[a:b] is (part of) a Windows time zone's name: `SE Asia Standard Time`, `Romance Standard Time`."""
    if _ZONE_TAIL.match(text, b):
        return True
    if text[a:b].endswith("Standard") and _TIME_BEFORE_PREPOSITION.match(text, b):
        return True  # `Lord Howe Standard Time for ...`
    return text[a:b].endswith(("Standard", "Daylight", "Summer")) and _TIME_AFTER.match(text, b) is not None


# a person's origin after the name: `di Bergamo`, `de Zaragoza` (the name's last word)
_OF_CITY = re.compile(r"(?<=\S) (?:di|de) (?P<city>[^\W\d_][\w'’\-]*)")
_CLUB_BEFORE = re.compile(rf"(?<![\w\-]){_CLUB_WORD}[ \t]+\Z")
# (and a guild's or an ensemble's, one word between: `Yerevan Duduk Guild`, `Tbilisi Chamber Orchestra`; not `in
# Leeds Choir rehearsal rooms`, `moved to Lagos Association meetings`)
_CLUB_AFTER = re.compile(
    rf"[ \t]+(?:(?:[A-Z][a-z]+[ \t]+)?{_CLUB_WORD}|[A-Z][a-z]+[ \t]+(?:Guild|Society|Association|Ensemble|Orchestra|"
    r"Choir))(?![\w\-])"
)
# German's months, as written: `Mitte Juni` (not `Bristol may call`, `Warsaw June 2023`)
_MONTH_AFTER = re.compile(r"[ \t]+(?:Januar|Februar|März|Mai|Juni|Juli|Oktober|Dezember)\b")


def _addressed(text: str, at: int) -> bool:
    """The line of text[at] holds an address at a host of personal mailboxes: someone is there."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return mailboxes.personal_address(text[start : end if end >= 0 else len(text)])


_PREFIXED_PERSON = re.compile(
    r"(?<![\w\-'’])(?:ku|ka|kwa|u|no)-?(?P<given>[A-Z][a-z]{2,})(?:[ \t](?P<surname>[A-Z][a-z]{2,}))?(?![\w\-])"
)


def _script_cued(text: str, a: int, b: int) -> bool:
    if _SCRIPT_FIELD.search(text, max(0, a - 2), a) is not None or _SCRIPT_TITLE.match(text, b) is not None:
        return True
    if _HONORIFIC_AFTER.match(text, b) is not None:
        return True  # `सुनीता शर्मा साहब`, `వెంకట రమణ గారు`: South Asia's honorific after a name
    if _CASED_TITLE_BEFORE.search(text, max(0, a - 12), a) is not None:
        return True  # `η κυρία Παπαδοπούλου`, `Пані Коваленко`: a Greek or Cyrillic title
    if _TITLE_WRITTEN_ON.search(text, max(0, a - 6), a) is not None:
        return True  # `ለአቶ ተስፋዬ በቀለ`, `ဦးအောင်ကျော်`: an Amharic or a Burmese title
    return _ARABIC_TITLE_BEFORE.search(text, max(0, a - 12), a) is not None  # `الأستاذ حسن`, `خانم احمدی`


# (the titles the readers of guards/scriptnames.py read names after, and no others)
_TITLE_WRITTEN_ON = re.compile(f"(?:{'|'.join(ETHIOPIC_TITLES)}) \\Z|(?:{'|'.join(BURMESE_TITLES)})\\Z")


# a patronymic, the last of a Russian or a Ukrainian ФИО: `Игоревич`, `Андрійович`, `Петровна`
_PATRONYMIC = re.compile(r"[А-ЯЁІЇЄ][а-яёіїє]+(?:ович|евич|йович|ьович|овна|евна|ївна|івна|йовна|ична|инична)\Z")
_SURNAME_WORD = re.compile(r"[А-ЯЁІЇЄ][а-яёіїє'’\-]+\Z")
_CYRILLIC = re.compile(r"[А-яЁёІіЇїЄє]")


def _patronymic(text: str, spans: list[Span]) -> list[Span]:
    """`Смирнов Алексей Игоревич`: a place's reading of the word right before a given name and a patronymic is
    the person's surname."""
    persons = {a: (kind, a, b) for kind, a, b in spans if kind == "PERSON" and _PATRONYMIC.search(text, a, b)}
    if not persons:
        return spans
    gone: set[Span] = set()
    merged: list[Span] = []
    for span in spans:
        kind, a, b = span
        after = b + len(text[b : b + 3]) - len(text[b : b + 3].lstrip(" \t"))
        if kind == "LOCATION" and after > b and after in persons and _SURNAME_WORD.match(text[a:b]):
            gone |= {span, persons[after]}
            merged.append(("PERSON", a, persons[after][2]))
    return [x for x in spans if x not in gone] + merged if merged else spans


def _less(text: str, spans: list[Span], places: list[Span]) -> list[Span]:
    """`spans` less the places that overlap them, and the places: a person's name before the place is kept (`Elif
    Demir` of `Elif Demir İzmir'de`), the rest gives way."""
    index, out = Overlaps(places), []
    for kind, a, b in spans:
        for _, s, _ in index.over(a, b):
            if s < b:
                if kind != "PERSON" or s <= a:
                    b = a
                    break
                b = len(text[a:s].rstrip()) + a
        if b > a:
            out.append((kind, a, b))
    return out + places


_WORD_AFTER = re.compile(r"[ \t]+([A-Za-z]+)")
_LISTED_BEFORE = re.compile(r"(?:,|\band|\bor|&)[ \t]+\Z")
_NAMES_BEFORE = re.compile(r"(?:[A-Z][\w\-]*[ \t]*)+\Z")


def _system_called(text: str, a: int, b: int, products: frozenset[str]) -> bool:
    """The place at text[a:b] is a system's name by the noun before or after it (`build agent Vienna`, `node pool
    Warsaw`, `use-context Sydney`, `the Dublin runbooks`), or the next in a list whose first is (`hosts in Tokyo
    and Osaka`)."""
    after = _WORD_AFTER.match(text, b)
    if after is not None and after.group(1).lower() in deployments.NAMED_SYSTEMS:
        return True
    listed = _LISTED_BEFORE.search(text, max(0, a - 6), a)
    if listed is not None and (named := _NAMES_BEFORE.search(text, max(0, listed.start() - 60), listed.start())):
        a = named.start()  # `Tokyo and Osaka`: what comes before the list's first name
        if deployments.deployment(text, a, named.end(), products):
            return True
    return cues.word_before(text, a).split("-")[-1] in deployments.NAMED_SYSTEMS


# psql's expanded display (`\\x`): a record's line, `-[ RECORD 1 ]---`, and its rows under it, `city  | Khiva`
_EXPANDED_RECORD = re.compile(
    r"^-\[ RECORD \d+ \]-*\+?-*[ \t]*\n((?:[^\W\d][\w\-]{0,39}[ \t]*\|[^\n]*(?:\n|\Z))+)", re.M
)
_EXPANDED_ROW = re.compile(r"^([^\W\d][\w\-]{0,39}[ \t]*)\|(?=[ \t]|$)", re.M)


def _expanded(text: str) -> str:
    """`text` with the rows of psql's expanded records written as fields, `city  = Khiva`, in as many characters:
    a row's column is its value's key, as a record's field's is. Other lines are as they were."""
    if "-[ RECORD " not in text:
        return text
    return _EXPANDED_RECORD.sub(
        lambda m: m.group(0)[: m.start(1) - m.start()] + _EXPANDED_ROW.sub(r"\1=", m.group(1)), text
    )


def _script_places(lex: Lexicons, text: str, out: list[Span], guessed: set[Span]) -> list[Span]:
    """The places named in scripts other than Latin apart from what `out` holds, and those that make up the whole
    of a name the NER model guessed was a person's: every word of it a place (`Алматыдан Астанаға`, from Almaty to
    Astana), not a person's name with a city's (`София Иванова`)."""
    guesses = [span for span in out if span in guessed and span[0] == "PERSON"]
    if not guesses or text.isascii():
        return script_places(lex, text, out)
    places = script_places(lex, text, [span for span in out if span not in guesses])
    index = Overlaps(places)
    for _, a, b in guesses:
        inside = sorted(index.over(a, b), key=lambda span: span[1])
        covered = "".join(text[s:e] for _, s, e in inside if a <= s and e <= b)
        if inside and "".join(text[a:b].split()) != covered:  # the person's, as the model read it
            places = [span for span in places if span not in inside]
    return places


# a time's word right before a month: `in June`, `since May`, `by early August`
_TIME_BEFORE = re.compile(r"\b(?i:in|since|until|till|through|early|late|mid|last|next|this|every|each)[ \t]+\Z")
# and what ends the time there: a mark, a year or a day, `and`, the text's end (not a verb: `Since May joined`)
_TIME_ENDS = re.compile(r"[ \t]*(?:[,.;:!?)]|\Z|\n|\d|(?:and|or|to|when|for)\b)")


# a line that pairs two cities as something other than a journey: a fixture, a network link, a tunnel
# what carries people between towns, on a route's line: `Sailing 14:40 Ullapool–Stornoway`, `lautta Turku–...`
_CARRIED = re.compile(
    r"(?i)\b(?:sailings?|ferry|ferries|crossing|route|bus|coach|train|flight|lautta|färja|ferje|færge|fähre|"
    r"traghetto|ferri|veerboot|pont)\b"
)
_NO_ROUTE = re.compile(
    r"(?i)\b(?:match|matches|derby|fixtures?|kick-?off|highlights|league|cup|vs\.?|versus|score|scored|goals?|"
    r"vlan|link|links|tunnel|backhaul|interface|circuit|mtu|peering|bgp|latency|hotline|replication|vpn|wan)\b"
)


def _time_month(text: str, token: Token) -> bool:
    """`token` is a month after a time's word and before what ends the time: `in June,`, `last August and`."""
    if token.key not in cues.MONTHS or _TIME_BEFORE.search(text, max(0, token.start - 12), token.start) is None:
        return False
    return _TIME_ENDS.match(text, token.end) is not None


def _header_label(text: str, token: Token) -> bool:
    """`token` opens its line and a colon follows it: a header's label (`De : Hélène Rousseau <...>`)."""
    line = text.rfind("\n", 0, token.start) + 1  # (its line only, not the whole text before it)
    return not text[line : token.start].strip(" \t") and text[token.end : token.end + 3].lstrip(" \t").startswith(":")


class Names(Placenames):
    """PERSON and LOCATION spans in a text, decided by the lexicons, the words around, and NER for the rest;
    with a `vetter`, each span found is kept only if it passes its second look (guards/vetting.py)."""

    def __init__(self, lexicons: Lexicons, vetter: Vetter | None = None):
        super().__init__(lexicons)
        self.vetter = vetter

    def find(self, text: str, ner: Ner | None = None, valued: bool = False) -> list[Span]:
        """The names in `text`; `ner` is asked about the runs the lexicons and cues cannot decide. `valued`: the
        text holds a person's value (a phone number, a card, an IBAN, an SSN), so someone is in it."""
        text = _expanded(text)
        out: list[Span] = []
        runs = [run for run in cues.runs(text) if not said.quoted_thing(text, run[0].start, run[-1].end)]
        words = self.lex.codename_words
        # the families a text names matter only to a codename in it; most texts have none
        named = said.families(text) if any(t.key in words for run in runs for t in run) else frozenset()
        runs = [part for run in runs for part in self._geographic(text, run, out)]
        runs = [part for run in runs for part in self._unnamed(run, named)]
        runs = [run for run in runs if not self._versioned(text, run)]
        pieces = [self._opened(text, piece) for run in runs for piece in self._pieces(run, text)]
        pieces = [piece for piece in pieces if piece]
        # one sense per text: a word named as a system anywhere in it ("Alma 9") is not a person elsewhere
        systems = {p[0].key for p in pieces if len(p) == 1 and self._tech_after(text, p[0].end)}
        systems |= said.coded(text)  # `rename the `jackson` Helm release ... who Jackson is`
        kept = self._systems_listed(text, pieces, systems)
        # a place named as a system (`the Genoa nodes`) makes places with no place's cue systems too (`the Milan ones`)
        hosts = any(key in self.lex.places for key in systems)
        # a word the text also writes as an identifier (`package atlas`, `athena_query_seconds`) is that system's
        # name, unless what is said of a person is said of it
        written = said.identifiers(text) if any(len(p) == 1 for p in kept) else frozenset()
        decided: list[tuple[list[Token], list[Span] | None]] = []
        for piece in kept:
            if len(piece) == 1 and piece[0].key in systems and not self._travelled(text, piece):
                continue
            if len(piece) == 1 and piece[0].key in written and not self._vouched(text, piece[0]):
                continue
            if len(piece) == 1 and _time_month(text, piece[0]):
                continue  # a month after a time's word: `moved to Baton Rouge in June,` (not `ask June`, `Since May
                # joined`)
            if len(piece) == 1 and piece[0].key in cues.PARTICLES and _header_label(text, piece[0]):
                continue  # a surname's particle alone as a header's label is no one: French's `De :` (not
                # `Thanks, Van!`, `Reporter: Le`)
            decided.append((piece, self._decide(text, piece, hosts)))
        decided = self._routes(text, decided)
        unsure = [piece for piece, spans in decided if spans is None]
        out.extend(span for _, spans in decided for span in spans or ())
        guessed: set[Span] = set()  # what the NER model decided: a script's places may outweigh it
        if unsure and ner is not None:
            labels = Overlaps((lab, s, e) for s, e, lab in ner(text, [(p[0].start, p[-1].end) for p in unsure]))
            for piece in unsure:
                hits = labels.over(piece[0].start, piece[-1].end)
                guessed.update(self._by_ner(text, piece, hits[0][0] if hits else None))
            out.extend(sorted(guessed, key=lambda span: span[1]))
        unpeopled: list[Span] = []
        if any(e == "LOCATION" for e, _, _ in out) and self._no_one_there(text, out):
            # a place people are in (a journey, an office, a lake) is not where a system runs
            # (or on a line with a personal mailbox's address: `("ngozi okafor", "ngozi.okafor@yahoo.com", "Lagos")`)
            unpeopled = [
                span
                for span in out
                if span[0] == "LOCATION" and not self._peoples(text, span[1], span[2]) and not _addressed(text, span[1])
            ]
            out = [span for span in out if span not in unpeopled]
        sure: set[Span] = set()  # a person's field, HL7, an honorific says so: the vetter does not second-guess it
        out.extend(lower_names(self, text, out, sure))
        records = record_names(self, text, out, self.program, sure)
        if records:  # `Hunter Mills <...>`: the record's whole name, not the part the rules found
            index = Overlaps(records)
            out = [x for x in out if not any(s <= x[1] and x[2] <= e for _, s, e in index.over(x[1], x[2]))]
            out += records
        someone = any(e == "PERSON" for e, _, _ in out)
        if unpeopled and (someone or valued):
            # someone the text names in lower case or in a record's field is there after all, or someone whose
            # number it holds (`// Test walidacji karty ... (Kraków)` before a card); not a product's name (`in
            # Loki`), nor the first word of a longer one (`"Piraeus Hi-Fi"`, `Shibuya Central`)
            taken = Overlaps(out)
            out += [
                span
                for span in unpeopled
                if not taken.over(span[1], span[2])
                and not self.product(fold(text[span[1] : span[2]]))
                and said.next_name(text, span[2]) is None
                and not _system_called(text, span[1], span[2], self.lex.products)
                and (someone or self._valued_place(text, span))
            ]
        if "\n" in text and any(e == "PERSON" for e, _, _ in out):  # a header's column, `Nom;Ville;Téléphone`
            out = _no_one_at(out, set(header_cells(text)))
        cells = record_places(self, text, out, sure) + street_places(self, text, out)
        if cells:  # a table's `country` column, a `city:` field: the place, not a person the rules read there
            out = _less(text, out, cells)
        out.extend(code_names(self, text, out))
        out = _initialled(self, text, out, sure)
        out = things(text, personas(text, out))
        scripted = script_names(self.lex, text, out)
        out.extend(scripted)
        if not text.isascii():  # `मेरा नाम राहुल वर्मा है`: who the writer says they are
            people = Overlaps(out)
            for span in introductions(self.lex, text):
                if not any(k == "PERSON" for k, _, _ in people.over(span[1], span[2])):
                    out = [x for x in out if not (x[1] < span[2] and span[1] < x[2])] + [span]
                    sure.add(span)
        # a label or a title says so (`報告者：小林 美咲`, `山本 花子 先生`): the vetter does not second-guess it
        sure.update(span for span in scripted if _script_cued(text, span[1], span[2]))
        out = _less(text, out, _script_places(self.lex, text, out, guessed))
        places = other_places(self, text, out)
        if places:  # `vive em Lisboa`: the place, not the surname the rules read
            out = _less(text, out, places)
        if "-" in text or " u" in text:
            out.extend(self._prefixed_people(text, out))
        if _CYRILLIC.search(text):
            out = _patronymic(text, out)
        out = [
            span
            for span in out
            if span[0] != "LOCATION" or not (self._named_with(text, *span[1:]) or header_key(text, *span[1:]))
        ]
        if "<" in text and any(e == "PERSON" for e, _, _ in out):  # a .mailmap line's commit name: a handle
            out = _no_one_at(out, _mailmap_handles(text))
        slots = chat.speakers(text, self)
        if slots:  # `[12:30] Ollie: ...`: a chat log's speaker is a handle, not a person named
            index = Overlaps(("SLOT", s, e) for s, e in slots)
            out = [
                x for x in out if x[0] != "PERSON" or not any(s <= x[1] and x[2] <= e for _, s, e in index.over(*x[1:]))
            ]
        out = [x for x in out if any(c.isalpha() for c in text[x[1] : x[2]])]  # (a query's `$1`: no one's name)
        if deployments.AZURE.search(text):  # `from West Europe to France Central`: Azure's regions
            regions = Overlaps(("REGION", *m.span()) for m in deployments.AZURE_REGION.finditer(text))
            out = [x for x in out if not any(s <= x[1] and x[2] <= e for _, s, e in regions.over(x[1], x[2]))]
        if " d" in text:
            out = self._from_city(text, out)
        if " Time" in text:  # a Windows time zone's name: `SE Asia Standard Time`, `W. Europe Daylight Time`
            out = [x for x in out if not _zone_named(text, x[1], x[2])]
        if _CYRILLIC.search(text):  # a product's name in Cyrillic, inflected: `для Кафки`, `чинил Кафку`,
            # `Обновить Кафку` (a ticket's verb before it)
            out = [
                x
                for x in out
                if not (x[0] == "LOCATION" and self._inflected_product(text[x[1] : x[2]]))
                and not (x[0] == "PERSON" and self._verb_and_product(text[x[1] : x[2]]))
            ]
        if self.vetter is not None and out:
            out = self.vetter.vet(self, text, out, sure)
        if any(c in text for c in " ,") and any(e == "LOCATION" for e, _, _ in out):
            # a town's state where the town stands: `Tulsa, OK`, and not a person's initials (a CSV's
            # `Lexington,KY`)
            found = set(out)
            codes = [span for span in state_codes(text, out) if span not in found]
            coded = {span[1:] for span in codes}
            out = [span for span in out if span[0] != "PERSON" or span[1:] not in coded] + codes
        if any(e == "LOCATION" for e, _, _ in out):
            out += self._same_place_again(text, out)
        return sorted(out, key=lambda s: s[1])

    def _same_place_again(self, text: str, out: list[Span]) -> list[Span]:
        """A place's name found once, written again in the text where nothing else was read: the same place
        (`cabang Yogyakarta` over `cabang: "Yogyakarta"`, `anchoas de Santoña` over `Ciudad: "Santoña"`). Not
        where a name goes on from it or before it (`Bray SLSC`, `University of Ibadan`), a system's word follows
        it (`the Frankfurt region`) or a person's cue stands by it; not a product's name (`Phoenix`)."""
        taken = Overlaps(out)
        more: list[Span] = []
        for name in sorted({text[a:b] for e, a, b in out if e == "LOCATION"}):
            key = fold(name)
            if self.product(key):
                continue
            word = self.lex.words.get(key, 0) >= INITIAL_WORD  # (`Nice`, `Split`: a word too)
            for m in re.finditer(rf"(?<![\w\-]){re.escape(name)}(?![\w\-])", text):
                a, b = m.span()
                if (
                    taken.over(a, b)
                    or cues.CAPITAL_AFTER.match(text, b)
                    or _NAME_OR_OF_BEFORE.search(text, max(0, a - 40), a)
                ):
                    continue
                if said.tech_after(text, b) or deployments.infra_after(text, b) or _coded_again(text, a, b):
                    continue
                if deployments.deployment(text, a, b, self.lex.products) or said.quoted_thing(text, a, b):
                    continue  # `Frankfurt (eu-central-1)`, `us-east-2 is Ohio`; `the "Phoenix" service`
                if word and cues.SENTENCE_START.search(text, max(0, a - 4), a):
                    continue  # `Nice work on the PR`, `Split the migration`: a word opening a sentence
                if cues.person(text, a, b, strict=True, imperative=False):
                    continue
                more.append(("LOCATION", a, b))
                taken.add(more[-1])
        return more

    def _valued_place(self, text: str, span: Span) -> bool:
        """A place read where only a person's number says someone is there: not a given name on sight (`Sofía:
        mi número`), nor what a person has (`Tucker's form`)."""
        return self.given(fold(text[span[1] : span[2]])) < 2 and not cues.possessive(text, span[2])

    def _from_city(self, text: str, out: list[Span]) -> list[Span]:
        """A person's name read on into `di` or `de` and a city's name is the person, then where they are from:
        `Marco Bellini di Bergamo`, `Lucrezia Sanna di Cagliari` (not `Ruiz de Alarcón`, a small town's name that
        is a surname's part; not `Núria de Girona`, where a given name alone would be left to stand for the
        person)."""
        split: list[Span] = []
        for span in out:
            origin = _OF_CITY.search(text, span[1], span[2]) if span[0] == "PERSON" else None
            if origin is None or origin.end() != span[2] or not self._origin(text[span[1] : origin.start()], origin):
                split.append(span)
            else:
                split += [("PERSON", span[1], origin.start()), ("LOCATION", origin.start("city"), span[2])]
        return split

    def _inflected_product(self, word: str) -> bool:
        """A Cyrillic word that is a product's name under a case ending, and no place's name however it is read
        (`Кафки`, `Кафку`: Kafka; not `Москве`, Moscow's, nor `Риге`)."""
        key = fold(word)
        if " " in word or not _CYRILLIC.search(word) or self.lex.knows_place(key):
            return False
        stems = {key[:-n] + tail for n in (1, 2) for tail in ("a", "", "o") if len(key) - n >= 3}
        return any(stem in self.lex.products and not self.lex.knows_place(stem) for stem in stems)

    def _origin(self, name: str, origin: re.Match[str]) -> bool:
        """`di`/`de` and a city after `name` say where the person is from: the name has two words or more, its last
        no given name on sight (`Ana Paula de Lima`: the surname is what follows), and the city is plainly one, no
        given name, word or common surname (not `Ponce de León`, `Hurtado de Mendoza`, `Alves de Lima`)."""
        words = name.split()
        city = fold(origin.group("city"))
        if len(words) < 2 or self.given(fold(words[-1])) == 2 or city not in self.lex.places:
            return False
        return self.plainly_place(city)

    def _named_with(self, text: str, a: int, b: int) -> bool:
        """The place at text[a:b] is part of a team's or a venue's name, or a word before a German month that is
        no large city (`Mitte Juni`)."""
        if _CLUB_BEFORE.search(text, max(0, a - 16), a) is not None or _CLUB_AFTER.match(text, b) is not None:
            return True
        return _MONTH_AFTER.match(text, b) is not None and not self.big_place(fold(text[a:b]))

    def _aside_of_person(self, text: str, piece: list[Token], key: str) -> bool:
        """The piece alone in brackets right after a person's name whose first word is a given name on sight
        (`Isla Morrison (Oban)`, `(Puerto Banús)`): a place the lexicons know, or a place's first word and no
        given name on sight; not a given name on sight, an English word, a role, a product or a word in capitals
        (`(Admin)`, `(Stripe)`, `(QA)`), nor a word of names alone (`(Nowak)`, a maiden name)."""
        a, b = piece[0].start, piece[-1].end
        if text[b : b + 1] != ")" or text[a - 1 : a] != "(" or len(piece) > 3:
            return False
        window = max(0, a - 60)
        starts = (m.start() for m in _CAPITAL_START.finditer(text, window, a))
        names = (_PERSON_OPEN.match(text, at, a) for at in starts)  # `Customer Benedetta Ferri (`: from `Benedetta`
        if not any(name is not None and self.given(fold(name.group("first"))) == 2 for name in names):
            return False
        first = piece[0]
        if self.given(first.key) == 2 or text[a:b].isupper() or first.key in cues.TITLES:
            return False
        lex = self.lex
        if first.key in lex.words or first.key in mailboxes.ROLES or self.product(first.key):
            return False
        if len(piece) > 1:  # `(Puerto Banús)`: a place's first word, no given name on sight
            return lex.knows_place(key) or (
                first.key in lex.place_first_words and not any(self.given(t.key) == 2 for t in piece)
            )
        # a place the lexicons know: a word of names alone is a maiden name or a codename as often (`(Nowak)`,
        # `(Kestrel)`)
        return lex.knows_place(key)

    def _opened(self, text: str, piece: list[Token]) -> list[Token]:
        """The piece less a first word that is its language's preposition or article opening the sentence (`Im
        Münsterland gibt es`, `Selon Camille Girard`): that word is no part of a name, unless a common surname."""
        first = piece[0]
        never = len(piece) > 1 and text[first.start : first.end].lower() in cues.NEVER_ALONE
        # (not a given name before a surname: `Kia Nguyen`, `Tena Horvat`)
        never = never and not (self.given(first.key) and piece[1].key in self.lex.surnames)
        greeting = len(piece) == 2 and first.key in ("guten", "gute") and piece[1].key in _TIMES_OF_DAY
        if greeting and not cues.CAPITAL_AFTER.match(text, piece[1].end):
            return []  # `Guten Morgen`, `Gute Nacht`: a greeting, no one's name (before a name, `Guten Morgen
            # Katrin`, read as before: the name the greeting's words stand beside is not lost)
        if never and " ".join(t.key for t in piece) not in self.lex.places:  # not `Buenos Aires`
            return piece[1:]  # `Bitte den Abschlag`, `Kérem Tóth`: a word never a name alone is no part of one
        if len(piece) > 1 and first.initial and said_in_its_language(self.lex, text, first.start, first.end):
            return piece if self.common_surname(first.key) else piece[1:]  # `Nagy Eszter`: `big`, and a surname
        return piece

    def _route_ends(self, text: str, a: int, b: int, key: str) -> list[Span]:
        """The two ends of a route written with a dash, `Athens–Tampa`, `Lisbon-Porto`: two capitalised cities of
        LARGE_CITY people or more, each no common given name, common surname or product unless a city of
        BIG_PLACE (not `Ana Lima-Santos`, a double surname; not a place's own name, `Baden-Baden`); none before
        a system's word or after a title, nor on a line of a fixture or a network link (`the Frankfurt-Amsterdam
        link`, `Sevilla-Valencia was postponed`)."""
        if key.count("-") != 1 or key in self.lex.places or key in self.lex.regions:
            return []
        cut = a + text[a:b].index("-")
        ends = [(a, cut), (cut + 1, b)]
        start, end = text.rfind("\n", 0, a) + 1, text.find("\n", b)
        # a ferry's, a bus's or a train's route: towns of any size (`Sailing 14:40 Ullapool–Stornoway delayed`)
        carried = _CARRIED.search(text, start, end if end >= 0 else len(text)) is not None
        for c, d in ends:
            part = fold(text[c:d])
            known = self.large_city(part) or (carried and (part in self.lex.places or part in self.lex.towns))
            if not text[c : c + 1].isupper() or not known:
                return []
            if not self.big_place(part) and (
                self.given(part) == 2 or self.common_surname(part) or self.product(part) or part in self.lex.words
            ):
                return []
        if self._tech_after(text, b) or (a and text[a - 1] in "-_./@") or cues.title_before(text, a):
            return []  # (`Sra. Valencia-Córdoba`: a double surname after a title)
        if _NO_ROUTE.search(text, start, end if end >= 0 else len(text)):
            return []  # a fixture's two clubs, a link between two sites: `Manchester-Liverpool on Sunday, kickoff`
        return [("LOCATION", c, d) for c, d in ends]

    def _versioned(self, text: str, run: list[Token]) -> bool:
        """A run of words ending in a word that is no name, before a version (`Jasper Reports 6.21`): a product."""
        last = run[-1]
        return len(run) > 1 and self.wordy(last) and not self.given(last.key) and said.tech_after(text, last.end)

    def _tech_after(self, text: str, b: int) -> bool:
        """A system's cue after text[:b], also past a product's name: `"Marvin" Slack bot`, `Hermes Helm chart`."""
        if said.tech_after(text, b) or said.described_as_system(text, b) or said.denied(text, b):
            return True
        after = said.next_name(text, b)
        return (
            after is not None
            and fold(text[after[0] : after[1]]) in self.lex.systems
            and said.tech_after(text, after[1])
        )

    def _prefixed_people(self, text: str, taken: list[Span]) -> list[Span]:
        """A person with a Zulu or Xhosa prefix on the given name (`eya ku-Sipho Dlamini`, to Sipho Dlamini;
        `kuThandiwe`), on a line the identifier puts in Zulu or Xhosa: a given name the lexicons know, and the
        capitalised word after it that is no place."""
        out: list[Span] = []
        seen = Overlaps(taken)
        for m in _PREFIXED_PERSON.finditer(text):
            a, b = m.span("given")
            key = fold(m.group("given"))
            if not self.given(key) or self.lex.knows_place(key) or self.product(key) or seen.over(a, b):
                continue
            if language_at(text, m.start()) not in ("zu", "xh"):
                continue
            surname = fold(m.group("surname") or "")
            # not a place's, an English word's or a product's (`ku-Grace Church`, `ku-Apple Store`)
            if surname and not (self.lex.knows_place(surname) or surname in self.lex.words or self.product(surname)):
                b = m.end("surname")
            out.append(("PERSON", a, b))
        return out

    def _no_one_there(self, text: str, spans: list[Span]) -> bool:
        """Text about systems that names no person: its places are where systems run (deployments.py)."""
        if any(e == "PERSON" for e, _, _ in spans) or deployments.personal(text) or self._spoken(text):
            return False
        return deployments.technical(text, self.lex.system_names, said.TECH_WORDS)

    def _spoken(self, text: str) -> bool:
        """A chat log's line a person says (`[09:03] leilani: the rink in Honolulu`): its speaker's handle no
        English word, product, program or role mailbox's word, no digits (not `[15:00] relay:`,
        `[10:00] buildkite:`, `10:02 <k8s>`)."""
        irc = chat.NICK.finditer(text) if "<" in text else ()  # an IRC line with no time: `<annika> ...`
        for m in itertools.chain(deployments.SPEAKER.finditer(text) if ":" in text else (), irc):
            handle = (m.groupdict().get("who") or m.group("nick")).lower()
            if handle in _HTML_TAGS:
                continue  # `<p> Meeting in Lisbon`: markup, no speaker
            words = [w for w in re.split(r"[._\-]", handle) if w]
            if not words or any(c.isdigit() for c in handle):
                continue
            if self.given(words[0]) == 2:
                return True  # `omar:`, `felix:`: a given name on sight, whatever else it names
            if any(w in self.lex.words or self.product(w) or self.program(w) or w in mailboxes.ROLES for w in words):
                continue
            return True
        return False

    def _unnamed(self, run: list[Token], named: frozenset[str]) -> list[list[Token]]:
        """The run's parts around what names a product: a release codename of a family the text names (`macOS
        Big Sur`, `Ubuntu Jammy`), words that joined make a product's name (`Victoria Metrics`), and a word
        right after a product's that is no one's name (`Grafana Mimir`, `Apache Hudson`; not `Claude Monet`)."""
        lex = self.lex
        parts: list[list[Token]] = [[]]
        i = 0
        while i < len(run):
            skip = 0
            for size in range(min(3, len(run) - i), 0, -1):
                keys = [t.key for t in run[i : i + size]]
                if lex.codenames.get(" ".join(keys)) in named or (size > 1 and "".join(keys) in lex.products):
                    skip = size
                    break
            if not skip and i > 0 and self.maker(run[i - 1].key):
                skip = 1
            if skip:
                parts.append([])
                i += skip
            else:
                parts[-1].append(run[i])
                i += 1
        return [p for p in parts if p]

    def _systems_listed(self, text: str, pieces: list[list[Token]], systems: set[str]) -> list[list[Token]]:
        """The pieces less those listed with a system and no person's cue of their own: `Jenkins, Hudson, Travis,
        Drone`, `Grafana and Loki`, `Victoria, Wallaby and Xena clouds`, `from Luigi to Airflow`."""
        groups: list[list[list[Token]]] = []
        for piece in pieces:
            last = groups[-1][-1] if groups else None
            joined = last is not None and (
                said.listed(text, last[-1].end, piece[0].start)
                or said.moved(text, last[0].start, last[-1].end, piece[0].start)
            )
            if joined:
                groups[-1].append(piece)
            else:
                groups.append([piece])
        out: list[list[Token]] = []
        for group in groups:
            # a system's noun after the last one is every one's (`Victoria, Wallaby and Xena clouds`)
            end = group[-1][-1].end
            shared = len(group) > 1 and (said.tech_after(text, end) or deployments.infra_after(text, end))
            # a naming noun before a list of three or more is every one's (`codenames — Naples, Rome, Milan`)
            shared = shared or (len(group) > 2 and said.names_things(text, group[0][0].start))
            systemic = [self._system(text, p, systems) for p in group]
            system = len(group) > 1 and any(systemic)
            # a system read only by the number after it (`Gartenstraße 5`): a street's, as often as a version's
            numbered = (shared and _NUMBER_AFTER.match(text, end) is not None) or (
                system
                and any(
                    _NUMBER_AFTER.match(text, p[-1].end) is not None for p, s in zip(group, systemic, strict=True) if s
                )
            )
            for piece, its_system in zip(group, systemic, strict=True):
                a, b = piece[0].start, piece[-1].end
                listed = shared or (system and not its_system and not self.placed(piece))
                if not listed or cues.person(text, a, b, strict=True) or self._soft_titled(text, piece):
                    out.append(piece)
                elif numbered and self._whole_name(piece):
                    out.append(piece)  # `Yasemin Arslan, Gartenstraße 5`: a person's whole name, not a version
        return out

    def _whole_name(self, piece: list[Token]) -> bool:
        """A given name and a surname the lexicons know (placenames.py), neither a product's."""
        key = " ".join(t.key for t in piece)
        return self._full_name(piece, key) and not any(self.product(t.key) for t in piece)

    def _soft_titled(self, text: str, piece: list[Token]) -> bool:
        """A name the lexicons know after a customer's or a family's word: `Kunde Dietrich, Wohnmobil WM-04`."""
        key = piece[0].key
        return cues.word_before(text, piece[0].start) in cues.SOFT_TITLES and bool(
            self.given(key) or key in self.lex.surnames
        )

    def _system(self, text: str, piece: list[Token], systems: set[str]) -> bool:
        """A product that is not also a common name (`Grafana`, `Drone`), or a word named as a system here."""
        if len(piece) != 1:
            return False
        key = piece[0].key
        if self.placed(piece):  # `Madrid`, `Canada`: a place first, whatever brand carries the name
            return False
        if key in systems or (self.product(key) and self.given(key) < 2):
            return True
        return said.tech_after(text, piece[0].end) or said.tech_before(text, piece[0].start)

    # a run cut into names and places
    def _pieces(self, run: list[Token], text: str) -> list[list[Token]]:
        """Places by the longest match; a given name and the surnames after it as one piece; other words alone."""
        pieces: list[list[Token]] = []
        i = 0
        while i < len(run):
            size = self._place_at(run, i, text)
            if size > 1:
                pieces.append(run[i : i + size])
                i += size
            elif pieces and self._continues(pieces[-1], run[i], text):
                pieces[-1].append(run[i])
                i += 1
            else:
                pieces.append([run[i]])
                i += 1
        return pieces

    def _place_at(self, run: list[Token], i: int, text: str) -> int:
        """How many words from run[i] name a place, its particles read too (`Rio de Janeiro`, `Dar es Salaam`)."""
        for size in range(min(self.lex.place_words, len(run) - i), 0, -1):
            if " ".join(t.key for t in run[i : i + size]) in self.lex.places:
                return size
            if size > 1 and " ".join(fold(text[run[i].start : run[i + size - 1].end]).split()) in self.lex.places:
                return size
        return 0

    def _continues(self, piece: list[Token], token: Token, text: str) -> bool:
        """Whether `token` goes on the name `piece` began ("Thandiwe Moyo", "Sarah Jenkins", "Sebastián Castro")."""
        lex = self.lex
        head = piece[0]
        key = token.key
        if cues.greeting(head.key) and head.key not in cues.TITLES:
            return False  # `Klientka Magdalena Kamińska`, `Hey Grace`: the cue is not the name's
        if key in cues.TITLES and self._title_opens(text, head, token):
            return False  # `Grüezi Herr Albrecht`: a title begins the next name
        if text[token.start : token.end].lower() in cues.DAYS_ELSEWHERE:
            return False  # `itafika Arusha Jumatatu`: a day after the name, not its surname
        if self.unknown(head.key):  # `name: "Ngaio Parata"`: two words no lexicon knows
            return self.unknown(key) or (key in lex.surnames and not self.product(key) and not self.big_place(key))
        if head.key in cues.TITLES or not self.given(head.key) or head.key in cues.CALENDAR or cues.greeting(head.key):
            return False
        surname = key in lex.surnames and key not in lex.products and lex.wordiness(key) < 1
        # a name written with its accents is no English word nor product (`Sebastián`, not `Sebastian`)
        accented = not text[head.start : head.end].isascii()
        if len(piece) == 1 and (self.wordy(head) or head.key in lex.products) and not surname and not accented:
            # "Grace period", "Ruby Sinatra": an ordinary word or a product before a word; not before a word no
            # lexicon knows (`Grace Mbatha`)
            return self.unknown(key) and head.key not in lex.products
        if (key in lex.products and key not in lex.surnames) or key in cues.CALENDAR:
            return False
        if self.big_place(key):  # "Fernanda Lima", "Jerome Washington", not "Priya London"
            return surname or (0 < lex.surnames.get(key, 0) <= COMMON_SURNAME and self.given(head.key) == 2)
        return key in lex.surnames or key in lex.given or key in lex.places or lex.words.get(key, 0) < INITIAL_WORD

    # deciding
    def _decide(self, text: str, piece: list[Token], hosts: bool = False) -> list[Span] | None:
        """The piece's spans, or None when only the NER model can say."""
        lex = self.lex
        a, b = piece[0].start, piece[-1].end
        if piece[0].key in cues.TITLES or cues.language_title(text, a, piece[0].key):
            # "Dr. Okafor", `Pan Wiśniewski`: the title is the cue, and not part of the name
            return [("PERSON", piece[1].start, b)] if len(piece) > 1 else []
        if len(piece) > 1 and piece[-1].key in cues.TITLES and text[b : b + 1] == ".":
            return self._decide(text, piece[:-1], hosts)  # `Gentile Sig. Caruso`: a salutation, then the title
        key = " ".join(t.key for t in piece)
        if (
            len(piece) == 3
            and self.unknown(piece[0].key)
            and piece[0].key not in _NAMED_AFTER_SOMEONE
            and self._full_name(piece[1:], " ".join(key.split()[1:]))
            and (named := self._decide(text, piece[1:], hosts))
        ):
            # `Die Rechnung von Frieda Kuhlmann`, `Der Kunde Matthias Gruber`: a noun no lexicon knows (German's
            # capitalised), then a given name on sight and a surname: the name is the two, where they are one
            # (else the three are read as before: `Hodowca Jan Kowalski`, a placeholder's name alone)
            return named
        if len(piece) > 1 and key not in lex.places:
            spelled = " ".join(fold(text[a:b]).split())  # with its particles: `Rio de Janeiro`
            key = spelled if spelled in lex.places else key
        if (
            key.removesuffix("s") in cues.WEEKDAYS  # `Thursdays`
            or key in cues.HOLIDAYS
            or key in cues.PRONOUNS
            or text[a:b].lower() in cues.NEVER_ALONE
            or text[a:b] in _LITERALS
            or (text[a:b] == "As" and _BASIC_DECLARED.search(text, max(0, a - 40), a) is not None)
        ):
            return []
        if _IMPERATIVE_PRONOUN.search(text, a, b) or (key in _PLACEHOLDER_TOWNS):
            return []  # `Aide-moi`, `Dites-nous`: a French imperative; `Anytown`: no one's, nowhere
        if self._business(text, piece, key):
            return []  # `Orologeria Ferri`, `sporthal De Geer`: a business's or a venue's name
        if len(piece) == 1 and _CYRILLIC_FROM_IN.search(text, max(0, a - 12), a) and self._city_cased(text[a:b]):
            return []  # `из Самары`: a city's case after `from` or `in`, not Samara's (guards/scriptplaces.py reads it)
        unnamed = piece[0].key in cues.NEVER_ALONE or not any(self.given(t.key) == 2 for t in piece)  # `Guten Morgen`
        greeting = unnamed and not cues.title_before(text, a)
        if greeting and _TITLE_AND_NAME_AFTER.match(text, b):
            return []  # `Grüß Gott Herr Pichler`, `Salve Signor Rossi`: a greeting before a title and a name
        if any(len(t.key) > 8 and t.key.endswith(cues.NOUN_ENDINGS) for t in piece):
            return []  # `Überweisungsdaten Modelleisenbahnclub`: German's compound nouns, no one's name
        if len(piece) > 1 and (piece[-1].key in _SERVICE_WORDS or piece[0].key in _SERVICE_FIRST):
            return []  # `Lido Notifications <no-reply@...>`, `Padel Bookings`, `Newsletter Panquecas`: a service's
            # sender, no one's name
        if _ABBREVIATED.search(text, max(0, a - 3), a) and text[a:b].isupper():
            return []  # `P.IVA`, `S.A.`: an abbreviation's letters
        if len(piece) == 1 and key in cues.SOFT_TITLES and _NAME_AFTER.match(text, b):
            return []  # `a Dona Graça`: the title, not a name of its own
        if cues.time_zone_area(text, a, b):
            return []  # `Europe/Paris`, `America/Mexico_City`
        day = text[a:b].lower() in cues.DAYS_ELSEWHERE  # `Jumat`, `Mañana`; not `Herr Montag`, a common surname
        if day and not cues.title_before(text, a) and not self.common_surname(key):
            return []
        if len(piece) == 1 and (common_word(lex, text[a:b]) or said_in_its_language(lex, text, a, b)):
            return []  # `Мой брат Алексей`, `Jag har betalat`: `my`, `I`, capitalised at the sentence's start
        if len(piece) == 1 and (ends := self._route_ends(text, a, b, key)):
            return ends  # `charged for Athens–Tampa`: a route between two large cities
        if key in lex.places:
            if hosts and not cues.place_before(text, a) and not self.given(key) and not self._peoples(text, a, b):
                return []
            return self._place(text, piece, key, a, b)
        tech = self._tech_after(text, b) or (said.tech_before(text, a) and not _romance_a(text, a, b))
        peoples = places.peoples_place_after(text, b)  # `from the Hà Nội office`: the article is no system's
        regional = len(piece) > 1 and key in lex.regions and (not tech or peoples)
        if regional and not deployments.deployment(text, a, b, lex.products):
            return [("LOCATION", a, b)]  # `British Columbia`, `Minas Gerais`: a country's subdivision
        if self._elsewhere(text, piece, key):
            return [("LOCATION", a, b)]  # `skied from Finse`, `the Hardangervidda plateau`
        if len(piece) > 1 and self._town(text, piece):
            return [("LOCATION", a, b)]  # `the glaciers around El Chaltén`: a town's name of several words
        by_state = places.state_after(text, b) or places.beside_name(text, a, b, self.given, self.lex.words)
        if (key in lex.towns or key in lex.regions) and by_state and not cues.person(text, a, b, strict=True):
            # `Park City, UT`, `Eluned Pryce, Llandeilo`, `Giulia Ferraro, Venezia`: a town or a province by its
            # state or a person
            return [("LOCATION", a, b)]
        # a town before where people are is no system's, its article none either (`the Verbier shop`)
        town = key in lex.towns and not self.given(key) and (not tech or peoples)
        if town and (places.peoples_place_after(text, b) or places.people_in_before(text, a)):
            return [("LOCATION", a, b)]  # `(Dungarvan farm)`, `the salon in Leith`: a town by what people have there
        if self._aside_of_person(text, piece, key):
            return [("LOCATION", a, b)]  # `Isla Morrison (Oban)`, `(Puerto Banús)`: where the person named is
        if len(piece) > 1 and self.unknown(piece[0].key):  # words no lexicon knows: a cue says, or the NER model
            cue = cues.person(text, a, b, strict=True) or cues.title_before(text, a)  # `pani Bożeny Wróbel`
            return [("PERSON", a, b)] if not tech and cue else None
        if len(piece) > 1:
            return [] if tech and not cues.person(text, a, b, strict=True) else [("PERSON", a, b)]
        token = piece[0]
        given = self.given(key)
        if token.initial and _LABEL_AFTER.match(text, b) and (given < 2 or key in _FRENCH_FIELDS):
            return []  # `Name: Mr. Abdullah`, `Sender: finance-dept@`: a field's label, not a name (`Hannah: out`)
        if given < 2 and _KEY_AFTER.match(text, b):
            return []  # `Name = "Jürgen Hofbauer"`: a property's name, its value quoted after it
        # a name written with its accents is a person's (`Lucía`, `Zoë`): products are spelled in ASCII
        product = (self.product(key) or said.system_named(text, a, given >= 2)) and (not given or text[a:b].isascii())
        product = product or self._product_in_cyrillic(text, key, a, b)
        if cues.title_before(text, a) and (not product or self.common_surname(key)) and not tech:
            return [("PERSON", a, b)]  # `Auntie Comfort`, `Mr. Oyelowo`, `Herr Schneider`: a title makes a person of
            # any word, and of a product's that is a common surname
        soft = cues.word_before(text, a) in cues.SOFT_TITLES
        if (
            soft
            and (given or key in lex.surnames)
            and not product
            and not tech
            and lex.words.get(key, 0) < INITIAL_WORD
        ):
            return [("PERSON", a, b)]  # `familjen Andersson`: a family's word before a name the lexicons know
        if given and cues.social_before(text, a):
            return [("PERSON", a, b)]  # `her brother Julien builds violins`, `a man called Milan`
        if given and cues.word_before(text, a) in cues.CLOSINGS and not tech:
            return [("PERSON", a, b)]  # `Mvh Henrike`: a letter's closing before a given name
        if key in cues.CALENDAR or product or self.wordy(token):  # "June", "Cassandra", "Chase"
            if given < 2 and key not in lex.surnames and _TICKET_KEY_BEFORE.search(text, max(0, a - 24), a):
                return []  # `[FERRATA-88] Guide cannot upload`: a ticket's title opens with a capital (not `[SUP-97]
                # Mills cannot log in`: a surname)
            # a product's name is a person's only by what is said of people alone: a `she` counts, `wrote` not
            pronoun = product and given == 2 and not self.wordy(token)
            cue = cues.person(text, a, b, strict=True, imperative=not product, pronoun=pronoun, social=product)
            cue = cue or self._pair(text, token)
            return [("PERSON", a, b)] if given and cue and not tech else []
        if cues.inside(text, a):
            return None  # "a small town in Brittany": no one is in a person; the NER model says if it is a place
        if given == 2:
            return [] if tech and not cues.person(text, a, b, strict=True) else [("PERSON", a, b)]
        if lex.words.get(key, 0) >= INITIAL_WORD:
            return []
        if cues.field_before(text, a) and not tech and key not in lex.words:
            return [("PERSON", a, b)]  # `last_name="Iyer"`, `name: "Ngaio"`
        if key in lex.surnames and key not in lex.words and not tech and chat.opens_message(text, a):
            return [("PERSON", a, b)]  # `[21:40] Ewa: Dvořák z Brna poslal`: a surname opening a chat message
        if given and not tech and (cues.person(text, a, b, strict=True, pronoun=True) or self._pair(text, token)):
            return [("PERSON", a, b)]  # a rarer given name next to a cue: "Thandiwe suggested"
        return None  # a rare given name, a surname alone, a word no lexicon knows: the NER model reads it

    def _verb_and_product(self, span: str) -> bool:
        """`Обновить Кафку`: a verb's infinitive first (a ticket's title), no name, then a product's name under a case
        ending that is no given name (not `Иванова Саша`, `Игорь Форд`, `Орлов Фома`, `Хуаном Вегой`)."""
        words = span.split()
        first = fold(words[0])
        if len(words) < 2 or not _INFINITIVE.search(words[0]) or self.given(first) or first in self.lex.surnames:
            return False
        return any(
            self._inflected_product(w) and fold(w) not in self.lex.products and not self.given(fold(w))
            for w in words[1:]
        )

    def _city_cased(self, word: str) -> bool:
        """A Cyrillic city of CITY_CASED people or more under a case ending (`Самары`: Самара), not a person's name
        only (`Тамару`, `Константина`)."""
        for cut in (1, 2):
            stem = word[:-cut]
            if cut == 2 and word[-2:].lower() not in _TWO_LETTER_CASES:
                continue  # (not `Тамару` as `Тама`, a Japanese city, and a case)
            if len(stem) >= 3 and any(self.lex.scripts.get(stem + v, 0) >= CITY_CASED for v in ("", *"аяоеьиый")):
                return True
        return False

    def _product_in_cyrillic(self, text: str, key: str, a: int, b: int) -> bool:
        """A product's name written in Cyrillic, its `c` a `к` (`Кассандра`: Cassandra), where another product is
        named in the text (`Кафка опять отвалилась, Кассандра тоже тормозит`); the name is a person's only by a cue
        then, as the product's in Latin letters is (not `Кассандра` alone: a given name too)."""
        if not key.startswith("k") or "c" + key[1:] not in self.lex.products or not _CYRILLIC.search(text, a, b):
            return False
        if _SAID_TO_OR_DID.match(text, b) or _GREETED.search(text, max(0, a - 12), a):
            return False  # `Кассандра, посмотри`, `Кассандра сказала`: said to her, or what she did
        others = {fold(w) for w in _WORDS.findall(text)} - {key}
        lex = self.lex
        return any(w in lex.products and w not in lex.words and not self.given(w) for w in others)

    def _business(self, text: str, piece: list[Token], key: str) -> bool:
        """A business's or a venue's name: a trade's word opens it (`Orologeria Ferri`, not `Tasca Giovanni`, a
        surname before a given name), or a venue's, a trade's or a club's word stands right before it (`sporthal De
        Geer`; not `volleybalclub Leuven`, where the club is, nor `in farmacia Giulia Bianchi`)."""
        if len(piece) > 1 and piece[0].key in cues.TRADES:
            return not all(self.given(t.key) for t in piece[1:])
        opened = piece[0].key in _ARTICLES  # `De Geer`, `Le Zinc`: a hall's or a bar's name, as a person's rarely
        if _QUOTED_AFTER_TRADE.search(text, max(0, piece[0].start - 40), piece[0].start):
            return opened or not self.given(piece[0].key)  # `pupusería "La Ceiba"`: the shop's name, a place's too
        if (self.given(piece[0].key) and not opened) or key in self.lex.places:
            return False
        return self._business_before(text, piece[0].start)

    def _title_opens(self, text: str, head: Token, title: Token) -> bool:
        """`title` begins the next name, not this one's: a name follows it, and no given name nor a letter's `Dear`
        comes before it (`Grüezi Herr Albrecht`; not `Michael Herr`, `Walter Lord is`, `Chère Madame Lemaire`, and
        `Gentile Sig. Caruso` is read apart)."""
        if text[title.end : title.end + 1] == "." or head.key in _SALUTATIONS or self.given(head.key):
            return False
        return _NAME_AFTER.match(text, title.end) is not None

    @staticmethod
    def _business_before(text: str, a: int) -> bool:
        """A venue's, a trade's or a club's word right before text[a:]: the rest is its name (`sporthal De Geer`,
        `Schachvereniging De Toren`, `Bottega Bortolotti`)."""
        if _VENUE_BEFORE.search(text, max(0, a - 20), a):
            return True
        word = _WORD_RIGHT_BEFORE.search(text, max(0, a - 40), a)
        key = fold(word.group(1)) if word else ""
        return key in cues.TRADES or (len(key) > 8 and key.endswith(cues.BUSINESS_ENDINGS))

    def _vouched(self, text: str, token: Token) -> bool:
        """What is said of a person alone around a name: `Thanks Atlas`, `Atlas said`, `Atlas and Grace`."""
        return cues.person(text, token.start, token.end, strict=True, imperative=False, pronoun=True) or self._pair(
            text, token
        )

    def _by_ner(self, text: str, piece: list[Token], label: str | None) -> list[Span]:
        """A piece the lexicons could not decide: a person or a place if the NER model says so and a cue agrees."""
        a, b = piece[0].start, piece[-1].end
        if self._tech_after(text, b) or said.tech_before(text, a):
            return []
        if self._town(text, piece):
            return [("LOCATION", a, b)]  # `in Tobermory`, `the village of Kinsale`
        if label is None or cues.owned_by_system(text, b):
            return []  # `in Quickwit's tokenizer`: what a system has
        if len(piece) == 1 and piece[0].initial and text[b : b + 1] == ":" and said.next_name(text, b + 1):
            return []  # `Chargeback: Ahmad Karimi disputes ...`: a label before a name
        place = label in ("GPE", "LOC", "FAC")
        given = place and (self.lex.people.get(text[a : piece[0].end]) or (0, 0))[0]
        if given and words_by_script(text[a:b])[0][2] != "latin":
            return []  # `from="Μαρία Γεωργίου"`, which the model calls a place: a given name (guards/scriptnames.py)
        place = place or (label == "PERSON" and not self.given(piece[0].key))
        if place and cues.inside(text, a) and not deployments.deployment(text, a, b, self.lex.products):
            return [("LOCATION", a, b)]  # `her winters in Tenerife and her summers`: in a place, whoever follows
        # `Yevgenia's notebook`: what is said of people alone, before any reading as a place
        if label in ("PERSON", "GPE") and cues.person(text, a, b, strict=True, social=True):
            return [("PERSON", a, b)]
        # `on` before a word no lexicon knows is as often a system's (`the cluster is on Karpenter`)
        on = cues.word_before(text, a) == "on"
        if (
            place
            and not on
            and cues.place_before(text, a)
            and not deployments.deployment(text, a, b, self.lex.products)
        ):
            return [("LOCATION", a, b)]
        island = place and on and cues.place_before(text, a) and (label != "PERSON" or self._named_before(text, a))
        if island and not deployments.deployment(text, a, b, self.lex.products) and not self._no_one_there(text, []):
            return [("LOCATION", a, b)]  # `a cabin on Gotland`: an island the model calls a place
        # a `he` or `her` later in the sentence is a person's already named before the word, not the word's:
        # `Mateo Fernández spent a year in Ulaanbaatar ... his degree`
        pronoun = not ((place or label == "ORG") and cues.place_before(text, a) and self._named_before(text, a))
        if label in ("PERSON", "ORG", "GPE") and cues.person(text, a, b, strict=True, pronoun=pronoun):
            return [("PERSON", a, b)]
        if label == "PERSON" and len(piece) > 1 and not self.product(piece[-1].key):
            return [("PERSON", a, b)]  # `Olamide Fashola`, `Hyun-woo Choi`: a full name the model knows
        return []

    def _named_before(self, text: str, a: int) -> bool:
        """A capitalised name earlier in the sentence than text[a:] that is a person's by the lexicons."""
        start = max(text.rfind(". ", 0, a), text.rfind("\n", 0, a), text.rfind("; ", 0, a)) + 1
        return any(
            self.given(t.key) == 2 and not self.product(t.key) and not self.wordy(t)
            for run in cues.runs(text[start:a])
            for t in run
        )

    def _town(self, text: str, piece: list[Token]) -> bool:
        """A town of a thousand people or more (lexicon towns.txt) after a place's cue, not `on` nor a system's."""
        a, b = piece[0].start, piece[-1].end
        key = " ".join(t.key for t in piece)
        if key not in self.lex.towns or cues.word_before(text, a) == "on" or not cues.place_before(text, a):
            return False
        return not cues.person(text, a, b, strict=True) and not deployments.deployment(text, a, b, self.lex.products)

    def _pair(self, text: str, token: Token) -> bool:
        """`Grace and Will`: two given names joined by `and` or `&`, each other's cue."""
        other = cues.pair(text, token.start, token.end)  # a product beside it is no cue (`Zed and Helix`)
        return other is not None and bool(self.given(other)) and not (self.product(other) and self.given(other) < 2)
