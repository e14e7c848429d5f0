"""The word lists guards/names.py decides with: given names, surnames, places, products, codenames, English words.

Built from pinned packages by guards/data/lexicon/build.py (sources and licences
in its README.md) and shipped as package data: nothing is fetched, and loading
them is a read of about 4.7 MB of sorted text, once per process, when the first
`guards.pii` step with `names: lexicon` is built.
"""

from __future__ import annotations

import dataclasses
import functools
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import files


def words(text: str) -> frozenset[str]:
    """A set of words written as one string, space-separated: how the rules' vocabularies are spelled."""
    return frozenset(text.split())


# Cyrillic spelled in Latin letters as names are romanised (`Анна` -> `anna`, `Олександр` -> `oleksandr`): the
# lexicons hold names in Latin letters only
SYSTEM_WORD = 5000  # a product's name this frequent as an English word says nothing of text about systems alone
SCRIPT_CITY = 100_000  # a city's name in another script read on sight: a city this large; smaller ones need a cue
_CYRILLIC_LETTERS = "абвгґдеёєжзийіїклмнопрстуфхцчшщъыьэюя"
_CYRILLIC_LATIN = "a b v g g d e e ye zh z i y i yi k l m n o p r s t u f kh ts ch sh shch _ y _ e yu ya"
_CYRILLIC = dict(zip(_CYRILLIC_LETTERS, _CYRILLIC_LATIN.split(" "), strict=True))
_FOLD = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i", "ð": "d", "þ": "th",
                       "’": "'", **{c: "" if t == "_" else t for c, t in _CYRILLIC.items()}})  # fmt: skip


def fold(word: str) -> str:
    """Lower case, accents off (`Bjørn` -> `bjorn`, `Kraków` -> `krakow`), Cyrillic in Latin letters (`Анна` ->
    `anna`): the key of every lexicon."""
    lowered = word.lower().translate(_FOLD)
    if lowered.isascii():
        return lowered
    return "".join(c for c in unicodedata.normalize("NFKD", lowered) if not unicodedata.combining(c))


@dataclass(frozen=True, slots=True)
class Place:
    kind: str  # country, state, continent, city
    population: int


@dataclass(frozen=True)
class Lexicons:
    given: dict[str, int]  # given name -> how many people carry it
    given_sources: dict[str, int]  # given name -> in how many of nomquamgender's sources it occurs
    given_rank: dict[str, int]  # given name -> its best rank among one country's first names (names-dataset)
    surnames: dict[str, int]  # surname -> rank in the US census list (1: the most common)
    places: dict[str, Place]  # place name, one or more words -> what it is
    products: frozenset[str]  # every word of a product, service or language name
    words: dict[str, int]  # English word -> frequency in running text
    place_words: int  # the most words a place name has
    codenames: dict[str, str] = dataclasses.field(default_factory=dict)  # release codename -> its family
    packages: frozenset[str] = frozenset()  # words of popular packages' names that are no one's given name
    towns: frozenset[str] = frozenset()  # towns of 1,000 to 15,000 people that no other lexicon knows
    scripts: dict[str, int] = dataclasses.field(default_factory=dict)  # a city's name in another script -> people
    # a town's name in another script (15,000 to SCRIPT_CITY people) -> people: read only where a cue says place
    script_towns: dict[str, int] = dataclasses.field(default_factory=dict)
    regions: frozenset[str] = frozenset()  # countries' subdivisions, large cities' names in other languages
    cities: frozenset[str] = frozenset()  # of `regions`, the large cities' names (`Frankfurt`, `Aarhus`, `Göteborg`)
    # a name in another script -> (its best rank as a given name, as a surname; 0: not one)
    people: dict[str, tuple[int, int]] = dataclasses.field(default_factory=dict)

    def knows_place(self, key: str) -> bool:
        """A place by any of the lexicons of places: a city, a town, a subdivision or another language's name."""
        return key in self.places or key in self.regions or key in self.towns

    @functools.cached_property
    def systems(self) -> frozenset[str]:
        """Product and package words that are no one's given name and no place's name: `grafana`, `patroni`."""
        return frozenset(w for w in self.products | self.packages if w not in self.given and w not in self.places)

    @functools.cached_property
    def system_names(self) -> frozenset[str]:
        """Of `systems`, those that are no common English word either, and more than a letter: `grafana`, `patroni`;
        not `round`, `leader`, `client`, `j` (PyPI has a package of almost every word), which start sentences
        and label fields of text about people too."""
        return frozenset(w for w in self.systems if len(w) > 1 and self.words.get(w, 0) < SYSTEM_WORD)

    @functools.cached_property
    def codename_words(self) -> frozenset[str]:
        """Every word of a release codename (`ada`, `lovelace`, `big`, `sur`): a text without one names none."""
        return frozenset(w for name in self.codenames for w in name.split())

    @functools.cached_property
    def place_first_words(self) -> frozenset[str]:
        """The first words of places of several words (`new` of `new york`, `buenos` of `buenos aires`)."""
        return frozenset(key.split()[0] for key in self.places if " " in key)

    def wordiness(self, key: str) -> float:
        """How much more often `key` is an ordinary word than a given name: its frequency as a word against a
        hundredth of the people called so (`chase` 19, `grace` 3.7, `john` 0.1)."""
        people = self.given.get(key, 0)
        return self.words.get(key, 0) / (people / 100 + 1)


