"""What a word is by the lexicons alone: a given name (and how surely), a surname, a product, a place, a word.

Used by guards/names.py and guards/placenames.py; the words around a name
(cues.py, systems.py, places.py) decide what the lexicons leave open.
"""

from __future__ import annotations

from .cues import Token
from .lexicons import Lexicons

STRONG_PEOPLE = 1000  # a given name this many people carry (in 8 or more sources) is taken as one on sight
STRONG_SOURCES = 8
STRONG_RANK = 1000  # or a given name among one country's first this many (names-dataset: `Olumide`, `Nokuthula`)
FEW_PEOPLE = 500  # a place's name so few people carry is no given name that makes it unplain
PLAIN_PLACE = 100_000  # or this large, and no given name, product, word or common surname (`Naples`, `Braga`)
BIG_PLACE = 1_000_000  # a city this large (or a country, state, continent) is a place unless a cue says otherwise
COMMON_SURNAME = 5000  # a surname this common goes on a given name even when it is a large place's name too
LARGE_CITY = 100_000  # a city this large is the place where its name is a given name or a surname few people carry
WORDY = 3.0  # Lexicons.wordiness from which a name is an ordinary word first ("chase", "grace", "will")
INITIAL_WORD = 1000  # a word this frequent, more a word than a name, starting a sentence: "Jack up", "Patience,"


class Kinds:
    """The lexicons' answers about one folded word (`key`) or token."""

    def __init__(self, lexicons: Lexicons):
        self.lex = lexicons

    def unknown(self, key: str) -> bool:
        """A word no lexicon knows: no given name, product, place, English word or codename."""
        lex = self.lex
        return not (
            key in lex.given or self.product(key) or key in lex.places or key in lex.words or key in lex.codenames
        )

    def placed(self, piece: list[Token]) -> bool:
        return self.big_place(" ".join(t.key for t in piece))

    def product(self, key: str) -> bool:
        """A product's, a language's or a package's name (`Grafana`, `Ruby`, `Patroni`), or a release codename."""
        lex = self.lex
        return key in lex.products or key in lex.packages or (key in lex.codenames and self.given(key) < 2)

    def program(self, key: str) -> bool:
        """A product's or a package's name that is no one's given name or surname (`grafana`, `alertmanager`,
        `renovate`; not `jenkins`): what a program's mailbox is named after."""
        lex = self.lex
        return self.product(key) and not self.given(key) and key not in lex.surnames

    def mailbox_part(self, key: str) -> bool | None:
        """What a part of a mailbox's name says of it (mailboxes.is_role): True for a program (program()) or an
        ordinary word far more often than a given name and not a surname unless a very common word
        (`elections`, `shows`; not `rose`, `hunter`, `brown`); None for a word no lexicon knows (`hse`, `cva`);
        False for a name or anything else."""
        if self.program(key):
            return True
        lex = self.lex
        count = lex.words.get(key, 0)
        if self.given(key):
            return False  # `will.young@`, `hope.white@`: someone's
        if key in lex.surnames:
            return len(key) >= 4 and count >= 50_000 and lex.wordiness(key) >= 10
        if len(key) > 4 and (key[1:] in lex.surnames or key[2:] in lex.surnames):
            return False  # an initial and a surname: `mnowak`, `jsmith`
        if count == 0:
            return None
        return len(key) >= 4 and count >= 1000

    def given(self, key: str) -> int:
        """2: a given name on sight; 1: a rarer one, or one of the lexicon's stray entries; 0: none."""
        people = self.lex.given.get(key)
        if people is None:
            if "-" in key and key in self.lex.places:
                return 0  # `Saint-Malo`, `Sainte-Marie`: a place's name of names, not a given name of given names
            parts = key.split("-")  # `Hyun-woo`, `Seo-yeon`, `Jean-Luc`: a given name of given names
            levels = [self.given(p) for p in parts] if len(parts) == 2 and all(parts) else [0]
            return max(levels) if min(levels) else 0
        if people >= STRONG_PEOPLE and self._sources_ok(key):
            return 2
        if not people and key in self.lex.places:
            return 1  # ranked among a country's names but carried by no one counted: a place (`Reykjavik`)
        return 2 if 0 < self.lex.given_rank.get(key, 0) <= STRONG_RANK else 1

    def _sources_ok(self, key: str) -> bool:
        return self.lex.given_sources.get(key, 0) >= STRONG_SOURCES

    def wordy(self, token: Token) -> bool:
        lex = self.lex
        wordiness = lex.wordiness(token.key)
        return wordiness >= WORDY or (token.initial and wordiness >= 1 and lex.words.get(token.key, 0) >= INITIAL_WORD)

    def big_place(self, key: str) -> bool:
        place = self.lex.places.get(key)
        return place is not None and (place.kind != "city" or place.population >= BIG_PLACE)

    def large_city(self, key: str) -> bool:
        """A place of LARGE_CITY people or more: `Lyon`, `Tbilisi`, `Cork`."""
        place = self.lex.places.get(key)
        return place is not None and place.population >= LARGE_CITY

    def common_surname(self, key: str) -> bool:
        """A surname among the census' first COMMON_SURNAME: `Castro`, `Jenkins`, `Schneider`."""
        return self.lex.surnames.get(key, COMMON_SURNAME + 1) <= COMMON_SURNAME

    def maker(self, key: str) -> bool:
        """A product's name that is no one's name nor a common word, so the word after it is its product's."""
        lex = self.lex
        return key in lex.products and not self.given(key) and lex.words.get(key, 0) < INITIAL_WORD

    def plainly_place(self, key: str) -> bool:
        """A large city that is no given name, product or word, and no common surname: `Naples`, `Bordeaux`."""
        lex = self.lex
        place = lex.places[key]
        # a given name of the lists' stray entries, few people's and no surname (`Arusha`, `Marseille`), is no name;
        # a surname too is someone's (`Ikeda reviewed`, `Beaumont said`)
        stray = lex.given.get(key, 0) < FEW_PEOPLE and key not in lex.surnames
        named = self.given(key) == 2 or (self.given(key) and not stray)
        if place.population < PLAIN_PLACE or named or self.product(key) or key in lex.words:
            return False
        return not self.common_surname(key)
