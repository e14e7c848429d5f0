"""What makes a capitalised word a place people are in: a geographic word beside it, a journey, a place of work.

Used by guards/names.py. The lexicons know countries, states and cities;
most places in what people write about themselves are smaller or of another
kind (lakes, islands, valleys, trails, villages), and many small towns share
a name with a person or a word (`Finse`, `Bluff`, `Maui`). What says they are
places:

- a geographic word written with the name (`Lake Geneva`, `Victoria Island`,
  `the Waipoua Forest`, `Cape Reinga`, `Île de Ré`, `Camino de Santiago`), or a
  lower-case one after it (`the Hardangervidda plateau`, `the Danube delta`);
- a journey: a verb of travel before `from`, `to`, `into`, `across`, `along`
  (`skied from Finse to Haugastøl`, `flew to Frankfurt`), or `from A to B`
  and `between A and B` where one of the two is a known place (`from Galway
  to Dingle`, `between Split and Hvar`);
- a place where people work, live or meet after it (`the Galway office`,
  `the Cork team`, `the Porto flat`, `the Tel Aviv meetup`).

Such a place is a person's, not a system's: it stays a LOCATION in text about
systems (deployments.py takes the places named as where a system runs).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from .cues import TITLES
from .lexicons import fold
from .lexicons import words as _words

# capitalised, before or after the name: `Lake Geneva`, `Victoria Island`, `Sacred Valley`, `Israel National Trail`
FEATURES_BEFORE = _words(
    # and streets and quarters: `Rua Augusta`, `Vila Madalena`
    "lake mount mt cape isle ile camino kibbutz loch glen port fort lago monte rue calle avenida rua vila"
)
# other languages' reservoirs, lakes, rivers, mountains, islands, beaches: `Represa de Guarapiranga`, `Sungai
# Citarik`, `Danau Toba`, `Gunung Rinjani`, `Pulau Tioman`, `Lac Léman`, `Playa del Carmen`, `Cenote Dos Ojos` (not
# `Isla`, `Val`, `Serra`, `Sierra`, `Pico`, `Rio`: people's names, products' too); surnames follow several of them
# too (`Laguna Ortiz`, `Golfo Ricci`, Portugal's corporal `Cabo Silva`): placenames.py reads them only before a
# particle, a known place or a name no surname nor a common word
OTHER_FEATURES_BEFORE = _words(
    "represa embalse barragem lagoa laguna lac sungai danau gunung pulau bukit cenote jezioro jezero cerro playa "
    "praia bahía bahia golfo cabo"
)
FEATURES_AFTER = _words(
    "island islands river lake forest valley trail bay sea ocean coast peninsula desert canyon falls glacier beach "
    "mountains mountain hills range gorge fjord strait delta highlands plateau archipelago reef gulf lagoon park "
    "national town village heights springs creek harbour harbor cove marsh moor moors heath dunes atoll sound"
    # and Turkish's canyon, lake and mountain: `Köprülü Kanyon`, `Eğirdir Gölü`, `Erciyes Dağı` (folded)
    " kanyon kanyonu golu dagi"
)
TURKISH_AFTER = _words("golu dagi")  # read only where written with Turkish's letters (`Gölü`, `Dağı`)
# streets' words after a name: `Leith Walk`, `Picardy Place`; a street only where its other words are no common
# English word (not `Hard Drive`, `Select Row`, `Random Walk`, `Fast Lane`, `Safe Place`)
STREETS = _words(
    "street road avenue lane boulevard drive place square walk terrace crescent row grove parade close wharf quay "
    "embankment"
)
# streets' words no interface's or product's name ends in (not `Drive`, `Row`, `Lane`, `Walk`, `Place`), read after
# `on`, `along`, `off` whatever the words before the name are (`on Division Street`, `off Albert Road`), where a
# place's noun or a verb of living, parking or walking comes before that: `the car park on`, `the flats on`, `the
# shop is on`, `lives on` (not `working on Jane Street`, `comments on Kim Street's PR`, `rebase your branch on`)
_PLAIN_STREETS = _words("street road avenue boulevard")
_ON_STREET_NOUNS = _words(
    "office offices store stores shop shops flat flats apartment apartments house houses home homes school schools "
    "university clinic clinics studio studios bakery bakeries market markets lab farm dairy park parks cottage barn "
    "outlet mill loft pier hall halls rink building buildings church chapel mosque temple synagogue restaurant "
    "restaurants cafe café cafes pub pubs bar bars hotel hotels hostel inn garage gym salon surgery pharmacy bank "
    "station stop corner unit premises venue museum library theatre theater cinema hospital warehouse depot factory "
    "showroom bookshop bookstore workshop yard kiosk bistro lodge site sites plant nursery address addresses stops "
    "lunch dinner breakfast coffee accident"
)
_ON_STREET_VERBS = _words(
    "live lives lived living located based stay stays stayed staying park parked parking walk walked walking "
    "drive drove driving cycle cycled cycling meet meets met meeting open opens opened"
)
_ON_STREET_WORDS = _ON_STREET_NOUNS | _ON_STREET_VERBS
_ON_STREET_BEFORE = re.compile(
    r"(?<![\w\-])([^\W\d_]+)(?:[ \t]+(?:is|are|was|were|sits|stands))?[ \t]+(?:on|along|off)[ \t]+\Z", re.IGNORECASE
)
_OWNED = re.compile(r"['’]s\b")
# lower case, after the name: `the Hardangervidda plateau`, `the Danube delta` (not `path`: `the Python path`)
_FEATURES_LOWER = _words(
    "river lake valley plateau island islands coast peninsula desert canyon glacier fjord gorge delta estuary "
    "mountains hills highlands archipelago lagoon strait"
)
# sites people work at: `our Manisa cinema`, `the Napoli warehouse`, `the durban office`
SITES = _words(
    "office offices branch store clinic hospital campus cinema cinemas warehouse depot factory showroom pharmacy "
    "library theatre theater gym yard plant nursery hub terminal studio"
)
# places of business whose word, capitalised after a name, is the business's own name (`Casa Azul Hostel`)
_BUSINESSES = _words(
    "co-op coop salon salons hostel hostels bookshop bookstore showroom workshop "
    # where people eat, drink and stay the night: `the Bergen taproom` (`Fjord Taproom` is the business's name)
    "bar bars pub pubs taproom taprooms brewery breweries distillery inn inns guesthouse guesthouses motel motels "
    "lodge lodges chalet chalets cabin cabins treehouse treehouses houseboat houseboats bistro cafe café kiosk "
    "parlour parlor marina marinas lido lidos stables"
)
# where people work, live and meet: `the Galway office`, `the Cork team`, `the Porto flat`, `the Tel Aviv meetup`
_PEOPLES = (
    _words(
        "office offices team teams campus hq headquarters branch store shop flat apartment house home meetup meetups "
        "conference summit hackathon airport station hospital school university clinic studio bakery market lab labs "
        "customer customers client clients buyer buyers seller sellers family families resident residents "
        # events people go to: `the Glasgow concert`
        "gig gigs concert concerts festival wedding screening screenings premiere branches stores clinics depots "
        "site sites"
        # and where they farm, ski and stay: `the Whitstable farm`, `the Zermatt resort`
        " farm farms dairy ranch orchard vineyard resort resorts campsite"
        # and where they play, race and stay the night: `the Kinsale tournament`, `the Savannah softball league`
        " tournament tournaments league leagues regatta regattas marathon park parks cottage barn outlet outlets"
        # and where they make things and board boats: `the Galashiels mill`, `the Kadıköy ferry pier`
        " mill mills pier piers"
        # and where they live up a stair and walk by the sea: `the Ely loft`, `the Brighton seafront`
        " loft lofts seafront waterfront promenade"
    )
    | _BUSINESSES
    | SITES
)
# places where a lower-case word before says what is sold or done: `yarn shop`, `ski shop`, `tyre outlet`, `ferry
# café`
_SHOPS = _words("shop store studio outlet showroom workshop mill pier café cafe kiosk")
# words before `store`, `outlet`, `shop` that make a system's or a fitting's, not a place of business's
_NOT_SOLD = _words(
    "key test staging data object power dev prod production config state cache blob app web file image artifact "
    "artefact secret session token vector document event log metric feature wall plug usb electrical mobile online "
    "play app's kv value backing cookie"
)
_PEOPLES_OR_NOT_SOLD = _PEOPLES | _NOT_SOLD
# verbs of people travelling, with up to four words before `from`, `to`, ...: `paddled an outrigger canoe from`
_TRAVEL = re.compile(
    r"\b(?:walk|walked|walking|walks|drive|drove|driving|drives|fly|flew|flying|flies|sail|sailed|sailing|sails|ski|"
    r"skied|skiing|cycle|cycled|cycling|bike|biked|biking|hike|hiked|hiking|hikes|trek|trekked|trekking|paddle|"
    r"paddled|paddling|swim|swam|swimming|ride|rode|riding|travel|travelled|traveled|travelling|traveling|commute|"
    r"commuted|commuting|relocate|relocated|relocating|relocates|emigrated|immigrated|backpacking|journeyed|"
    r"roadtrip|road-tripped|rowed|rowing|kayaked|kayaking|canoed|ferried|grew\s+up|born|lives|lived|living|"
    r"studied|studying|settled|raised|retired|stayed|staying|holidayed|vacationed|land|lands|landed|landing|"
    r"arrive|arrives|arrived|arriving|touched\s+down|"
    r"(?:train|ferry|bus|flight|flights|boat|plane|coach|taxi|cab|drive|walk|hike|trip|journey|road|route|way))\b"
    r"(?:\s+[\w'’\-]+){0,4}?\s+(?:from|to|into|across|along|around|through|between|via|in|on)"
    r"\s+(?:the\s+)?(?:[A-Z][^\s,]*\s+(?:to|and|or|into)\s+(?:the\s+)?)?\Z"
    # a person signing in from somewhere: `logged in from Gothenburg`, `previous login from Accra` (not `login to`)
    r"|\b(?:(?:logged|logs|log|signed|signs|sign)[\s\-]?in|logins?|sign-?ins?)\s+from\s+(?:the\s+)?\Z"
    # a person moving, not a system moved: nothing but `back`, `over`, `out` between the verb and `to`
    r"|\b(?:moved|moving|move|went|came|returned|headed|heading|flown)(?:\s+(?:back|over|out|away|home))?"
    r"\s+(?:from|to|into)\s+(?:[A-Z][^\s,]*\s+(?:to|and|or|into)\s+)?\Z"
    # a person leaving one place for another: `left Cork for Boston`, `left Saint-Louis for Marseille`
    r"|\b(?:left|leaving|leaves|leave)\s+(?:[A-Z][^\s,]*\s+){0,3}for\s+\Z"
)
_FROM = re.compile(r"\b(?:from|between)\s+(?:the\s+)?\Z", re.IGNORECASE)
_ROUTE_GAP = re.compile(r"\s+(?:to|into|and)\s+(?:the\s+)?", re.IGNORECASE)
_NEXT = re.compile(r"[ \t]+([\w\-]+)")


# the US states' codes (and the District of Columbia's)
STATES = (
    r"(?:AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|"
    r"NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC)"
)
# a US state's code after a city: `Austin TX`, `Portland, OR`, a CSV's `Raleigh,NC` (not in brackets: `Dallas (CT)`
# is a time zone's, `Aurora (GA)` a release's)
_STATE_AFTER = re.compile(rf"(?:,?[ \t]+(?P<code>{STATES})\b(?![\-_.]\w)|,(?P<cell>{STATES})(?=[,`\"'\s]|\Z))")
# Canada's provinces, Australia's states and Brazil's, after a comma only (`Moncton, NB`, `Ballarat, VIC`,
# `Recife, PE`); not those that are words or a line's abbreviations too (`ON`, `SA`, `TO`, `GO`, `AM`, `AC`,
# `ACT`, `SE`, `ES`), nor US states' codes (read above)
_PROVINCE_AFTER = re.compile(
    r",[ \t]+(?P<code>AB|BC|MB|NB|NL|NS|NT|NU|PE|QC|SK|YT|NSW|VIC|QLD|TAS|"
    r"SP|RJ|MG|RS|PR|BA|CE|PB|RN|PI|DF|RO|RR|AP)\b(?![\-_.]\w)"
)
# a US state's or a Canadian province's code in an HTML row's next cell, in a row with a North American phone or an
# SSN (not a STATUS_CODES one: `<td>Berlin</td><td>IN</td>`)
_TD_STATE_AFTER = re.compile(
    rf"</td>[ \t]*<td(?:\s[^<>]*)?>[ \t]*(?P<code>{STATES}|AB|BC|MB|NB|NL|NS|NT|NU|PE|QC|SK|YT)[ \t]*</td>"
)
STATUS_CODES = frozenset(["OK", "IN", "OR", "ME", "HI", "OH", "PA", "DE", "WA", "ON"])
"""States' and provinces' codes that are words or statuses too (`DRIVER_STATE: IN`, `<td>ON</td>`): read where
only a code could stand, not where a status or a word could."""
_STATE_CELL_AFTER = re.compile(
    rf"(?P<q>[\"'])[ \t]*,[ \t]*(?P=q)(?P<code>{STATES})(?P=q)"
    # (or a psql table's or a tab-separated row's next cell: `| Bisbee    | AZ`)
    rf"|[ \t]*(?P<d>[|\t])[ \t]*(?P<cell>{STATES})[ \t]*(?:(?P=d)|$)",
    re.M,
)
# a name, then the place in brackets: `Luca Frei (Basel)`, `the customer Peter Müller (Graz)`
_NAME_OPEN = re.compile(r"\b[A-Z][a-zà-ÿ][\w'’\-]*[ \t]+\(\Z")  # not `TODO(Fatima)`
# a name of two or three words, its first at a line's or a field's start, and a comma: `Client: Eluned Pryce, `
_NAME_COMMA = re.compile(
    r"(?:^|[:(—–\-][ \t]*)(?-i:(?P<first>[A-ZÀ-Þ][a-zà-ÿ]+)(?:[ \t]+[A-ZÀ-ÞĀ-Ž][a-zà-ÿā-ž'’\-]+){1,2}),[ \t]+\Z", re.M
)
_NAME_COMMA_ANY = re.compile(
    r"(?<![\w\-'’])(?-i:(?P<first>[A-ZÀ-Þ][a-zà-ÿ]+)"
    r"(?:[ \t]+[A-ZÀ-ÞĀ-Ž][a-zà-ÿā-ž'’]+(?:-[A-ZÀ-Þ]?[a-zà-ÿ'’]+)?){1,2}),[ \t]+\Z"
)
# a title and a surname, then a comma: `pour Mme Claes, `, `Attn: Mr Okafor, ` (the title's word is checked)
_TITLED_COMMA = re.compile(
    r"(?<![\w\-'’])(?P<title>[A-Z][a-zà-ÿ]{1,8})\.?[ \t]+[A-ZÀ-Þ][a-zà-ÿ'’]+(?:-[A-ZÀ-Þ][a-zà-ÿ'’]+)?,[ \t]+\Z"
)
# (and a letter's signature's end: `Ivana Babić, Split.“`; a ticket's title's colon: `Ana Kovačević, Split: povrat`)
# `Inès Benali, Lyon – tél.`, `Ana Belén Ruiz, Sevilla. Teléfono ...` (a contact's field next, not a sentence that
# may name the person: `To: Tom Hardy, Austin. Austin, please confirm`)
_AFTER_NAME = re.compile(
    r"[ \t]*(?:$|\)|,|\*/|-->|:[ \t]|[ \t][–—·|-][ \t]|\.[»“”\"']?[ \t]*$"
    r"|\.[ \t]+(?=(?:Tel|Tél|Phone|Telefon|Teléfono|Telefono|Telefone|Mobile|Móvil|Mobil|Handy|Cell|Fon|E-?mail|"
    r"Correo|IBAN|DNI|NIF|PLZ|CP|Kontakt|Contact|Contacto|Contatto)\b))",
    re.M,
)


def state_after(text: str, b: int) -> bool:
    """A US state's code right after the city at text[:b]: `Austin TX`, `Portland, OR`, or in the next quoted
    cell (`("Marcus Webb", "588-37-9066", "Savannah", "GA")`) or table cell (`| Bisbee | AZ`) of a person's row."""
    if _STATE_AFTER.match(text, b) is not None:
        return True
    m = _STATE_CELL_AFTER.match(text, b)
    if m is None or not _personal(text, b):
        return False  # not `("Normal", "OK")`
    # a table's cell is the town's alone: not `| Cortez, Ramona | AZ`, a person's surname and given name
    return bool(m.group("code")) or "," not in text[max(text.rfind(c, 0, b) for c in "|\t\n") + 1 : b]


