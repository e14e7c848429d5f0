"""The language a stretch of text is written in, for the readers whose cues belong to one language.

The readers of names in lower case (guards/lowercase.py) and of places with a
case ending (guards/otherplaces.py) read cues of a language: `have fun marco`
is English, `w Krakowie` Polish, `Tallinnas` Estonian. A line of Hausa
(`yana aiki a Kaduna`) has an `a` and words that are given names somewhere,
and a count of a few function words cannot tell it from English. A language
identifier can: langid.py's model (py3langid, 140 languages, shipped inside
its wheel, nothing downloaded), about 0.1 ms for a line.

It is asked only where a reader has a candidate already (a lower-case given
name with a weak cue, a capitalised word whose stem is a place), so text with
none costs nothing, and a stretch read lately is not identified again
(remembered by its digest: no request's text is kept). The model is read when the step is built
(`identifier()`, from guards/names.py:names_for).
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
from collections import OrderedDict

from py3langid.langid import MODEL_FILE, LanguageIdentifier

SURE = 0.8  # the identifier's probability from which a stretch is taken to be in its language
REACH = 160  # characters either side of a word, within its line, that are identified
GRID = 40  # a word is identified with the stretch around the start of its 40 characters
# languages read as one: the identifier splits Serbo-Croatian by little more than the script, Malay and
# Indonesian by little more than their spelling
_SAME = {"bs": "hr", "sr": "hr", "id": "ms"}
_FAMILIES = frozenset(_SAME.values())
# languages so close that the identifier splits a line between them (Czech and Slovak: `studuje v Olomouci`, 0.76
# Czech): for a reader whose cues the two share, the line is sure of the one ranked first when the two together are
# (not for every reader: a Czech line sure of itself turns the English cues for lower-case names off)
_KIN = {"cs": "sk", "sk": "cs"}
CACHED = 2048
_CACHE: OrderedDict[bytes, tuple[str, float, float]] = OrderedDict()
_LOCK = threading.Lock()


@functools.cache
def identifier() -> LanguageIdentifier:
    """langid.py's model with probabilities normalised, read once a process."""
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def identify(stretch: str, kin: bool = False) -> tuple[str, float]:
    """The language `stretch` is most likely in (ISO 639-1 where it has one), and how likely; languages read as
    one (_SAME) sum their probabilities, and with `kin` so do kin languages (_KIN). Remembered for the last CACHED
    stretches by their digest: no request's text is kept."""
    key = hashlib.blake2b(stretch.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    with _LOCK:
        known = _CACHE.get(key)
        if known is not None:
            _CACHE.move_to_end(key)
    if known is None:
        known = _identify(stretch)
        with _LOCK:
            _CACHE[key] = known
            if len(_CACHE) > CACHED:
                _CACHE.popitem(last=False)
    language, probability, kin_probability = known
    return language, probability + kin_probability if kin else probability


def _identify(stretch: str) -> tuple[str, float, float]:
    language, probability = identifier().classify(stretch)
    language = _SAME.get(language, language)
    kin = 0.0
    if language in _FAMILIES:
        probability = sum(p for lang, p in identifier().rank(stretch) if _SAME.get(lang, lang) == language)
    elif language in _KIN and probability < SURE:
        kin = next(p for lang, p in identifier().rank(stretch) if lang == _KIN[language])
    return language, float(probability), float(kin)


def around(text: str, at: int, reach: int = REACH) -> str:
    """The line around text[at], at most `reach` characters either side."""
    start, end = _bounds(text, at, reach)
    return text[start:end]


def _bounds(text: str, at: int, reach: int) -> tuple[int, int]:
    start = text.rfind("\n", max(0, at - reach), at) + 1 or max(0, at - reach)
    end = text.find("\n", at, at + reach)
    return start, end if end >= 0 else at + reach


# a line's opening handle or field, after a time or not (`[09:03] segreteria: `, `10:40 <omar> `, `Kunde: `): a
# handle and digits, no language
_LINE_PREFIX = re.compile(r"[ \t]*(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?[ \t]+)?(?:<[\w.\-]+>|@?[\w.\-]+:)[ \t]+")


def language_at(text: str, at: int, reach: int = REACH, kin: bool = False) -> str | None:
    """The language of the line around text[at] when the identifier is sure of it (SURE), else None; with `kin`,
    sure of it and its kin language together (a reader whose cues the two share). The words of one stretch of
    GRID characters share the stretch around its start: a long line is identified once a stretch, not once a
    word."""
    point = at - at % GRID
    point = text.rfind("\n", point, at) + 1 or point  # on the word's own line
    start, end = _bounds(text, point, reach)
    line = text[start:end]
    prefix = _LINE_PREFIX.match(line) if start == 0 or text[start - 1] == "\n" else None  # at the line's start
    language, probability = identify(line[prefix.end() :] if prefix is not None else line, kin)
    return language if probability >= SURE else None
