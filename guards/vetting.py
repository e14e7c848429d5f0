"""A second look at each name found: a linear model over what surrounds it, trained on where the rules erred.

guards/names.py decides names by lexicons and the words around them. Its rules
were written from labelled sets and stay right on them; on text written apart
they take some products, services and codenames for people (`Orion`,
`Athena`, `Geneva` the font). The vetter scores each PERSON and LOCATION span
the rules found from features of its form (casing, script, words), of what the
lexicons say of its words, of the words either side, and of the text around
(code, identifiers, how many names, how technical), and drops it below a
threshold. Its weights (guards/data/vetter.json) were fitted by
bench/pii_vetter.py on the rules' output on sets they had not seen; it only
removes, so it costs recall and never adds a name.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from taskgate.errors import TaskgateError

from . import cues
from . import systems as said
from .kinds import Kinds
from .lexicons import fold
from .lexicons import words as _words
from .lowercase import addressed, done_for, introduced, standup
from .records import PERSONAS, in_personal_row
from .scriptnames import GIVEN_RANK, by_form, rank

WEIGHTS = Path(__file__).parent / "data" / "vetter.json"
FEATURES_VERSION = 1  # bump when features() changes: the shipped weights are then stale (a test says so)
NAMED = ("PERSON", "LOCATION")
Span = tuple[str, int, int]  # entity type, start, end
_WORD = re.compile(r"[^\W\d_][\w'’\-]*")
_CODE_CHARS = frozenset("_{}=<>/\\|`$#@;[]()")
_PRONOUN = re.compile(r"\b(?:he|she|his|her|him|hers|herself|himself)\b", re.IGNORECASE)
_CONTEXT = 3  # words either side
_NEWLINE = re.compile("\n")


class VetterError(TaskgateError):
    """The vetter's weights are unreadable, malformed or fitted to other features; the message says which."""