def _rows(name: str) -> Iterator[list[str]]:
    text = files("taskgate.guards").joinpath("data", "lexicon", f"{name}.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        yield line.split("\t")


@functools.cache
def lexicons() -> Lexicons:
    """The lexicons, read once per process."""
    places = {row[0]: Place(row[1], int(row[2])) for row in _rows("places")}
    given = list(_rows("given"))
    scripts = list(_rows("scripts"))
    products = _product_words([row[0] for row in _rows("products")], {row[0] for row in given if int(row[1]) >= 1000})
    return Lexicons(
        given={row[0]: int(row[1]) for row in given},
        given_sources={row[0]: int(row[2]) for row in given},
        given_rank={row[0]: int(row[3]) for row in given if row[3] != "0"},
        surnames={row[0]: int(row[1]) for row in _rows("surnames")},
        places=places,
        products=products,
        words={row[0]: int(row[1]) for row in _rows("words")},
        place_words=max(len(p.split()) for p in places),
        codenames={row[0]: row[1] for row in _rows("codenames")},
        packages=frozenset(row[0] for row in _rows("packages")),
        towns=frozenset(row[0] for row in _rows("towns")),
        scripts={row[0]: int(row[1]) for row in scripts if int(row[1]) >= SCRIPT_CITY},
        script_towns={row[0]: int(row[1]) for row in scripts if int(row[1]) < SCRIPT_CITY},
        regions=frozenset(row[0] for row in _rows("regions")),
        cities=frozenset(row[0] for row in _rows("regions") if row[1] == "city"),
        people=_people(),
    )


def _people() -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for name, kind, rank in _rows("people"):
        given, surname = out.get(name, (0, 0))
        out[name] = (int(rank), surname) if kind == "given" else (given, int(rank))
    return out


def _product_words(titles: list[str], names: set[str]) -> frozenset[str]:
    """Every word of every title, but a common given name only where it is the product's own name: a title by
    itself or after a maker's name (`Claude`, `Apache Cassandra`), not a word in one (`Aston Martin`)."""
    firsts: dict[str, int] = {}
    for title in titles:
        words = title.split()
        if len(words) > 1:
            firsts[words[0]] = firsts.get(words[0], 0) + 1
    makers = {w for w, n in firsts.items() if n >= 3}
    out: set[str] = set()
    for title in titles:
        words = title.split()
        own = words[1] if len(words) == 2 and words[0] in makers else words[0] if len(words) == 1 else None
        out.update(w for w in words if w not in names or w == own)
    return frozenset(out)
