"""Names of people and places in technical text: capitalised words, decided by lexicons and their neighbours.

NER alone takes product names for people ("Grafana", "Kafka") and misses
names it has not seen in that position ("Jake and Emily are backpacking").
Here each run of capitalised words outside code (not glued to `_`, `.`, `(`,
digits; not in backticks; not ALL CAPS) is looked up: a given name, a
surname, a place, a word of a product's name, an ordinary English word
(guards/lexicons.py). Most runs are decided by that alone: `Priya`,
`Bjørn Håland` and `Ho Chi Minh City` are what they look like; `Grafana` and
`Convert` are not names. The words around a run decide the rest (cues.py): a
name that is also a product or an ordinary word (`Cassandra`, `Chase`,
`June`) is a person only next to a person's cue (`said`, `Thanks`, `her
brother`, `name=`) and never next to a system's (`cluster`, `upgrade`, a
version number); a place that is also a name is a place after `in`, `from`,
`to`. A word no lexicon knows, or a rare given name, is read by the NER model,
and only then: that is the only NER call, and a cue must agree with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from . import cues, deployments, places
from .cues import Token
from .lexicons import Lexicons, fold

Label = tuple[int, int, str]  # (start, end, label) of one of the NER model's entities
Ner = Callable[[str, Sequence[tuple[int, int]]], list[Label]]  # the entities around the spans asked about
Span = tuple[str, int, int]  # entity type, start, end
STRONG_PEOPLE = 1000  # a given name this many people carry (in 8 or more sources) is taken as one on sight
STRONG_SOURCES = 8
STRONG_RANK = 1000  # or a given name among one country's first this many (names-dataset: `Olumide`, `Nokuthula`)
PLAIN_PLACE = 250_000  # or this large, and no given name, product, word or common surname (`Naples`)
BIG_PLACE = 1_000_000  # a city this large (or a country, state, continent) is a place unless a cue says otherwise
COMMON_SURNAME = 5000  # a surname this common goes on a given name even when it is a large place's name too
WORDY = 3.0  # Lexicons.wordiness from which a name is an ordinary word first ("chase", "grace", "will")
INITIAL_WORD = 1000  # a word this frequent, more a word than a name, starting a sentence: "Jack up", "Patience,"


class Names:
    """PERSON and LOCATION spans in a text, decided by the lexicons, the words around, and NER for the rest."""

    def __init__(self, lexicons: Lexicons):
        self.lex = lexicons

    def find(self, text: str, ner: Ner | None = None) -> list[Span]:
        """The names in `text`; `ner` is asked about the runs the lexicons and cues cannot decide."""
        out: list[Span] = []
        named = cues.families(text)
        runs = [run for run in cues.runs(text) if not cues.quoted_thing(text, run[0].start, run[-1].end)]
        runs = [part for run in runs for part in self._geographic(text, run, out)]
        runs = [part for run in runs for part in self._unnamed(run, named)]
        runs = [run for run in runs if not self._versioned(text, run)]
        pieces = [piece for run in runs for piece in self._pieces(run)]
        # one sense per text: a word named as a system anywhere in it ("Alma 9") is not a person elsewhere
        systems = {p[0].key for p in pieces if len(p) == 1 and self._tech_after(text, p[0].end)}
        kept = self._systems_listed(text, pieces, systems)
        # a place named as a system (`the Genoa nodes`) makes places with no place's cue systems too (`the Milan ones`)
        hosts = any(key in self.lex.places for key in systems)
        decided: list[tuple[list[Token], list[Span] | None]] = []
        for piece in kept:
            if len(piece) == 1 and piece[0].key in systems and not self._travelled(text, piece):
                continue
            decided.append((piece, self._decide(text, piece, hosts)))
        decided = self._routes(text, decided)
        unsure = [piece for piece, spans in decided if spans is None]
        out.extend(span for _, spans in decided for span in spans or ())
        if unsure and ner is not None:
            labels = ner(text, [(p[0].start, p[-1].end) for p in unsure])
            for piece in unsure:
                a, b = piece[0].start, piece[-1].end
                label = next((lab for s, e, lab in labels if s < b and a < e), None)
                out.extend(self._by_ner(text, piece, label))
        if any(e == "LOCATION" for e, _, _ in out) and self._no_one_there(text, out):
            # a place people are in (a journey, an office, a lake) is not where a system runs
            out = [span for span in out if span[0] != "LOCATION" or self._peoples(text, span[1], span[2])]
        return sorted(out, key=lambda s: s[1])

    def _geographic(self, text: str, run: list[Token], out: list[Span]) -> list[list[Token]]:
        """The run less the places a geographic word names (`Lake Geneva`, `Victoria Island`, `Cape Reinga`),
        which go to `out`; not next to a product's name (`AWS Lake Formation`, `Delta Lake`)."""
        keys = [t.key for t in run]
        named = [k for k in keys if not places.feature_before(k) and not places.feature_after(k)]
        if len(run) < 2 or any(k in self.lex.products and k not in self.lex.places for k in named):
            return [run]
        a, b = run[0].start, run[-1].end
        field = cues.word_before(text, a).split("_")[-1]  # `cpu_family: "Cascade Lake"`: a system's value
        if cues.product_next(text, a, b, self.lex.products) or cues.tech_after(text, b) or field in cues.TECH_WORDS:
            return [run]
        # a common surname after a given name is a person's (`Seo-yeon Park`, `Kevin Marsh`; not `Victoria Island`)
        surname = self.given(keys[0]) and 0 < self.lex.surnames.get(keys[1], 0) <= COMMON_SURNAME
        last = max((i for i, k in enumerate(keys) if i > 0 and places.feature_after(k) and not surname), default=-1)
        if places.feature_before(keys[0]) or last > 0:
            end = len(run) if places.feature_before(keys[0]) else last + 1
            out.append(("LOCATION", run[0].start, run[end - 1].end))
            return [run[end:]] if end < len(run) else []
        return [run]

    def _versioned(self, text: str, run: list[Token]) -> bool:
        """A run of words ending in a word that is no name, before a version (`Jasper Reports 6.21`): a product."""
        last = run[-1]
        return len(run) > 1 and self.wordy(last) and not self.given(last.key) and cues.tech_after(text, last.end)

    def _tech_after(self, text: str, b: int) -> bool:
        """A system's cue after text[:b], also past a product's name: `"Marvin" Slack bot`, `Hermes Helm chart`."""
        if cues.tech_after(text, b) or cues.described_as_system(text, b):
            return True
        after = cues.next_name(text, b)
        return (
            after is not None
            and fold(text[after[0] : after[1]]) in self.lex.systems
            and cues.tech_after(text, after[1])
        )

    def _travelled(self, text: str, piece: list[Token]) -> bool:
        """A place named as a system elsewhere in the text that a person travels to here (`flew to Frankfurt`)."""
        return piece[0].key in self.lex.places and places.journey_before(text, piece[0].start)

    def _peoples(self, text: str, a: int, b: int) -> bool:
        """A place people are in: on a journey, where they work or meet, or a geographic one (places.py)."""
        return (
            places.journey_before(text, a)
            or places.peoples_place_after(text, b)
            or places.lower_feature_after(text, b)
            or bool(
                re.search(r"\s", text[a:b])
                and any(places.feature_before(w) or places.feature_after(w) for w in fold(text[a:b]).split())
            )
        )

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

    def _no_one_there(self, text: str, spans: list[Span]) -> bool:
        """Text about systems that names no person: its places are where systems run (deployments.py)."""
        if any(e == "PERSON" for e, _, _ in spans) or deployments.personal(text):
            return False
        return deployments.technical(text, self.lex.systems, cues.TECH_WORDS)

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
            if not skip and i > 0 and self._maker(run[i - 1].key):
                skip = 1
            if skip:
                parts.append([])
                i += skip
            else:
                parts[-1].append(run[i])
                i += 1
        return [p for p in parts if p]

    def _maker(self, key: str) -> bool:
        """A product's name that is no one's name nor a common word, so the word after it is its product's."""
        lex = self.lex
        return key in lex.products and not self.given(key) and lex.words.get(key, 0) < INITIAL_WORD

    def _systems_listed(self, text: str, pieces: list[list[Token]], systems: set[str]) -> list[list[Token]]:
        """The pieces less those listed with a system and no person's cue of their own: `Jenkins, Hudson, Travis,
        Drone`, `Grafana and Loki`, `Victoria, Wallaby and Xena clouds`, `from Luigi to Airflow`."""
        groups: list[list[list[Token]]] = []
        for piece in pieces:
            last = groups[-1][-1] if groups else None
            joined = last is not None and (
                cues.listed(text, last[-1].end, piece[0].start)
                or cues.moved(text, last[0].start, last[-1].end, piece[0].start)
            )
            if joined:
                groups[-1].append(piece)
            else:
                groups.append([piece])
        out: list[list[Token]] = []
        for group in groups:
            # a system's noun after the last one is every one's (`Victoria, Wallaby and Xena clouds`)
            end = group[-1][-1].end
            shared = len(group) > 1 and (cues.tech_after(text, end) or deployments.infra_after(text, end))
            system = len(group) > 1 and any(self._system(text, p, systems) for p in group)
            for piece in group:
                a, b = piece[0].start, piece[-1].end
                listed = shared or (system and not self._system(text, piece, systems) and not self._placed(piece))
                if not listed or cues.person(text, a, b, strict=True):
                    out.append(piece)
        return out

    def _system(self, text: str, piece: list[Token], systems: set[str]) -> bool:
        """A product that is not also a common name (`Grafana`, `Drone`), or a word named as a system here."""
        if len(piece) != 1:
            return False
        key = piece[0].key
        if self._placed(piece):  # `Madrid`, `Canada`: a place first, whatever brand carries the name
            return False
        return key in systems or (self.product(key) and self.given(key) < 2) or cues.tech_after(text, piece[0].end)

    def unknown(self, key: str) -> bool:
        """A word no lexicon knows: no given name, product, place, English word or codename."""
        lex = self.lex
        return not (
            key in lex.given or self.product(key) or key in lex.places or key in lex.words or key in lex.codenames
        )

    def _placed(self, piece: list[Token]) -> bool:
        return self.big_place(" ".join(t.key for t in piece))

    def product(self, key: str) -> bool:
        """A product's, a language's or a package's name (`Grafana`, `Ruby`, `Patroni`), or a release codename."""
        lex = self.lex
        return key in lex.products or key in lex.packages or (key in lex.codenames and self.given(key) < 2)

    # what a word is
    def given(self, key: str) -> int:
        """2: a given name on sight; 1: a rarer one, or one of the lexicon's stray entries; 0: none."""
        people = self.lex.given.get(key)
        if people is None:
            parts = key.split("-")  # `Hyun-woo`, `Seo-yeon`, `Jean-Luc`: a given name of given names
            levels = [self.given(p) for p in parts] if len(parts) == 2 and all(parts) else [0]
            return max(levels) if min(levels) else 0
        if people >= STRONG_PEOPLE and self._sources_ok(key):
            return 2
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

    # a run cut into names and places
    def _pieces(self, run: list[Token]) -> list[list[Token]]:
        """Places by the longest match; a given name and the surnames after it as one piece; other words alone."""
        pieces: list[list[Token]] = []
        i = 0
        while i < len(run):
            size = self._place_at(run, i)
            if size > 1:
                pieces.append(run[i : i + size])
                i += size
            elif pieces and self._continues(pieces[-1], run[i]):
                pieces[-1].append(run[i])
                i += 1
            else:
                pieces.append([run[i]])
                i += 1
        return pieces

    def _place_at(self, run: list[Token], i: int) -> int:
        for size in range(min(self.lex.place_words, len(run) - i), 0, -1):
            if " ".join(t.key for t in run[i : i + size]) in self.lex.places:
                return size
        return 0

    def _continues(self, piece: list[Token], token: Token) -> bool:
        """Whether `token` goes on the name `piece` began ("Thandiwe Moyo", "Sarah Jenkins")."""
        lex = self.lex
        head = piece[0]
        key = token.key
        if self.unknown(head.key):  # `name: "Ngaio Parata"`: two words no lexicon knows
            return self.unknown(key) or (key in lex.surnames and not self.product(key) and not self.big_place(key))
        if head.key in cues.TITLES or not self.given(head.key) or head.key in cues.CALENDAR or cues.greeting(head.key):
            return False
        surname = key in lex.surnames and key not in lex.products and lex.wordiness(key) < 1
        if len(piece) == 1 and (self.wordy(head) or head.key in lex.products) and not surname:
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
        if piece[0].key in cues.TITLES:  # "Dr. Okafor": the title is the cue, and not part of the name
            return [("PERSON", piece[1].start, b)] if len(piece) > 1 else []
        key = " ".join(t.key for t in piece)
        if key in cues.WEEKDAYS or key in cues.HOLIDAYS:
            return []
        if key in lex.places:
            if hosts and not cues.place_before(text, a) and not self.given(key) and not self._peoples(text, a, b):
                return []
            return self._place(text, piece, key, a, b)
        tech = self._tech_after(text, b) or cues.tech_before(text, a)
        if self._elsewhere(text, piece, key):
            return [("LOCATION", a, b)]  # `skied from Finse`, `the Hardangervidda plateau`
        if len(piece) > 1 and self.unknown(piece[0].key):  # words no lexicon knows: a cue says, or the NER model
            return [("PERSON", a, b)] if not tech and cues.person(text, a, b, strict=True) else None
        if len(piece) > 1:
            return [] if tech and not cues.person(text, a, b, strict=True) else [("PERSON", a, b)]
        token = piece[0]
        given = self.given(key)
        # a name written with its accents is a person's (`Lucía`, `Zoë`): products are spelled in ASCII
        product = self.product(key) and (not given or text[a:b].isascii())
        if cues.title_before(text, a) and not product and not tech:
            return [("PERSON", a, b)]  # `Auntie Comfort`, `Mr. Oyelowo`: a title makes a person of any word
        if given and cues.social_before(text, a):
            return [("PERSON", a, b)]  # `her brother Julien builds violins`, `a man called Milan`
        if key in cues.CALENDAR or product or self.wordy(token):  # "June", "Cassandra", "Chase"
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
        if given and not tech and (cues.person(text, a, b, strict=True, pronoun=True) or self._pair(text, token)):
            return [("PERSON", a, b)]  # a rarer given name next to a cue: "Thandiwe suggested"
        return None  # a rare given name, a surname alone, a word no lexicon knows: the NER model reads it

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
        return places.journey_before(text, a)

    def _place(self, text: str, piece: list[Token], key: str, a: int, b: int) -> list[Span]:
        lex = self.lex
        if key in cues.CALENDAR or cues.tech_after(text, b) or cues.product_next(text, a, b, lex.products):
            return []  # "in March", "the Frankfurt region", "EPYC Milan"
        if cues.field_before(text, a):
            return [("PERSON", a, b)]  # `last="Villanueva"`: a field for a name says whose
        person = self.given(key) and cues.person(text, a, b, strict=True, imperative=False)
        if not person and (places.journey_before(text, a) or places.peoples_place_after(text, b)):
            return [("LOCATION", a, b)]  # `flew to Frankfurt`, `the Galway office`, `the Tel Aviv meetup`
        if deployments.deployment(text, a, b, self.lex.products):
            return []  # "us-east-2 (Ohio)", "fail over to Ohio", "the Ohio ring", "Thanos in Frankfurt"
        if self.big_place(key) or self._plainly_place(key):
            return [("PERSON" if person else "LOCATION", a, b)]
        if cues.place_before(text, a):
            return [("LOCATION", a, b)]
        if self.given(key) == 2 and key not in lex.products and lex.wordiness(key) < 1:
            return [("PERSON", a, b)]  # a small town's name that is a common given name: "Fatima", "Mariana"
        named = key in lex.given or key in lex.products or key in lex.surnames or lex.wordiness(key) >= 1
        return [("LOCATION", a, b)] if not named else [("PERSON", a, b)] if person else []

    def _plainly_place(self, key: str) -> bool:
        """A large city that is no given name, product or word, and no common surname: `Naples`, `Bordeaux`."""
        lex = self.lex
        place = lex.places[key]
        if place.population < PLAIN_PLACE or self.given(key) or self.product(key) or key in lex.words:
            return False
        return lex.surnames.get(key, COMMON_SURNAME + 1) > COMMON_SURNAME

    def _by_ner(self, text: str, piece: list[Token], label: str | None) -> list[Span]:
        """A piece the lexicons could not decide: a person or a place if the NER model says so and a cue agrees."""
        a, b = piece[0].start, piece[-1].end
        if label is None or self._tech_after(text, b) or cues.tech_before(text, a):
            return []
        # `Yevgenia's notebook`: what is said of people alone, before any reading as a place
        if label in ("PERSON", "GPE") and cues.person(text, a, b, strict=True, social=True):
            return [("PERSON", a, b)]
        place = label in ("GPE", "LOC", "FAC") or (label == "PERSON" and not self.given(piece[0].key))
        # `on` before a word no lexicon knows is as often a system's (`the cluster is on Karpenter`)
        on = cues.word_before(text, a) == "on"
        if (
            place
            and not on
            and cues.place_before(text, a)
            and not deployments.deployment(text, a, b, self.lex.products)
        ):
            return [("LOCATION", a, b)]
        if label in ("PERSON", "ORG", "GPE") and cues.person(text, a, b, strict=True, pronoun=True):
            return [("PERSON", a, b)]
        if label == "PERSON" and len(piece) > 1 and not self.product(piece[-1].key):
            return [("PERSON", a, b)]  # `Olamide Fashola`, `Hyun-woo Choi`: a full name the model knows
        return []

    def _pair(self, text: str, token: Token) -> bool:
        """`Grace and Will`: two given names joined by `and` or `&`, each other's cue."""
        other = cues.pair(text, token.start, token.end)
        return other is not None and bool(self.given(other))
