"""Places people are in, against places named as where a system runs and words that only look like places.

Part of guards/names.py's decision (its `Names` is a `Placenames`): a known
place is a LOCATION unless a system's cue, a product or a deployment says it
is where a system runs (deployments.py); a place people travel to, work in
or name with a geographic word (places.py) is a LOCATION even in text about
systems, and so is a place no lexicon holds when such a cue says so; the two
ends of `from A to B` are of one kind.
"""

from __future__ import annotations

import re

from . import cues, deployments, places
from . import systems as said
from .cues import Token
from .kinds import COMMON_SURNAME, Kinds
from .lexicons import fold

STREET_WORD = 1000  # a word this frequent before a street's word makes no street (`Hard Drive`, `Fast Lane`)

Span = tuple[str, int, int]  # entity type, start, end
Decided = list[tuple[list[Token], list[Span] | None]]


class Placenames(Kinds):
    """The place decisions of guards/names.py."""

    def _geographic(self, text: str, run: list[Token], out: list[Span]) -> list[list[Token]]:
        """The run less the places a geographic word names (`Lake Geneva`, `Victoria Island`, `Cape Reinga`),
        which go to `out`; not next to a product's name (`AWS Lake Formation`, `Delta Lake`)."""
        keys = [t.key for t in run]
        # (Turkish's words only as Turkish writes them: `Eğirdir Gölü`, not `Rahul Golu`)
        after = [
            places.feature_after(t.key) and not (t.key in places.TURKISH_AFTER and text[t.start : t.end].isascii())
            for t in run
        ]
        named = [k for k, aft in zip(keys, after, strict=True) if not places.feature_before(k) and not aft]
        # `the car park on Division Street`, `the bakery on Albert Road`: a street's plain word after `on`, whatever
        # the words before it are
        on_street = len(run) > 1 and places.on_street(text, run[0].start, run[-1].end, keys[-1])
        if len(run) < 2 or (any(k in self.lex.products and k not in self.lex.places for k in named) and not on_street):
            return [run]
        if keys[0] in places.OTHER_FEATURES_BEFORE and not self._named_feature(text, run):
            return [run]  # `Laguna Ortiz`, `Cabo Silva`, `Golfo Theme`: a surname or a word after it
        if keys[-1] in places.STREETS and any(self.lex.words.get(k, 0) >= STREET_WORD for k in named) and not on_street:
            return [run]  # `Hard Drive`, `Select Row`, `Random Walk`: a common word before a street's word
        a, b = run[0].start, run[-1].end
        field = cues.word_before(text, a).split("_")[-1]  # `cpu_family: "Cascade Lake"`: a system's value
        if said.product_next(text, a, b, self.lex.products) or said.tech_after(text, b) or field in said.TECH_WORDS:
            return [run]
        # a common surname after a given name is a person's (`Seo-yeon Park`, `Kevin Marsh`; not `Victoria Island`)
        surname = self.given(keys[0]) and 0 < self.lex.surnames.get(keys[1], 0) <= COMMON_SURNAME and not on_street
        last = max((i for i in range(1, len(keys)) if after[i] and not surname), default=-1)
        if places.feature_before(keys[0]) or last > 0:
            end = len(run) if places.feature_before(keys[0]) else last + 1
            out.append(("LOCATION", run[0].start, run[end - 1].end))
            return [run[end:]] if end < len(run) else []
        return [run]

    def _named_feature(self, text: str, run: list[Token]) -> bool:
        """Another language's geographic word before a place's name: a particle between (`Represa de
        Guarapiranga`, `Cabo de Palos`), or, but after `Cabo` (a corporal's rank too), a name no common surname
        nor a common word (`Sungai Citarik`, `Danau Toba`; not `Laguna Ortiz`, `Golfo Ricci`, `Golfo Theme`)."""
        between = text[run[0].end : run[1].start].split()
        if any(word.lower() in cues.PARTICLES for word in between):
            return True
        if run[0].key == "cabo" or self.lex.words.get(run[1].key, 0) >= STREET_WORD:
            return False
        # (a common surname even where it is a town's name too: `Laguna Perez`)
        return not 0 < self.lex.surnames.get(run[1].key, 0) <= COMMON_SURNAME

    def _travelled(self, text: str, piece: list[Token]) -> bool:
        """A place named as a system elsewhere in the text that a person travels to here (`flew to Frankfurt`)."""
        return piece[0].key in self.lex.places and places.journey_before(text, piece[0].start)

    def _peoples(self, text: str, a: int, b: int) -> bool:
        """A place people are in: on a journey, where they work or meet, or a geographic one (places.py)."""
        return (
            places.journey_before(text, a)
            or places.people_in_before(text, a)
            or self._in_broader(text, b)
            or places.peoples_place_after(text, b)
            or places.lower_feature_after(text, b)
            or bool(
                re.search(r"\s", text[a:b])
                and any(places.feature_before(w) or places.feature_after(w) for w in fold(text[a:b]).split())
            )
        )

    def _in_broader(self, text: str, b: int) -> bool:
        """A country or a US state after a comma (`Sydney, Australia`, `Aberdeen, South Dakota`): a place written
        as a map writes it, no system's region."""
        broader = places.broader_after(text, b)
        if broader is None:
            return False
        for key in (fold(broader), fold(broader.split()[0])):
            place = self.lex.places.get(key)
            if place is not None and place.kind in ("country", "state"):
                return True
        return False

    def _routes(
        self, text: str, decided: list[tuple[list[Token], list[Span] | None]]
    ) -> list[tuple[list[Token], list[Span] | None]]:
        """`from Galway to Dingle`, `between Split and Hvar`: a place at one end makes the other a place too, unless
        it is a product, a common given name that is no place, or a person's cue says otherwise."""
        out = list(decided)
        for i in range(len(out) - 1):
            (p, ps), (q, qs) = out[i], out[i + 1]
            if not places.route(text, p[0].start, p[-1].end, q[0].start, q[-1].end):
                continue
            for theirs, j in ((qs, i + 1), (ps, i)):
                if any(e == "LOCATION" for e, _, _ in theirs or ()) and self._may_be_place(text, out[j][0]):
                    piece = out[j][0]
                    out[j] = (piece, [("LOCATION", piece[0].start, piece[-1].end)])
        return out

    def _may_be_place(self, text: str, piece: list[Token]) -> bool:
        key = " ".join(t.key for t in piece)
        a, b = piece[0].start, piece[-1].end
        if key in self.lex.places:
            return not cues.person(text, a, b, strict=True, imperative=False)
        if self.product(key) or self.given(key) == 2 or self.wordy(piece[0]):
            return False
        return not cues.person(text, a, b, strict=True, imperative=False)

    def _elsewhere(self, text: str, piece: list[Token], key: str) -> bool:
        """A name no lexicon holds as a place that a journey or a geographic word makes one (places.py); not a
        product, a common given name or a word, nor a person by a cue of its own."""
        a, b = piece[0].start, piece[-1].end
        if key in cues.CALENDAR or self.product(key) or self.wordy(piece[0]):
            return False
        if cues.person(text, a, b, strict=True, imperative=False):
            return False
        if places.lower_feature_after(text, b):
            return True
        if self._full_name(piece, key):
            return False  # `goes to Hamza Qureshi`: a given name on sight and a surname are someone's
        if key in self.lex.cities and not self.given(key) and not said.tech_after(text, b):
            # a large city by its own language's name (`Aarhus`, `Frankfurt`, `Göteborg`) where people are
            cued = cues.place_before(text, a) or places.people_in_before(text, a) or places.peoples_place_after(text, b)
            # `Kund: Maja Holmström, Göteborg`
            cued = cued or places.beside_name(text, a, b, self.given, self.lex.words)
            if cued and not deployments.deployment(text, a, b, self.lex.products):
                return True
            if places.peoples_place_after(text, b):
                return True  # `the machine in the Ghent shop`: a place people work at, whatever runs in it
        return places.journey_before(text, a)

    def _full_name(self, piece: list[Token], key: str) -> bool:
        """A given name on sight and a surname that is no English word, and no place's name together."""
        if len(piece) != 2 or self.given(piece[0].key) != 2 or piece[1].key not in self.lex.surnames:
            return False
        return piece[1].key not in self.lex.words and not self.lex.knows_place(key)

    def _place(self, text: str, piece: list[Token], key: str, a: int, b: int) -> list[Span]:
        lex = self.lex
        if places.state_after(text, b) or places.beside_name(text, a, b, self.given, self.lex.words):
            return [("LOCATION", a, b)]  # `Austin TX`, `Luca Frei (Basel)`
        product = said.product_next(text, a, b, lex.products) and not places.peoples_place_after(text, b)
        # a journey's end is a place whatever follows (`login from Gothenburg 4h ago`), but not a system's noun
        journey = places.journey_before(text, a) and not deployments.infra_after(text, b)
        if key in cues.CALENDAR or (said.tech_after(text, b) and not journey) or product:
            return []  # "in March", "the Frankfurt region", "EPYC Milan" (not `the Lyon hub`)
        if cues.field_before(text, a) or cues.title_before(text, a):
            return [("PERSON", a, b)]  # `last="Villanueva"`, `Dr. Pereira`: a name's field or a title says whose
        person = self.given(key) and cues.person(text, a, b, strict=True, imperative=False)
        if person and self.big_place(key) and cues.possessive(text, b):
            person = False  # `Madrid's heat`: what a large place has is said of it as of a person
        if person and self.given(key) < 2 and self.large_city(key):
            person = False  # `in Tbilisi wants`, `for Bergen is off`: a large place that few people are named
        if person and self.big_place(key) and cues.word_before(text, a) == "in":
            person = False  # `the sailing school in Valencia confirmed`: the verb is the school's, not the place's
        # not a sentence's first word that is a word too (`Most hostels now ask`)
        peoples = places.peoples_place_after(text, b) and not (piece[0].initial and self.wordy(piece[0]))
        if not person and (places.journey_before(text, a) or places.people_in_before(text, a) or peoples):
            return [("LOCATION", a, b)]  # `flew to Frankfurt`, `the Galway office`, `the Tel Aviv meetup`
        if deployments.deployment(text, a, b, self.lex.products, self.given):
            return []  # "us-east-2 (Ohio)", "fail over to Ohio", "the Ohio ring", "Thanos in Frankfurt"
        if self.big_place(key) or self.plainly_place(key):
            return [("PERSON" if person else "LOCATION", a, b)]
        if not person and places.aside_end(text, a, b) and self.given(key) < 2 and key not in lex.words:
            return [("LOCATION", a, b)]  # `(escola de circo, Coimbra)`: where the aside says it was
        if cues.place_before(text, a):
            return [("LOCATION", a, b)]
        if self.given(key) == 2 and key not in lex.products and (lex.wordiness(key) < 1 or not text[a:b].isascii()):
            # a small town's name that is a common given name: "Fatima", "Mariana", "Sebastián" (its accents a name's)
            return [("PERSON", a, b)]
        named = key in lex.given or key in lex.products or key in lex.surnames or lex.wordiness(key) >= 1
        return [("LOCATION", a, b)] if not named else [("PERSON", a, b)] if person else []