@dataclass(frozen=True, slots=True)
class Vetter:
    """A logistic regression's weights over features(); a span scoring under its type's threshold is dropped."""

    weights: Mapping[str, float]
    bias: float
    thresholds: Mapping[str, float]  # per entity type

    @classmethod
    def load(cls, path: Path = WEIGHTS, threshold: float | None = None) -> Vetter:
        """The weights fitted by bench/pii_vetter.py; `threshold` replaces the ones fitted with them (per type)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data["features_version"] != FEATURES_VERSION:
                raise VetterError(
                    f"{path}: fitted to features version {data['features_version']}, this code computes "
                    f"{FEATURES_VERSION}; refit with `python bench/pii_vetter.py`"
                )
            weights = {str(k): float(v) for k, v in data["weights"].items()}
            fitted = {str(e): float(t) for e, t in data["threshold"].items()}
            if set(fitted) != set(NAMED):
                raise VetterError(f"{path}: a threshold for each of {', '.join(NAMED)}, not {sorted(fitted)}")
            bias = float(data["bias"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise VetterError(f"{path}: cannot read the vetter's weights: {exc!r}") from None
        return cls(weights, bias, fitted if threshold is None else dict.fromkeys(NAMED, threshold))

    def score(self, feats: Mapping[str, float]) -> float:
        """The probability that the span is what it was found as."""
        z = self.bias + sum(self.weights.get(k, 0.0) * v for k, v in feats.items())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def vet(self, kinds: Kinds, text: str, spans: list[Span], sure: Collection[Span] = ()) -> list[Span]:
        """The spans that pass: every span of another type, every person the text says is one (protected(), and
        `sure`: what a record's shape says), and names scoring at least their type's threshold."""
        around = Around(kinds, text, sum(1 for e, _, _ in spans if e in NAMED))
        return [span for span in spans if span[0] not in NAMED or span in sure or self._passes(kinds, around, span)]

    def _passes(self, kinds: Kinds, around: Around, span: Span) -> bool:
        if protected(kinds, around, *span):
            return True
        return self.score(features(kinds, around, *span)) >= self.thresholds[span[0]]


_INTRODUCED = re.compile(
    r"\b(?:I['’]m|I\s+am|[Mm]y\s+name\s+is|[Mm]y\s+name['’]s|[Cc]all\s+me"
    # in other languages: `soy Valentina`, `je m'appelle`, `ich heiße`, `mi chiamo`, `jestem`, `me llamo`
    r"|(?i:soy|me\s+llamo|mi\s+nombre\s+es|je\s+suis|je\s+m['’]appelle|moi\s+c['’]est|ich\s+bin|ich\s+heiße|"
    r"mein\s+name\s+ist|sono|mi\s+chiamo|eu\s+sou|me\s+chamo|meu\s+nome\s+é|jestem|nazywam\s+się|ik\s+ben|"
    r"jag\s+heter|jeg\s+heter|jmenuji\s+se|benim\s+adım))\s+\Z"
)
# two people joined by another language's `and`: `Lars og Kari`, `Ana y Luis`, each a given name on sight (in
# English, products are paired so as often: `Apollo and Artemis`, `Gemini and Claude`)
_JOINED_BEFORE = re.compile(r"([^\W\d_][\w\-]*)\s+(?:og|och|und|et|y|e|i|en|ve|ja|és|и|та)\s+\Z")
_JOINED_AFTER = re.compile(r"\s+(?:og|och|und|et|y|e|i|en|ve|ja|és|и|та)\s+([^\W\d_][\w\-]*)")
# a verb of saying or writing in other languages, right after a given name
_SAYS_AFTER = re.compile(
    r"[ \t]+(?:mówi|napisała|napisał|dice|ha\s+detto|scrive|sagt|schreibt|schrieb|dit|écrit|diz|disse|escreveu|"
    r"dijo|escribió|zegt|schreef|säger|skrev|sier|říká|napsala|napsal|psala|psal|píše|řekla|řekl|söyledi|yazdı|kaže|"
    # lives, moved, works, in languages written in Latin letters: `Veera asuu Turussa`, `Lena wohnt in Graz`
    r"asuu|muutti|syntyi|työskentelee|sanoi|kirjoitti|bor|flyttade|flyttet|flyttede|arbetar|jobber|arbejder|"
    r"wohnt|lebt|arbeitet|woont|werkt|verhuisde|vive|trabaja|abita|lavora|habite|travaille|mora|trabalha|mieszka|"
    r"pracuje|bydlí|lakik|dolgozik|"
    r"говорит|сказала|сказал|"
    # what only a person does, in other scripts: lives, moved, was born, works (`דנה עברה ל...`, `Анна живёт в`)
    r"אמר|אמרה|כתב|כתבה|גר|גרה|עבר|עברה|נולד|נולדה|עובד|עובדת|قال|قالت|يعيش|تعيش|انتقل|انتقلت|ولد|ولدت|"
    r"گفت|نوشت|زندگی|живёт|живет|переехал|переехала|родился|родилась|работает|μένει|μετακόμισε|γεννήθηκε|"
    r"δουλεύει)\b"
)
_PRONOUNS_ELSEWHERE = _words("sie er ella elle lei lui ela ele hij zij hon han hun ona on ono")
# a rota's day: `mon: Tanvir / tue: Gabriela`
_DAY_LABEL = re.compile(r"(?i:\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|monday|tuesday|wednesday|thursday|"
                        r"friday|saturday|sunday|weekend|weekdays?))\s*[:=\-–]\s*\Z")  # fmt: skip


def protected(kinds: Kinds, around: Around, entity: str, a: int, b: int) -> bool:
    """A person the text says is one, which the vetter does not second-guess: a field only a person has
    (`last="Quintanilla"`, `holder=`; `name:` names robots, pets and servers too), what is said to or of a
    person (`Thanks Austin`, `Call John`, `Mason is on call`, `Dr. Okafor`; not a `her` later in the sentence,
    which may be anyone's), a full name, a given name on sight and a surname (`Ruby Chen`, `Grace Kim`), or a
    name whose form says so in a script without capitals (`김지현`, `持卡人=周伟`); never a fixture's persona
    (`John Doe`, `Alice`, `홍길동`)."""
    if entity != "PERSON":
        return False
    text = around.text
    words = text[a:b].split()
    if " ".join(fold(w) for w in words) in PERSONAS or text[a:b] in PERSONAS:  # `홍길동`: folding splits Hangul
        return False
    field = cues.field_before(text, a)
    if field and cues.word_before(text, a) != "name":
        return True
    if by_form(kinds.lex, text, a, b):
        return True  # `김지현`, `持卡人=周伟`: a surname and a given name, in scripts without capitals
    cued = cues.person(text, a, b, strict=True) or cues.title_before(text, a) or cues.social_before(text, a)
    cued = cued or cues.word_before(text, a) in cues.SOFT_TITLES  # `familjen Johansson`, `Klientka Kamińska`
    cued = cued or _INTRODUCED.search(text, max(0, a - 24), a) is not None  # `I'm Jakub, new on the team`
    cued = cued or (text[a:b].islower() and done_for(text, a))  # `pls add oluwaseun to the rota`
    # chat's own cues for a name in lower case: a stand-up line's, a message's addressee
    lower = text[a:b].islower() and _pure(kinds, text[a:b])
    cued = cued or (lower and (standup(text, a, b) or addressed(text, a, b) or introduced(text, a, b)))
    if cued and not field:  # a `name:` field is a cue to the rules, not enough here
        return True
    if words and in_personal_row(text, a, b) and _rowed(kinds, [fold(w) for w in words]):
        return True  # a row that holds someone's SSN, IBAN, card or address: `E10551,Keisha Monroe,610-45-0067`
    given = kinds.given(fold(words[0])) == 2 if words else False
    joined = _pure(kinds, words[0]) and _joined(kinds, text, a, b) if words else False  # not `Alexa y Siri`
    if given and len(words) == 1 and (_DAY_LABEL.search(text, max(0, a - 14), a) or joined):
        return True
    scripted = bool(words) and not words[0].isascii() and 0 < rank(kinds.lex, words[0]) <= GIVEN_RANK
    if (
        (given or scripted)
        and len(words) == 1
        and _SAYS_AFTER.match(text, b)
        and fold(words[0]) not in _PRONOUNS_ELSEWHERE
        and not kinds.large_city(fold(words[0]))  # `Roma vive di turismo`
    ):
        return True  # `Ola mówi, że ...`, `Giulia dice che ...`, `דנה עברה ל...`: a person says, lives, moves
    did = given and len(words) == 1 and _pure(kinds, words[0]) and _DID_AFTER.match(text, b) is not None
    if did and not kinds.lex.knows_place(fold(words[0])):
        return True  # `Temitope deployed the classifier`: a name and nothing else, doing something
    pair = _PAIR_AT_START.search(text, max(0, a - 40), a) if text[a:b].islower() and given else None
    if pair is not None and _pure(kinds, text[a:b]) and _pure(kinds, pair.group("first")):
        return True  # `hiroshi anneliese — design review`: two names that are names alone, opening a line
    return len(words) >= 2 and given and fold(words[-1]) in kinds.lex.surnames


def _rowed(kinds: Kinds, keys: list[str]) -> bool:
    """A name as a person's row holds it: a given name and more, a given name on sight alone, a surname; not a
    place's name (`Atlanta` is a given name too)."""
    if " ".join(keys) in kinds.lex.places:
        return False
    if len(keys) == 1:
        return kinds.given(keys[0]) == 2 or keys[0] in kinds.lex.surnames
    return bool(kinds.given(keys[0])) or keys[-1] in kinds.lex.surnames


_DID_AFTER = re.compile(r"[ \t]+(?:just[ \t]+|also[ \t]+)?[a-z]{3,}ed\b")  # `Temitope deployed`, `Femi just pushed`
_PAIR_AT_START = re.compile(r"(?:\A|\n)[ \t]*(?P<first>[a-z\u00df-\u024f]+)[ \t]+\Z")


def _pure(kinds: Kinds, word: str) -> bool:
    """A word that is a given name on sight and nothing else: no English word, no product's name."""
    key = fold(word)
    return kinds.given(key) == 2 and key not in kinds.lex.words and not kinds.product(key)


def _joined(kinds: Kinds, text: str, a: int, b: int) -> bool:
    """A given name on sight joined by `and` to another one, in any of several languages: `Lars og Kari`."""
    before = _JOINED_BEFORE.search(text, max(0, a - 30), a)
    after = _JOINED_AFTER.match(text, b)
    return any(m is not None and m.group(1)[0].isupper() and _pure(kinds, m.group(1)) for m in (before, after))


class Around:
    """What the vetter reads of a whole text, once for all its names: a long prompt with many names costs one
    pass, not one per name."""

    def __init__(self, kinds: Kinds, text: str, found: int):
        self.text = text
        n = max(len(text), 1)
        words = _WORD.findall(text)
        products = sum(1 for w in words if w[:1].isupper() and kinds.product(fold(w)))
        tech = sum(1 for w in words if w.lower() in said.TECH_WORDS)
        self.features: dict[str, float] = {
            f"code={min(int(sum(c in _CODE_CHARS for c in text) / n * 50), 4)}": 1.0,
            f"digits={min(int(sum(c.isdigit() for c in text) / n * 20), 3)}": 1.0,
            f"found={min(found, 4)}": 1.0,
            f"tech_words={min(tech, 4)}": 1.0,
            f"products={min(products, 3)}": 1.0,
        }
        for name, present in (("pronoun_in_text", _PRONOUN.search(text)), ("lines", "\n" in text),
                              ("address_in_text", "@" in text)):  # fmt: skip
            if present:
                self.features[name] = 1.0
        self.first = len(text) - len(text.lstrip())  # where the text's first word starts
        self.newlines = [m.start() for m in _NEWLINE.finditer(text)]
        self._identifiers: frozenset[str] | None = None
        self._counts: dict[str, int] = {}

    def identifiers(self) -> frozenset[str]:
        if self._identifiers is None:
            self._identifiers = said.identifiers(self.text)
        return self._identifiers

    def count(self, surface: str) -> int:
        if surface not in self._counts:
            self._counts[surface] = self.text.count(surface)
        return self._counts[surface]

    def line_start(self, a: int) -> int:
        i = bisect.bisect_left(self.newlines, a) - 1
        return self.newlines[i] + 1 if i >= 0 else 0


def features(kinds: Kinds, around: Around, entity: str, a: int, b: int) -> dict[str, float]:
    """What the vetter reads of text[a:b], found as `entity`, in the text `around` describes."""
    text = around.text
    surface = text[a:b]
    words = surface.split()
    key = " ".join(fold(w) for w in words)
    head = fold(words[0]) if words else ""
    lex = kinds.lex
    f: dict[str, float] = {f"type={entity}": 1.0, f"words={min(len(words), 3)}|{entity}": 1.0}
    # form
    if surface.isupper():
        f["allcaps"] = 1.0
    elif surface.islower():
        f["lower"] = 1.0
    if not surface.isascii():
        latin = all(ord(c) < 0x250 for c in surface if c.isalpha())
        f["accented" if latin else "script"] = 1.0
    f[f"len={min(len(surface) // 4, 4)}"] = 1.0
    f[f"W:{key}|{entity}"] = 1.0
    f[f"S3:{head[-3:]}"] = 1.0
    # what the lexicons say
    given = kinds.given(head)
    f[f"given={given}|{entity}"] = 1.0
    if key in lex.surnames or (len(words) > 1 and fold(words[-1]) in lex.surnames):
        f[f"surname|{entity}"] = 1.0
    if kinds.product(key) or kinds.product(head):
        f[f"product|{entity}"] = 1.0
    if key in lex.places:
        f[f"place|{entity}"] = 1.0
        if kinds.big_place(key):
            f[f"big_place|{entity}"] = 1.0
    if key in lex.codenames or head in lex.codenames:
        f["codename"] = 1.0
    f[f"wordiness={min(int(lex.wordiness(head)), 4)}"] = 1.0
    if kinds.unknown(head):
        f[f"unknown|{entity}"] = 1.0
    # the words around
    before = [w.lower() for w in _WORD.findall(text[max(0, a - 60) : a])][-_CONTEXT:]
    after = [w.lower() for w in _WORD.findall(text[b : b + 60])][:_CONTEXT]
    for w in before:
        f[f"L:{w}"] = 1.0
    for w in after:
        f[f"R:{w}"] = 1.0
    if before:
        f[f"P1:{before[-1]}|{entity}"] = 1.0
    if after:
        f[f"N1:{after[0]}|{entity}"] = 1.0
    f[f"prev={_char_class(text[a - 1] if a else '^')}"] = 1.0
    f[f"next={_char_class(text[b] if b < len(text) else '$')}"] = 1.0
    # cues the rules read
    if cues.person(text, a, b, strict=True, pronoun=True):
        f["cue_person"] = 1.0
    if said.tech_after(text, b):
        f["tech_after"] = 1.0
    if said.tech_before(text, a):
        f["tech_before"] = 1.0
    if cues.title_before(text, a) or cues.social_before(text, a):
        f["title_or_social"] = 1.0
    if cues.field_before(text, a):
        f["field_before"] = 1.0
    if cues.place_before(text, a):
        f["place_before"] = 1.0
    if head and head in around.identifiers():
        f["as_identifier"] = 1.0
    # the text around
    f.update(around.features)
    if a <= around.first:
        f["opens_text"] = 1.0
    if not text[around.line_start(a) : a].strip():
        f["opens_line"] = 1.0
    if around.count(surface) > 1:
        f["repeated"] = 1.0
    return f


def _char_class(c: str) -> str:
    if c in "^$":
        return c
    if c.isspace():
        return "space"
    if c.isalnum():
        return "alnum"
    return c if c in "\"'`([{<:=@#/-,." else "other"
