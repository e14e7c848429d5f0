"""People written in scripts other than Latin: `أحمد وصل إلى دبي`, `שרה לוי נולדה`, `Δημήτρης είναι`, `김민준 님`,
`佐藤さん`, `山本 美咲さん`.

The lexicon people.txt holds given names and surnames in other scripts
(names-dataset: a country's first 3,000). What counts:

- in a script written with spaces (Arabic, Hebrew, Greek, Cyrillic, ...), a
  word of three letters or more that is a given name among a country's first
  1,000 (in Greek and Cyrillic: capitalised, with a case ending of up to two
  letters: `Игорю`), with the next word when it is a surname (`שרה לוי`,
  `محمد العلي`);
- in Armenian, a surname by its ending (`-յան`, `-եան`), with the given name
  before it (`Անի Հակոբյան`): no lexicon here holds Armenian names;
- in Hangul, a word that starts with one of the common one-syllable surnames
  and a given name of two syllables (`김민준`, `박지훈에게`), or a given name
  before `님` or `씨` (`지훈님`);
- in Japanese, a surname before an honorific (`佐藤さん`, `小林様`), or a
  surname and a given name together before one or on their own after a space
  (`田中美咲さん`, `山本 美咲`).

Chinese names (a one-character surname and one or two characters, in text
without spaces) are not read: without a segmenter, `周末` (weekend) and
`张量` (tensor) would be names.
"""

from __future__ import annotations

import functools
import importlib
import re

from . import languages
from .findings import Overlaps
from .lexicons import Lexicons, fold
from .scriptplaces import words_by_script

Span = tuple[str, int, int]
GIVEN_RANK = 1_000  # a word alone: a given name this common
NAME_RANK = 3_000  # after a surname, or as the surname after a given name
# the twenty most common Korean surnames (Statistics Korea, 2015 census), one syllable each
KOREAN_SURNAMES = frozenset("김이박최정강조윤장임한오서신권황안송류홍")
_KOREAN_TITLES = ("님", "씨")
_JAPANESE_TITLES = re.compile(r"さん|様|さま|氏|先生|くん|君|ちゃん|殿")


def script_names(lex: Lexicons, text: str, taken: list[Span]) -> list[Span]:
    """The people in `text` named in scripts other than Latin, apart from what `taken` overlaps."""
    if text.isascii() or not lex.people:
        return []
    out: list[Span] = []
    seen = Overlaps(taken)
    words = words_by_script(text)
    for i, (a, b, script) in enumerate(words):
        if script == "latin":
            continue
        if script == "han":
            found = [(s, e) for _, s, e in _japanese(lex, text, a, b)]
        else:
            span = _korean(lex, text, a, b) if script == "hangul" else _spaced(lex, text, words, i)
            span = span or (_armenian(text, words, i) if "\u0531" <= text[a] <= "\u0556" else None)
            found = [] if span is None else [span]
        for s, e in found:
            if not seen.over(s, e):
                out.append(("PERSON", s, e))
                seen.add(("PERSON", s, e))
    return out


# languages written with spaces in other scripts, whose commonest words spaCy lists (`мой`, `моя`, `это`)
_STOP_LANGUAGES = ("ru", "uk", "bg", "sr", "mk", "el", "he", "ar", "fa", "ur", "hi", "mr", "ne", "bn", "ta", "te")


@functools.cache
def function_words() -> frozenset[str]:
    """The commonest words of other scripts' languages (spaCy's stop-word lists, in its package): names-dataset
    holds some of them as given names (`Мой`), and capitalised at a sentence's start they are read as people."""
    out: set[str] = set()
    for language in _STOP_LANGUAGES:
        module = importlib.import_module(f"spacy.lang.{language}.stop_words")
        out |= {w for w in module.STOP_WORDS if not w.isascii()}
    return frozenset(out)


# the languages written in Latin letters whose commonest words spaCy lists, by the language identifier's code
_LATIN_STOP_LANGUAGES = {
    "af": "af",
    "ca": "ca",
    "cs": "cs",
    "da": "da",
    "de": "de",
    "es": "es",
    "et": "et",
    "eu": "eu",
    "fi": "fi",
    "fr": "fr",
    "ga": "ga",
    "hr": "hr",
    "hu": "hu",
    "is": "is",
    "it": "it",
    "lb": "lb",
    "lt": "lt",
    "lv": "lv",
    "ms": "ms id",
    "no": "nb",
    "nl": "nl",
    "pl": "pl",
    "pt": "pt",
    "ro": "ro",
    "sk": "sk",
    "sl": "sl",
    "sq": "sq",
    "sv": "sv",
    "tl": "tl",
    "tr": "tr",
    "yo": "yo",
}  # fmt: skip  (not Vietnamese: its commonest words are its commonest names too, `Duy`, `Thanh`, `Anh`)
_OPENS = re.compile(r"(?:\A|[\n.!?:;\"“„«(]|\n>)[ \t]*\Z")  # a sentence's, a line's or a quote's start
MANY_PEOPLE = 10_000  # a function word this many people are called is still read as a name (`Ana`, `Ella`, `Ali`)


@functools.cache
def latin_function_words() -> dict[str, frozenset[str]]:
    """The commonest words of languages written in Latin letters (spaCy's stop-word lists), by language."""
    out: dict[str, frozenset[str]] = {}
    for language, modules in _LATIN_STOP_LANGUAGES.items():
        words: set[str] = set()
        for module in modules.split():
            words |= importlib.import_module(f"spacy.lang.{module}.stop_words").STOP_WORDS
        out[language] = frozenset(w.lower() for w in words)
    return out