def _personal(text: str, at: int) -> bool:
    """The line at text[at] holds an SSN or a phone number: a person's row."""
    start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
    return _PERSONAL_CELL.search(text, start, end if end >= 0 else len(text)) is not None


# a person's row has an SSN or a phone number in it: `("Marcus Webb", "588-37-9066", "Savannah", "GA")`
_PERSONAL_CELL = re.compile(r"(?<!\d)\d{3}[- ]?\d{2}[- ]?\d{4}(?!\d)|\+?\(?\d{3}\)?[ .\-]?\d{3}[ .\-]?\d{4}(?!\d)")


def state_codes(text: str, spans: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The US states' codes written after the towns in `spans` (`Tulsa, OK`, `Boston, MA`): places of their own.
    Not after a whole address, whose span holds its state already."""
    out = []
    for kind, a, b in spans:
        if kind == "LOCATION" and not any(c.isdigit() for c in text[a:b]) and (m := _STATE_AFTER.match(text, b)):
            code = "code" if m.group("code") else "cell"
            comma = m.group().startswith(",")
            wordy = m.group(code) in _WORDY_STATES
            ends = bool((_STATE_ENDS if comma else _STATE_ENDS_BARE).match(text, m.end()))
            plain = _STATE_ENDS_PLAIN.match(text, m.end()) is not None or _lower_accented(text, m.end())
            ends = ends or (comma and not wordy and plain)
            dashed = comma and not wordy and _DASH_END.match(text, m.end())
            if ends or dashed:
                out.append(("LOCATION", *m.span(code)))
        elif kind == "LOCATION" and (m := _PROVINCE_AFTER.match(text, b)) and _STATE_ENDS.match(text, m.end()):
            out.append(("LOCATION", *m.span("code")))
        elif kind == "LOCATION" and (m := _STATE_CELL_AFTER.match(text, b)) and (m.group("code") or _personal(text, b)):
            # a row's next cell: `('Omaha', 'NE', ...)`, a person's row's `| Bisbee | AZ`
            out.append(("LOCATION", *m.span("code" if m.group("code") else "cell")))
        elif (
            kind == "LOCATION"
            and (m := _TD_STATE_AFTER.match(text, b))
            and m.group("code") not in STATUS_CODES
            and _personal(text, b)
        ):
            # an HTML row's next cell, in a person's row: `<td>Moncton</td><td>NB</td>`
            out.append(("LOCATION", *m.span("code")))
    return out


# what follows a state's code: the text's, a line's or a sentence's end, a number (a ZIP code), a word in lower case
# after a comma (`Tulsa, OK warehouse`); not `Tokyo, OK?`, `Berlin, ME TOO`, `Lisbon IN the morning`
# (and an HTML tag's or a Markdown code's end: `Flagstaff, AZ</td>`, `Lancaster,PA``)
_STATE_ENDS = re.compile(r"\Z|[ \t]*(?:[\n.;,)\"'\]<`]|[ \t]+(?:\d|[a-z]))")
# after a code that is no English word, a question's mark or a colon too: `move to Sparks, NV?`, `Tempe, AZ: new
# address`; or a lower-case word that begins with a letter of another Latin alphabet (Vietnamese's `ở San Jose, CA
# để xác nhận`; not `Berlin, IN überprüft`, `Paris, OR étant`, whose codes are words), see _lower_accented
_STATE_ENDS_PLAIN = re.compile(r"[?!:]")
_NEXT_LETTER = re.compile(r"[ \t]+([^\W\d_])")


def _lower_accented(text: str, at: int) -> bool:
    """A word at text[at:] (after blanks) begins with a lower-case letter that is no ASCII letter: `để`, `ở`."""
    m = _NEXT_LETTER.match(text, at)
    return m is not None and m.group(1).islower() and not m.group(1).isascii()


# a dash after a code that is no English word: `Flagstaff, AZ — SSN`; not `Tokyo, OK - fine`
_DASH_END = re.compile(r"[ \t]+[—–\-](?:[ \t]|\Z)")
_WORDY_STATES = WORDY_STATES = frozenset(
    ["OK", "ME", "IN", "OR", "HI", "OH", "AL", "LA", "PA", "MA", "CO", "ID", "MS", "DE", "MI", "MO"]
)
_STATE_ENDS_BARE = re.compile(r"\Z|[ \t]*(?:[\n.;,)\"'\]]|[ \t]+\d)")


def beside_name(
    text: str, a: int, b: int, given: Callable[[str], int] | None = None, words: Collection[str] = ()
) -> bool:
    """The place at text[a:b] alone in brackets right after a name (`Luca Frei (Basel)`), or, where `given` says
    the name's first word is a given name, after a name and a comma at a line's or a bracket's end (`Client:
    Eluned Pryce, Llandeilo`, `— Ciarán Walsh, Limerick`; not `Error: Connection Refused, Ashburn`), or after a
    title, a surname and a comma (`pour Mme Claes, Gand`); where that person is. `words`: the English words, which
    a colon after may make a field's label (`Reading:`)."""
    if text[b : b + 1] == ")" and _NAME_OPEN.search(text, max(0, a - 40), a) is not None:
        return True
    after = _AFTER_NAME.match(text, b)
    if given is None or after is None or (after.group().lstrip().startswith(":") and fold(text[a:b]) in words):
        return False  # (before a colon, no English word: not `Kim Novak, Reading: chapter 3 notes`)
    name = _NAME_COMMA.search(text, max(0, a - 60), a)
    if name is not None and given(fold(name.group("first"))):
        return True
    # mid-line, a name whose first word is a given name on sight: `nouvelle inscription Léa Moreau-Garnier, Marseille,`
    name = _NAME_COMMA_ANY.search(text, max(0, a - 60), a)
    if name is not None and given(fold(name.group("first"))) == 2:
        return True
    # a title and a surname: `Remboursement pour Mme Claes, Gand`
    titled = _TITLED_COMMA.search(text, max(0, a - 40), a)
    return titled is not None and fold(titled.group("title")) in TITLES


_ASIDE_OPEN = re.compile(r"\([^()\n]{2,60},[ \t]+\Z")


def aside_end(text: str, a: int, b: int) -> bool:
    """text[a:b] ends a bracketed aside after a comma: `(escola de circo, Coimbra)`, `(tower bell test,
    Whitechapel)`."""
    return text[b : b + 1] == ")" and _ASIDE_OPEN.search(text, max(0, a - 64), a) is not None


def feature_before(key: str) -> bool:
    return key in FEATURES_BEFORE or key in OTHER_FEATURES_BEFORE


def feature_after(key: str) -> bool:
    return key in FEATURES_AFTER or key in STREETS


def on_street(text: str, a: int, b: int, last: str) -> bool:
    """A street's plain word (`last`) ends the name at text[a:b], a place's noun or a verb of living before `on`,
    `along` or `off` right before it, and no possessive after it (`Sarah Street's PR`)."""
    if last not in _PLAIN_STREETS or _OWNED.match(text, b):
        return False
    before = _ON_STREET_BEFORE.search(text, max(0, a - 40), a)
    return before is not None and before.group(1).lower() in _ON_STREET_WORDS


def lower_feature_after(text: str, b: int) -> bool:
    """A lower-case geographic word right after text[:b]: `Hardangervidda plateau`, `Danube delta`."""
    match = _NEXT.match(text, b)
    return match is not None and match.group(1) in _FEATURES_LOWER


def peoples_place_after(text: str, b: int) -> bool:
    """A place where people work, live or meet right after text[:b]: `Galway office`, `the Cork Office`; not a
    business's own name (`Casa Azul Hostel`)."""
    match = _NEXT.match(text, b)
    if match is not None and match.group(1).islower() and match.group(1) not in _PEOPLES_OR_NOT_SOLD:
        # one lower-case word of what is sold or done there between: `the Kilkenny yarn shop`, `the Verbier ski shop`
        after = _NEXT.match(text, match.end())
        match = after if after is not None and after.group(1).lower() in _SHOPS else match
    if match is None or match.group(1).lower() not in _PEOPLES:
        return False
    word = match.group(1)
    return not (word[:1].isupper() and not word.isupper() and word.lower() in _BUSINESSES)


def site_after(text: str, b: int) -> bool:
    """A site people work at right after text[:b]: `Napoli warehouse`, `Lisboa office`."""
    match = _NEXT.match(text, b)
    return match is not None and match.group(1).lower() in SITES


def journey_before(text: str, a: int) -> bool:
    """A verb of travel before text[a:], then `from`, `to`, `into`, ...: `skied from Finse`, `flew to Frankfurt`,
    `drove from Galway to Dingle`."""
    return _TRAVEL.search(text, max(0, a - 120), a) is not None


# people, then where they are: `riders from Nairobi`, `the user is on the iOS app in Seoul`, `logged in from Lyon`
_PEOPLE_IN = re.compile(
    r"(?:\b(?:users?|customers?|riders?|drivers?|passengers?|patients?|guests?|callers?|subscribers?|residents?|"
    r"travell?ers?|members?|students?|applicants?|visitors?|buyers?|sellers?|shoppers?|clients?|employees?|"
    r"people|someone|anyone|everyone|folks|famil(?:y|ies)|tourists?|pilots?|crews?|fans?|listeners?|players?|"
    r"participants?|attendees?|tenants?|owners?|hosts?|volunteers?|farmers?|parents?|kids|children)\b"
    r"(?:[ \t]+[\w'’\-]+){0,7}?[ \t]+(?:in|from|at|near|around|across|outside)"
    r"|\b(?:logged|signed)[ \t]+(?:in|on)[ \t]+from|\b(?:login|sign-?in|call(?:ing)?|calls)[ \t]+from"
    r"|\b(?:based|located|lives|living|live|born|stuck|stranded|stationed|resident)[ \t]+(?:in|at|near)"
    r"|\b(?:on|off)[ \t\-]?site[ \t]+(?:in|at)|\bonsite[ \t]+(?:in|at)"
    # a place of business people go to: `the salon in Leith`, `our bakery near Ghent` (not a farm: `the GPU farm
    # near Austin` is servers')
    r"|\b(?:salon|shop|office|clinic|studio|school|hotel|restaurant|caf[eé]|bakery|gym|depot|"
    r"warehouse|workshop|dairy|winery|campsite|hostel|pharmacy|museum|church|venue|rink|garage|boutique|"
    r"showroom|surgery|academy|league|bar|pub|taproom|brewery|distillery|inn|guesthouse|b&b|motel|lodge|chalet|"
    r"cabin|treehouse|houseboat|bistro|parlou?r|kiosk|marina|lido|stables|society|club|gallery)s?"
    r"[ \t]+(?:in|at|near|outside))"
    r"[ \t]+(?:the[ \t]+)?\Z",
    re.IGNORECASE,
)
_BROADER_AFTER = re.compile(r",[ \t]*([A-Z][\w\-]*(?:[ \t][A-Z][\w\-]*)?)")


def people_in_before(text: str, a: int) -> bool:
    """People before `in`, `from`, `at` before text[a:]: `riders from Nairobi`, `the user is on the app in Seoul`;
    a place where people are, whatever systems the text is about."""
    return _PEOPLE_IN.search(text, max(0, a - 80), a) is not None


def broader_after(text: str, b: int) -> str | None:
    """The capitalised words after a comma right after text[:b] (`Sydney, Australia`): what may be the country
    or state the place is in."""
    match = _BROADER_AFTER.match(text, b)
    return match.group(1) if match is not None else None


def route(text: str, a: int, b: int, c: int, d: int) -> bool:
    """Whether text[a:b] and text[c:d] are the ends of `from A to B` or `between A and B`."""
    return _FROM.search(text, max(0, a - 14), a) is not None and _ROUTE_GAP.fullmatch(text, b, c) is not None