@functools.cache
def _any_latin_function_word() -> frozenset[str]:
    return frozenset().union(*latin_function_words().values())


def said_in_its_language(lex: Lexicons, text: str, a: int, b: int) -> bool:
    """text[a:b] is one of the commonest words of the language its line is in, other than English, capitalised at
    a sentence's, a line's or a quote's start (`Jag har betalat`, `Dobrý den`, `Von: Katharina`), and no name many
    people carry."""
    word = text[a:b].lower()
    if word not in _any_latin_function_word() or not _OPENS.search(text, max(0, a - 4), a):
        return False  # mid-sentence, a capitalised word is a name's more than a sentence's (`mamá de Mía`)
    language = languages.language_at(text, a)
    if language in (None, "en") or word not in latin_function_words().get(language, ()):
        return False
    return lex.given.get(fold(word), 0) < MANY_PEOPLE


def common_word(lex: Lexicons, word: str) -> bool:
    """One of another script's language's commonest words, and no common given name (`Аман` is both)."""
    return not word.isascii() and word.lower() in function_words() and not 0 < rank(lex, word) <= GIVEN_RANK


def rank(lex: Lexicons, word: str, surname: bool = False) -> int:
    """A word's best rank among a country's first given names (`surname`: surnames) in people.txt; 0: none."""
    ranks = lex.people.get(word)
    return (ranks[1] if surname else ranks[0]) if ranks else 0


def _spaced(lex: Lexicons, text: str, words: list[tuple[int, int, str]], i: int) -> tuple[int, int] | None:
    a, b, script = words[i]
    word = text[a:b]
    if len(word) < 3 or (script == "cased" and not word[0].isupper()) or common_word(lex, word):
        return None
    if not 0 < _given(lex, word, script) <= GIVEN_RANK:
        return None
    if i + 1 < len(words):
        c, d, other = words[i + 1]
        nxt = text[c:d]
        if other == script and text[b:c] == " " and 0 < rank(lex, _base(lex, nxt, script, True), True) <= NAME_RANK:
            return a, d
    return a, b


def _given(lex: Lexicons, word: str, script: str) -> int:
    return rank(lex, _base(lex, word, script, False))


def _base(lex: Lexicons, word: str, script: str, surname: bool) -> str:
    """The word as the lexicon holds it: in Cyrillic and Greek, less a case ending (`Игорю` -> `Игорь`)."""
    if word in lex.people or script != "cased":
        return word
    for cut in (1, 2):
        stem = word[:-cut]
        for form in (stem, *(stem + v for v in "ьйаяоеиыΑαοςη")):
            if len(stem) >= 3 and rank(lex, form, surname):
                return form
    return word


# an Armenian surname's ending (`Հակոբյան`, `Պետրոսյան`, Western `Սարգսեան`), with a case ending or none
_ARMENIAN_SURNAME = re.compile(r"[\u0531-\u0556][\u0561-\u0587]{2,}(?:յան|եան)(?:ը|ի|ին|ից|ով|ն)?")


def _armenian(text: str, words: list[tuple[int, int, str]], i: int) -> tuple[int, int] | None:
    """An Armenian surname, with the capitalised given name before it: `Անի Հակոբյան` (no lexicon holds
    Armenian names; the surname's ending says)."""
    a, b, _ = words[i]
    if i + 1 < len(words) and text[b : words[i + 1][0]] == " ":
        c, d, _ = words[i + 1]
        if _ARMENIAN_SURNAME.fullmatch(text, c, d) and len(text[a:b]) >= 2:
            return a, d  # the given name and the surname
    if _ARMENIAN_SURNAME.fullmatch(text, a, b):
        return a, b
    return None


def _korean(lex: Lexicons, text: str, a: int, b: int) -> tuple[int, int] | None:
    word = text[a:b]
    if len(word) >= 3 and word[0] in KOREAN_SURNAMES and 0 < rank(lex, word[1:3]) <= NAME_RANK:
        return a, a + 3  # `김민준`, `박지훈에게`: the particle after it is not the name's
    if word[2:3] in _KOREAN_TITLES and 0 < rank(lex, word[:2]) <= NAME_RANK:
        return a, a + 2  # `지훈님`
    return None


def _japanese(lex: Lexicons, text: str, a: int, b: int) -> list[Span]:
    """A surname before an honorific, or a surname and a given name; each surname of two or three characters."""
    out: list[Span] = []
    i = a
    while i < b - 1:
        found = None
        for size in (3, 2):
            surname = text[i : i + size]
            if i + size > b or not 0 < rank(lex, surname, True) <= GIVEN_RANK:
                continue
            end = i + size
            given = next((k for k in (3, 2) if 0 < rank(lex, text[end : end + k]) <= NAME_RANK), 0)
            if given and _JAPANESE_TITLES.match(text, end + given):
                found = (i, end + given)
            elif _JAPANESE_TITLES.match(text, end):
                found = (i, end)
            elif end == b and text[end : end + 1] == " ":  # `山本 美咲`: the given name after a space
                after = next((k for k in (3, 2) if 0 < rank(lex, text[end + 1 : end + 1 + k]) <= NAME_RANK), 0)
                if after:
                    found = (i, end + 1 + after)
            if found:
                break
        if found:
            out.append(("PERSON", *found))
            i = found[1]
        else:
            i += 1
    return out
