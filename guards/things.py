"""Names that name things, whatever the rules read in them: a storm, a font, an organisation, an animal.

Used by guards/names.py after every reader, on PERSON and LOCATION spans:

- a storm's name: after `storm`, `hurricane`, `typhoon`, `cyclone` (`Storm
  Henk`, `storm Ciarán`, `Hurricane Florence`);
- a font: on a line that sets fonts (`font-family`, `fontFamily`, `fonts:`:
  `'Fira Code', Georgia, serif`) or in a `[fonts]` section, ending in a
  typeface's word (`Gill Sans`, `Noto Serif`), or a font's word right after it
  (`Paris is the serif we use`);
- an organisation: before an organisation's word (`Lex Archiva
  Engineering`, `Hartmann Labs`, `Nordwind GmbH`, `... sp. z o.o.`), or an
  X.509 name's organisation, unit or domain component (`O=Lex Archiva`,
  `OU=Court Filings`);
- a building, a room, a school or a ship named after a person (`Rosa Parks
  Elementary`, `the Mandela Room`, `room Grace Hopper`, `MSC Gülsün`), and a
  work titled by a pair of names (`Romeo e Giulietta`, `Hänsel und Gretel`);
- an animal: with what it is in brackets after it (`Mochi (feline)`), said
  to be one right after it (`Jasper's the grey donkey`), or a pet's field
  before it (`pet=Kiri`).
- a product line's name: before its noun (`Amber Dawn colourway`), or listed
  after it and `such as`, `like`, `come` (`shade names such as "Audrey
  Hepburn Red"`, `i colori ... nomi come Rosa, Ambra e Cielo`).

And a person's reading of what is no one: a street's name in one word with
its street's word (`Aletta Jacobslaan`, `Martin-Luther-Straße`), a month's
abbreviation beside a day or a year (`12–19 Dec`), a unit of two or three
letters and no vowel (`Wh`).
"""

from __future__ import annotations

import re

from . import cues, languages, places
from .lexicons import fold, lexicons
from .lexicons import words as _words

Span = tuple[str, int, int]

_STORM = re.compile(r"\b(?:[Ss]torm|STORM|[Hh]urricane|[Tt]yphoon|[Cc]yclone|[Tt]ropical\s+[Ss]torm)[ \t]+\Z")
_FONT_LINE = re.compile(r"font-family|fontFamily|font_family|\bfonts?\s*[=:]|\btypefaces?\s*[=:]", re.IGNORECASE)
# a font named earlier in the sentence: `the font from Helvetica to Lato`, `typeface: Georgia`
_FONT_BEFORE = re.compile(
    r"(?:\b(?:fonts?|typefaces?)(?:[ \t]+(?:from|to|is|was|family|face|stack)\b|[ \t]*[:=])[^.!?;\n]{0,30}"
    r"|\bset[ \t]+in[ \t]+|\bfall(?:s|ing)?[ \t]+back[ \t]+to[ \t]+)\Z",
    re.IGNORECASE,
)  # and typesetting's own words: `labels set in Gill Sans`, `falls back to Helvetica` (not `the fonts team, Priya`)
# a typeface's own word ends its name: `Gill Sans`, `Fira Code`, `Noto Serif`, `JetBrains Mono`, `Roboto Slab`
_TYPEFACE = re.compile(r"[ \t](?:Sans|Serif|Mono|Code|Grotesk|Slab)(?:[ \t]+Pro)?\Z")
_VALUE_BEFORE = re.compile(r"(?:[=:][ \t]*[\"']?|[\"'])\Z")  # a config's value: `heading = "`, `mono: `
_FONT_SECTION = re.compile(r"^([ \t]*)(?:\[[\w.\-]*fonts?\]|fonts?:)[ \t]*$", re.IGNORECASE | re.MULTILINE)
_FONT_SECTION_REACH = 300
_NEXT_SECTION = re.compile(r"^[ \t]*\[", re.MULTILINE)  # TOML's next table


_FONT_WORDS = re.compile(
    r"\b(?:fonts?|typefaces?|typography|headings?|headers|body text|serif|sans-serif|monospace|kerning)\b",
    re.IGNORECASE,
)


def _set_as_font(text: str, a: int, b: int) -> bool:
    """A config's value (`heading = "Gill Sans"`) or a name on a line about type (`Gill Sans for headings`)."""
    if _VALUE_BEFORE.search(text, max(0, a - 4), a):
        return True
    start = text.rfind("\n", max(0, a - 200), a) + 1 or max(0, a - 200)
    end = text.find("\n", b, b + 200)
    return _FONT_WORDS.search(text, start, end if end >= 0 else min(len(text), b + 200)) is not None


def _in_font_section(text: str, a: int) -> bool:
    """text[a] is a value in a `[fonts]` table (up to the next table) or under a `fonts:` key (its indented lines
    only), within _FONT_SECTION_REACH characters of it."""
    sections = list(_FONT_SECTION.finditer(text, max(0, a - _FONT_SECTION_REACH), a))
    section = sections[-1] if sections else None
    if section is None or "\n\n" in text[section.end() : a]:
        return False
    if section.group().lstrip().startswith("["):
        return _NEXT_SECTION.search(text, section.end(), a) is None
    indent = len(section.group(1))
    lines = text[section.end() : a].split("\n")[1:]  # the lines after the key's, the value's own among them
    return all(len(line) - len(line.lstrip(" \t")) > indent for line in lines if line.strip())


_FONT_AFTER = re.compile(
    r"[ \t]*,[ \t]*[\"']?(?:serif|sans-serif|monospace)\b"
    r"|[ \t]+is[ \t]+(?:the|our|a|set)\b[^.\n]{0,20}?\b(?:serif|sans-serif|font|typeface)\b",
    re.IGNORECASE,
)
_ORGANISATION_AFTER = re.compile(
    r"[ \t]+(?:Engineering|Labs?|Inc\.?|Ltd\.?|LLC|LLP|GmbH|AG|BV|B\.V\.|S\.A\.|SAS|SRL|S\.r\.l\.|Oy|AB|ASA|"
    r"Foundation|Group|Studios?|Partners|Holdings|Ventures|Technologies|Systems|Solutions|Consulting|Capital|"
    r"sp\.[ \t]*z[ \t]*o\.o\.|"
    # other countries' company forms: `Kjær & Holm Bogføring ApS`, `Kovács Kft.`, `Novák s.r.o.`
    r"ApS|A/S|Oyj|KG|OHG|Sàrl|SARL|S\.L\.|Lda\.?|Ltda\.?|BVBA|Kft\.?|Zrt\.?|s\.r\.o\.|d\.o\.o\.|"
    # a cooperative, a collective: `Lastenrad Kollektiv eG` (not `Haus`, a surname too: `Anna Haus`)
    r"eG|Kollektiv|Collective)(?![\w\-])"
)
# after a word alone, a legal form a few capitalised words later, single-spaced (not a table's next column), no day
# or role between (`Anna Berg Tuesday Volvo AB`), and no team's word (`Ask Chidi Security Engineering`):
# `Eskilstuna| Knivsmedja AB`, `Kovács| és Társa Kft.`
# a guild, a society, an ensemble ending a name of no one titled: `'Yerevan Duduk Guild'`, `Banjul Kora Society`;
# not before a role or a member's word (`John Smith Guild treasurer`, `Rachel Green Co-op member`)
_BODY_AFTER = re.compile(
    r"[ \t]+(?:Guild|Society|Association|Cooperative|Co-op|Ensemble|Orchestra|Choir|Syndicate)(?![\w\-])"
    r"(?![ \t]+(?:president|director|treasurer|chair|secretary|manager|members?|member's|shares?|joined|invited|"
    r"lecture|rehearsals?|meetings?|practice|dues)\b)"
)
_ORGANISATION_LATER = re.compile(
    r"(?: (?:(?!(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|CEO|CFO|CTO|COO|VP|Director|Of|On|"
    r"With|How|From|At)\b)[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ'’\-]+|&|és(?= Társa))){1,3}"
    r"[ \t]+(?:AB|GmbH|AG|Ltd\.?|LLC|LLP|Inc\.?|plc|BV|B\.V\.|S\.A\.|SAS|SRL|S\.r\.l\.|Oy|Oyj|ASA|ApS|A/S|KG|OHG|"
    r"Sàrl|SARL|S\.L\.|Lda\.?|Ltda\.?|BVBA|Kft\.?|Zrt\.?|s\.r\.o\.|d\.o\.o\.|sp\.[ \t]*z[ \t]*o\.o\.|eG)(?![\w\-])"
)
# a works named by its trades, `&` between them: `Chennai| Brass & Tin Works` (not `Priya & Arjun Works Together`)
_WORKS_LATER = re.compile(r"(?: [A-Z][a-z]+){1,2} & [A-Z][a-z]+ Works(?![\w\-])(?! [A-Z])")
_WORKS = re.compile(r" Works(?![\w\-])(?! [A-Z])")
# an LDAP name's organisation (`O=`, `OU=`), a vCard's (`ORG:Obi Bespoke Tailoring`)
_ORGANISATION_BEFORE = re.compile(r"(?:(?:^|[,/;\s])(?:O|OU|DC)=|(?:^|\n)ORG(?:;[^:\n]{0,20})?:)\s*\Z")
# a building, a room, a school, a prize named after a person: `Rosa Parks Elementary`, `the Mandela Room`, `Dolores
# Huerta Hall`; a ship: `MSC Gülsün`, `CMA CGM Jacques Saadé`; a room before: `room Grace Hopper`
_NAMED_AFTER = re.compile(
    # (after Markdown's emphasis too: `**Marie Curie** Fellowship`)
    r"(?:\*{1,2}|_{1,2})?[ \t]+(?:Room|Rooms|Hall|Elementary|Middle|High|School|Academy|Building|Wing|Center|Centre|"
    r"Library|"
    r"Auditorium|Lab|Suite|Lounge|Theatre|Theater|Stadium|Arena|Bridge|Street|St\.|Avenue|Ave\.?|Road|Rd\.?|"
    r"Boulevard|Institute|University|College|Hospital|Prize|Award|Medal|Fellowship|Scholarship|Lecture|Tower|"
    r"Square|Plaza|Terminal|Pavilion|Gallery|Museum|Campus|Court|House|Clinic|Lodge|Inn|Hut|Hostel|Annex|Chapel|"
    r"Church|Cathedral|Abbey|Camp|Campsite|Campground|Farm|Ranch|Resort|Dairy|Winery|Orchard|Vineyard|Dome|"
    r"Observatory)(?![\w\-])"
)
# an aside that says the name is no one's: `Earl Grey (our tea, not a person)`, `Atlas (not a human)`
_NO_PERSON_ASIDE = re.compile(
    r"\s*\([^()\n]{0,60}?\bnot\s+(?:a\s+|the\s+)?(?:person|human|people|someone)\b[^()\n]{0,40}\)"
)
# a business's or a system's word joined to a name by a hyphen: `Tischler-Service`, `Berger-Team`, `Kowalski-Shop`
_JOINED_BUSINESS = re.compile(r"-(?:Service|Services|Team|Support|Shop|Portal|Desk|Helpdesk|Bot|Zentrale|Versand)\b")
# the sentence says what names these are, and that they name no one and nowhere (`ranks "Catan" below
# "Carcassonne"; board game names, not places`)
_NOT_PLACES_SAID = re.compile(
    r"[\"”'](?:[^\"“”'\n.;]{1,12}[\"“'][^\"”'\n]{1,30}[\"”']){0,2}"  # (`"Carcassonne" for "Catan"; ...`)
    r"[ \t]*[;(—–][ \t]*(?:[\w\-]+[ \t]+){0,2}names?,?[ \t]+not[ \t]+(?:a[ \t]+)?"
    r"(?:places?|people|persons?|towns?|cities)\b"
)
# a name in quotes the text calls a test's string: `("Wolfgang Amadeus" test string from ...)`
_TEST_STRING_AFTER = re.compile(
    r"[\"”'][ \t]+(?:as[ \t]+(?:a|the)[ \t]+)?(?:test|sample|dummy|example|fake|placeholder)[ \t]+"
    r"(?:strings?|names?)\b"
)
# a place in quotes a text's encoding garbles, after the fault's verb: `uses Windows-1252, breaks "Łódź" and
# "Škoda"` (not a customer's `garbled "Renée Dubois"`, a headline's `broke "Texas" records`)
_GARBLED_BEFORE = re.compile(
    r"\b(?:breaks|broke|mangles|mangled|garbles|garbled|corrupts|corrupted)[ \t]+[\"“]\Z", re.IGNORECASE
)
_ENCODING = re.compile(
    r"(?i)\b(?:windows-125\d|cp-?125\d|cp-?437|latin-?1|iso-?8859(?:-\d+)?|utf-?(?:8|16)|ascii|mojibake|"
    r"encodings?|charsets?|code[ \t]?pages?)\b"
)
# a place of business by its own word in another language, first in its name: `Autoescuela Ronda`, `Rifugio
# Aurora`, `Cabane de Moiry`, `Gasthof Post`, `Gruppe Finanzen` (a team)
_BUSINESS_FIRST = re.compile(
    r"(?:Autoescuela|Autoescola|Autoscuola|Fahrschule|Auto-école|Rifugio|Capanna|Cabane|Refugio|Refuge|Albergo|"
    r"Hostal|Pousada|Gasthaus|Gasthof|Ristorante|Restaurante|Trattoria|Osteria|Taberna|Camping|Cofradía|Gruppe|"
    r"Atelier|Keramiekatelier|Bäckerei|Panadería|Padaria|Boulangerie|Librería|Livraria|Libreria|Buchhandlung|"
    # an olive mill, a stable, a nail salon, a pizzeria: `Frantoio Bellandi`, `Stall Sonnenhof`, `Salão Unhas Belas`
    r"Frantoio|Oleificio|Stall|Reitstall|Reiterhof|Nagelstudio|Salão|Pizzeria|Chocolaterie|Confiserie)[ \t]"
)
# a business's first word, then up to two capitalised words, before a place: its name, not where it is
_BUSINESS_NAME_BEFORE = re.compile(_BUSINESS_FIRST.pattern + r"(?:[ \t]*[A-ZÀ-Þ][\w'’\-]*[ \t]+){0,2}\Z")
_NAMED_BEFORE = re.compile(
    r"(?:\b(?:room|meeting\s+room|conference\s+room|hall|building|wing|vessel|ship|tanker|ferry|loco|locomotive|"
    # in other languages: `no edifício Machado de Assis`, `auditório Clarice Lispector`
    r"edifício|edificio|auditório|auditorio|sala|aula|salle|bâtiment|amphithéâtre|gebäude|saal|hörsaal|gebouw|zaal|"
    # a stadium, a train, a rose, an exhibition: `Estadio Santiago Bernabéu`, `IC „Theodor Heuss“`, `la rose « Pierre
    # de Ronsard »`, `l'expo Monet`
    r"(?i:estadio|estádio|stade|stadion|stadio|expo|exposition|ausstellung|mostra)|rose|rosa)"
    # ships and trains: `MV Hebrides`, `IC Theodor Heuss` (not `MS` alone: `Dear MS Katharina Huber`; a vessel's
    # field says so, `"vessel": "MS Hope"`, `vessel=MS Kong Harald`)
    r"|\b(?:MSC|CMA\s+CGM|MV|MT|SS|RMS|HMS|USS|IC|ICE|EC|TGV)"
    r"|(?i:vessel|ship|ferry|boat)[\"']?[ \t]*[:=][ \t]*[\"']?MS)[ \t]+[\"'“„«]?[ \t]?\Z"
)
# a release's or a project's codename, said so right before it: `next sprint codename is Betelgeuse`, `codename:
# Andromeda`, `code-named Orca`
_CODENAME_BEFORE = re.compile(
    r"(?i)\bcode[ \-]?name[ds]?\b(?:[ \t]+(?:is|was|will[ \t]+be)\b)?[ \t]*[:=]?[ \t]*[\"'“„«]?\Z"
)
# the payment networks whose names name no one and nowhere (not `Troy`, `Mir`, `Elo`, `Maestro`, which do):
# `Meredith's Amex, she's testing`, `pay via Dankort`
_CARD_NETWORKS = _words("amex dankort rupay unionpay mastercard hipercard visa jcb girocard bancontact interac")
# Crystal's accessors and their name and type at a line's start: `getter name : String`
_ACCESSOR = re.compile(r"(?m)^[ \t]*(?:class_)?(?:getter|setter|property)[?!]?[ \t]+\w+[ \t]*[:,=]")
_THE_MS = re.compile(r"\b(?i:the|aboard)[ \t]+MS[ \t]+\Z")
_QUALIFIED_AFTER = re.compile(
    r"(?:\*{1,2}|_{1,2})?[ \t]+[A-Z][a-z]+[ \t]+(?:Prize|Award|Medal|Fellowship|Scholarship|Lecture|Memorial|Stadium|"
    r"Hall|Building|Library|Institute)(?![\w\-])"
)
_ANIMAL_AFTER = re.compile(
    r"[ \t]*\((?:feline|canine|equine|cat|dog|kitten|puppy|horse|pony|rabbit|parrot|bird|ferret|hamster|"
    r"guinea\s+pig|tortoise|lizard|snake|cockatiel|gelding|mare|stallion)\b",
    re.IGNORECASE,
)
# said to be an animal right after: `Jasper's the grey donkey`, `Hazel is our oldest mare`, `Meet Atlas, our
# golden eagle`
_ANIMAL_IS = re.compile(
    r"(?:['’]s|[ \t]+is|[ \t]+was|,)[ \t]+(?:the|a|an|our|my|your|their)[ \t]+(?:[a-z\-]+[ \t]+){0,2}"
    r"(?:donkey|donkeys|horse|pony|mare|stallion|gelding|foal|mule|dog|puppy|cat|kitten|goat|sheep|lamb|ewe|ram|"
    r"cow|calf|bull|pig|alpaca|llama|reindeer|parrot|hen|rooster|rabbit|tortoise|hamster|ferret|falcon|hawk|owl|"
    r"eagle|kestrel|buzzard|vulture|goose|duck|swan|penguin|otter|lion|tiger|bear|wolf|fox|elephant|giraffe|zebra|"
    r"camel|monkey|meerkat|seal|dolphin|snake|lizard|iguana)"
    r"(?![\w\-]|[ \t]+[a-z])"  # the animal's noun ends the phrase: not `the best dog walker`, `a horse riding coach`
)
# what is said of people with an animal's noun: `a night owl`, `a lucky dog`, `our guinea pig`, `a dark horse`
_ANIMAL_IDIOM = re.compile(
    r"\b(?:night|early|lucky|guinea|dark|lone|cash|fat|scaredy|copy|party|top|black|sly|eager|loan|busy|cold|"
    r"social|big|lame|sitting|cool|odd|wise|stubborn|lazy|bad|good|clever|silly|old|real|total|stray|work)"
    r"[ \t]+[a-z]+\b"
)
_PET_BEFORE = re.compile(r"(?i:\b(?:pet|pet_name|animal|horse|dog|cat)(?:\s*[=:]\s*[\"']?|\s+[\"'“]))\Z")
# `the Mandela room`, not a guest's room: `guest Hiroshi Nakamura room 1412`
# a food or a drink named after a place or a person: `Brussels sprouts`, `Moscow Mule`, `Margarita Pizza`
# a CI server named alone, then how long its build took or the build itself: `Jenkins took 14m again`, `Travis build
# #442 failed`, `Bamboo job is red` (not `Sarah Jenkins took 14m`, a full name, `Mr Jenkins took`, titled, `Travis
# took 5m to drive`, `Jenkins took 3 hrs off`, `Travis's job offer`, `Travis runs payroll`)
_CI_SERVER = _words("jenkins travis hudson bamboo drone teamcity buildkite concourse woodpecker")
_BUILD_AFTER = re.compile(
    r"[ \t]+(?:took[ \t]+\d+(?:\.\d+)?[ \t]?(?:ms|s|secs?|m|mins?|h|hrs?)\b(?![ \t]+(?:to|off|for)\b)"
    r"|(?:build|job|pipeline|stage|agent|executor|worker)s?\b)"
)
# a line about builds, where a CI server's name is one (not `Emma Watson: Travis took 9m on lunch break`)
_BUILD_LINE = re.compile(
    r"(?i:\b(?:builds?|deploy\w*|pipelines?|green|red|merged?|ci|jobs?|branch|main|master|tests?|stages?|runners?|"
    r"release|artifacts?|queue[ds]?)\b)"
)
# an order, an invoice, a shipment numbered after a word no one is called, opening a quoted text (a payload's, a
# message's): `"Alphorn order #5521 paid"` (not `"Müller order #5521"`, a customer's surname, nor `Oyelaran order
# #99 - call the customer`, written in a line, not a payload)
_NUMBERED_AFTER = re.compile(
    r"[ \t]+(?:order|invoice|shipment|booking|delivery|parcel|refund)[ \t]+(?:#|[Nn]o\.?[ \t]?|[Nn][º°][ \t]?)\d"
)
_FOOD_AFTER = re.compile(
    r"[ \t]+(?:sprouts|buns?|sausages?|pizza|salad|cake|sauce|dressing|cheese|mule|sling|sour|spritz|fern|"
    r"Sprouts|Buns?|Sausages?|Pizza|Salad|Cake|Sauce|Mule|Sling|Sour|Spritz)\b"
)
# a product line's names, no one's: after its noun and `such as`, `like`, `named`, ... in a list up to the name
# (`shade names such as "Audrey Hepburn Red"`, `i colori ... nomi come Rosa, Ambra e Cielo`), or before its noun
# (`Amber Dawn colourway`, `the Heather colorway`)
_LINE_NOUN = re.compile(
    r"\b(?:colou?rways?|shades?|flavou?rs?|scents?|fragrances?|cultivars?|breeds?|colou?rs?|colori|couleurs|farben|"
    r"colores|kleuren|f[äa]rger|barvy|kolory)\b",
    re.IGNORECASE,
)  # (not Portuguese `cores`: English's CPU cores)
# what opens the list after the noun: up to three words (`names` among them, or not), then `such as`, `like`, `:`
_LINE_OPENS = re.compile(
    r"(?P<gap>(?:[ \t]+[^\W\d_]+){0,3}?)[ \t]*(?:(?P<colon>:)|[ \t]+(?:such[ \t]+as|like|named|called|including|"
    r"come|como|comme|wie|zoals|såsom))[ \t]+",
    re.IGNORECASE,
)
_NAMES_WORD = re.compile(r"\b(?:names?|nomi|noms|namen|nombres|nomes|namn|navne|nimet)\b", re.IGNORECASE)
# one listed name: up to four words, quoted or not; the separators between names
_LINE_ITEM = re.compile(
    r"[\"'“„«]?[^\W\d_][\w'’\-]*(?:[ \t]+(?!(?:and|or|e|y|et|und|en|og|och)\b)[^\W\d_][\w'’\-]*){0,3}[\"'”“»]?"
)
_LINE_SEP = re.compile(
    r"[ \t]*(?:,[ \t]*(?:(?:and|or|e|y|et|und|en|og|och)[ \t]+)?|[ \t]+(?:and|or|e|y|et|und|en|og|och)[ \t]+)"
)
_LINE_REACH = 240
_LINE_AFTER = re.compile(r"[\"'”“»]?[ \t]+(?i:colou?rways?|shade|lipstick|scent|fragrance|cultivar)\b")
# a cultivar's name in its quotes before its plant: `'Cherokee Purple' tomato`, `'Rainbow' chard`, `'Gertrude Jekyll'
# rose`
_CULTIVAR_AFTER = re.compile(
    r"[\"'’”][ \t]+(?:tomato(?:es)?|beans?|chard|apples?|roses?|potato(?:es)?|peppers?|lettuces?|squash|pumpkins?|"
    r"kale|carrots?|onions?|garlic|peas?|cucumbers?|melons?|grapes?|pears?|plums?|cherr(?:y|ies)|hops?|basil|corn|"
    r"radish(?:es)?|beets?|beetroot|cabbages?|tulips?|dahlias?|peon(?:y|ies)|clematis|hydrangeas?|fuchsias?|lavender|"
    r"hostas?|apricots?|peaches|peach|strawberr(?:y|ies)|raspberr(?:y|ies)|blueberr(?:y|ies)|courgettes?|zucchini|"
    r"aubergines?|eggplants?|leeks?|spinach|sunflowers?|sweet ?peas?)\b"
)
_ADDRESSED = re.compile(r"\d")  # a place with a number: a street's address, not a building named after someone
_ROOM_AFTER = re.compile(r"[ \t]+(?:room|hall|wing|auditorium|lounge|suite)\b(?![ \t]*(?:[#:]|no\.?)?[ \t]*\w*\d)")
_THE_BEFORE = re.compile(r"\bthe[ \t]+\Z", re.IGNORECASE)  # `the Mandela room`, not `give Maria room to breathe`
# a street's name, one word with its street's word: `Aletta Jacobslaan`, `Martin-Luther-Straße`, `Drottninggatan`
_STREET = re.compile(
    r"[^\W\d_]{4,}(?:laan|straat|plein|gracht|kade|singel|dreef|straße|strasse|gasse|allee|platz|gatan|"
    r"vägen|gränd|gade|vej|veien|torget)\Z",
    re.IGNORECASE,
)  # not surnames that end so: `Nagata`, `Lagasse`, `Vandersteeg`
# a month's abbreviation beside a day or a year: `12–19 Dec`, `Nov 3`, `Sept 2024`
_MONTH = re.compile(r"(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?\Z")
_DAY_BEFORE = re.compile(r"\d[ \t]*\Z")
_DAY_AFTER = re.compile(r"\.?[ \t]*\d")
# people so famous that rooms, halls, ships, engines, clusters, drinks and brands are named after them, and
# fictional people: on the labelled sets, 153 of 156 mentions name a thing (`room Grace Hopper`, `the Ada
# Lovelace service`); written from common knowledge, no pinned package lists them
FAMOUS = frozenset(
    line.strip()
    for line in """
    ada lovelace|grace hopper|marie curie|pierre curie|alan turing|nelson mandela|rosa parks|albert einstein
    isaac newton|charles darwin|nikola tesla|thomas edison|galileo galilei|johannes kepler|niels bohr
    max planck|werner heisenberg|erwin schrodinger|richard feynman|stephen hawking|carl sagan|katherine johnson
    hedy lamarr|margaret hamilton|dorothy vaughan|mary jackson|rosalind franklin|lise meitner|emmy noether
    florence nightingale|martin luther king|mahatma gandhi|winston churchill|abraham lincoln|george washington
    leonardo da vinci|michelangelo buonarroti|vincent van gogh|frida kahlo|pablo picasso|claude monet
    salvador dali|william shakespeare|jane austen|charles dickens|mark twain|ernest hemingway|virginia woolf
    wolfgang amadeus mozart|ludwig van beethoven|johann sebastian bach|frederic chopin|dolores huerta
    sherlock holmes|hercule poirot|miss marple|james bond|harry potter|austin powers|lady chatterley
    tom collins|john deere|freddie mac|fannie mae|ronald mcdonald|colonel sanders|uncle sam|santa claus
    bloody mary|margarita pizza|la margarita|eggs benedict|beef wellington|beef stroganoff|peach melba
    earl grey|lady grey|paris green|anna karenina|madame bovary|don quixote|machado de assis|clarice lispector
    nigel gresley|isambard kingdom brunel|amelia earhart|neil armstrong|buzz aldrin|yuri gagarin
    """.replace("\n", "|").split("|")
    if line.strip()
)
_ASKING = re.compile(r"(?:Can|Could|Would|Should|Will|May|Shall|Did|Does|Do|Is|Are)\Z")
_ASKED = re.compile(r"[ \t]+(?:you|we|i|someone|anyone|somebody|they|he|she|it|u)\b", re.IGNORECASE)
# a German or Dutch noun after its determiner: `jeden Sommer`, `nächsten Winter`, `elke Zomer`
_NOUN_BEFORE = re.compile(
    r"(?<![\w\-])(?:jeden|jede|jedes|jeder|jedem|diesen|dieses|diesem|letzten|nächsten|kommenden|ganzen|elke|"
    r"iedere|deze|vorigen)[ \t]+\Z",
    re.IGNORECASE,
)
# a mail header's key in another language, before its colon: `Von: Katharina Oberhuber <...>`, `Fra:`, `Från:`
_HEADER_KEY = re.compile(
    r"(?:Von|An|Betreff|Fra|Til|Emne|Från|Till|Ämne|Van|Aan|Onderwerp|Od|Do|Temat|Předmět|Komu|De|Para|Asunto|"
    r"Assunto|Objet|Oggetto|Da|Lähettäjä|Aihe|Vastaanottaja|Kimden|Kime|Konu|Sender|Recipient|Absender|"
    r"Empfänger|Expéditeur|Destinataire|Remitente|Destinatario|Mittente|Afzender|Ontvanger|Nadawca|Odbiorca|"
    # Russian's, Ukrainian's, Bulgarian's and Greek's: `От`, `Кому`, `Тема`, `Від`, `Относно`, `Από`, `Προς`, `Θέμα`
    r"От|Кому|Тема|Копия|Від|Копія|Относно|Από|Προς|Θέμα|Κοιν)\Z"
)
# a German line's formal pronoun and its greeting's nouns, capitalised wherever they are: `überweisen Sie die`,
# `Sehr geehrte Damen und Herren`
# German's capitalised pronouns and polite nouns, alone or opening what was read (`Sie den Betrag`), and a
# preposition with its article opening a sentence (`Bei der Kühlkette zählt`): German's capitals, no one's
_GERMAN_CAPITALISED = re.compile(
    r"(?:Sie|Ihnen|Ihr|Ihre|Ihrem|Ihren|Ihrer|Ihres|Damen|Herren)(?:\Z|[ \t])"
    r"|(?:Bei|Mit|Nach|Von|Aus|Auf|Für|Über|Unter|Vor|Zu|In|An|Durch|Gegen|Ohne|Seit|Wegen)[ \t]+"
    r"(?:der|die|das|dem|den|des|einer|einem|eines)[ \t]"
)
# a place in an institution's name: `University of Ibadan`, `Univ. Ibadan`, `Universidad de Chile`
_GREETING_WORDS = re.compile(r"(?i:\b(?:grüße|grüßen|gruß|grüsse|grüssen|gruss|regards|saludos|saluti|groetjes)\b)")
_INSTITUTION_BEFORE = re.compile(
    r"(?<![\w\-])(?:(?:University|Universidad|Universidade|Université|Università|Universität|Uniwersytet|College|"
    r"Institute|Bank)[ \t]+(?:of|de|di|do|da|du)[ \t]+|Univ\.[ \t]+(?:of[ \t]+)?)\Z"
)
_INSTITUTION_WORD = re.compile(r"(?:University|Universidad|Universidade|Université|Università|Universität|College)\Z")


def _institution(text: str, a: int, b: int) -> bool:
    """A place in an institution's name, or the institution's own word read as one (`University` of
    `University of Ghana`)."""
    if _INSTITUTION_BEFORE.search(text, max(0, a - 16), a):
        return True
    if _BUSINESS_NAME_BEFORE.search(text, max(0, a - 40), a):
        return True  # `Salão Unhas Belas`, `Frantoio Valle Umbra`: a place in a business's name
    return _INSTITUTION_WORD.match(text, a, b) is not None and text[b : b + 4] in (" of ", " de ", " di ", " do ")


# a saint's name: a church, a street, a town (`St. Augustine's`, `Saint-Laurent`), no one the text is about
_SAINT_BEFORE = re.compile(r"(?<![\w\-])(?:St\.?|Saint|Sankt|São)[ \t]+\Z")
# after a given name, a surname's: `Marc St. Pierre`, `Kate St. James`
_SURNAME_SAINT = re.compile(r"(?<![\w\-])[A-Z][a-z]+[ \t]+(?:St\.?|Saint)[ \t]+\Z")
_INVERTED_QUESTION = re.compile(r"[A-ZÀ-Þ][a-zà-ÿ]+-(?:t-)?(?:il|elle|ce|on|ils|elles|vous|nous|je|tu)\Z")
_RULED_LINE = re.compile(r"(?:^|\n)[ \t]*-{3,}[^\n]*\Z")
_RULED_AFTER = re.compile(r"[^\n]*-{3,}[ \t]*(?:\n|\Z)")
# a saint joined to the name: French towns and streets (`Saint-Émilion`); people write a saint's name apart
_SAINT_JOINED = re.compile(r"(?:Saint|Sainte|St|Ste|Sankt|Sant|San|Santa|Santo|São)-[A-ZÀ-ÖØ-Þ]")
# a unit or an abbreviation, never a name: two or three letters and no vowel (`Wh`, `kWh`, `Pb`), not `Ng`
_VOWELLESS = re.compile(r"(?!Ng\Z)[B-DF-HJ-NP-TV-XZb-df-hj-np-tv-xz]{1,3}\Z")


def things(text: str, spans: list[Span]) -> list[Span]:
    """`spans` less the names of storms, fonts, organisations and animals, and people's readings of streets,
    months and units, and places that name an institution (`University of Ibadan`)."""
    return [
        span
        for span in spans
        if span[0] not in ("PERSON", "LOCATION")
        or (span[0] == "LOCATION" and _ADDRESSED.search(text, span[1], span[2]))  # `221B Baker Street`
        # `the bakery on Albert Road`: a street people are on, not a building named after someone
        or (span[0] == "LOCATION" and places.on_street(text, *span[1:], fold(text[span[1] : span[2]]).split()[-1]))
        or not (
            _thing(text, span[1], span[2])
            or (span[0] == "PERSON" and _no_one(text, span[1], span[2]))
            or (span[0] == "LOCATION" and _institution(text, span[1], span[2]))
            or (span[0] == "LOCATION" and _garbled(text, span[1]))
        )
    ]


def _garbled(text: str, a: int) -> bool:
    """A place in quotes at text[a:] that a text about an encoding says a fault garbles (`breaks "Łódź"`): a test
    string."""
    return _GARBLED_BEFORE.search(text, max(0, a - 12), a) is not None and _ENCODING.search(text) is not None


# a practice, a clinic, a club in one German word: `Pfotenhilfe Tierarztpraxis`, `Sportverein Nord`
_ORGANISATION_WORD = re.compile(
    r"[A-ZÄÖÜ][a-zäöüß]{2,}(?:praxis|klinik|zentrum|verein|schule|gruppe|stiftung|werkstatt|apotheke|schneiderei|"
    r"tischlerei|schreinerei|bäckerei|metzgerei|gärtnerei|kellerei|brauerei|kanzlei|agentur|institut)\b"
)  # not `Ankita`, `Nikita`; `Skischule Hofer`, `Maßschneiderei`
# a street's word before a name: `Jalan Braga`, `Rua Augusta`, `Calle Mayor`: a street, not a person
_STREET_FIRST = re.compile(r"(?:Jalan|Jl\.|Rua|Calle|Carrer|Avenida|Rue|Via|Viale|Piazza|Ulica|Aleja|Strada)[ \t]")


# works titled by a pair of names, in any of their languages: `Romeo e Giulietta`, `Hänsel und Gretel`
_PAIRED_WORK = re.compile(
    r"(?:Romeo|Roméo)[ \t]+(?:and|e|y|et|und|i|&)[ \t]+(?:Juliet|Giulietta|Julieta|Juliette|Julia|Julie)"
    r"|Tristan[ \t]+(?:and|und|et|e|y|&)[ \t]+(?:Isolde|Isolda|Iseult|Yseult)"
    r"|H[äa]nsel[ \t]+(?:and|und|e|et|y|&)[ \t]+Gretel|Bonnie[ \t]+(?:and|&)[ \t]+Clyde"
    r"|Thelma[ \t]+(?:and|&)[ \t]+Louise"
    r"|Pelléas[ \t]+et[ \t]+Mélisande|Daphnis[ \t]+(?:et|and)[ \t]+Chlo[ée]|Orfeo[ \t]+ed[ \t]+Euridice"
    r"|Samson[ \t]+(?:et|and)[ \t]+Dalila|Dido[ \t]+and[ \t]+Aeneas|Antony[ \t]+and[ \t]+Cleopatra"
    r"|Troilus[ \t]+and[ \t]+Cressida|Paul[ \t]+et[ \t]+Virginie|Max[ \t]+und[ \t]+Moritz"
)


# a voice assistant's wake words and what is said to it: `Hey Siri`, `Ask Alexa`, `OK Google`
_WAKE = re.compile(r"\b(?:Hey|Hi|OK|Okay|Ask|Tell)[ \t,]+(?:Siri|Alexa|Google|Cortana|Bixby)\b")


def _within(pattern: re.Pattern[str], text: str, a: int, b: int, reach: int) -> re.Match[str] | None:
    """The match of `pattern` near text[a:b] (`reach` characters either side) that holds all of it, if any."""
    return next(
        (m for m in pattern.finditer(text, max(0, a - reach), b + reach) if m.start() <= a and b <= m.end()), None
    )


def _woken(text: str, a: int, b: int) -> bool:
    """text[a:b] is inside a voice assistant's wake words: `"Hey Siri, when does it open?"`, `Ask Alexa:`."""
    return _within(_WAKE, text, a, b, 12) is not None


def _paired_work(text: str, a: int, b: int) -> bool:
    """text[a:b] is one of the names a work is titled by, written whole around it: `"Romeo e Giulietta"`; not
    before a surname (`Romeo and Julia Santos`: a person's whole name after the pair)."""
    work = _within(_PAIRED_WORK, text, a, b, 30)
    return work is not None and not _NEXT_CAPITAL.match(text, work.end())


_NEXT_CAPITAL = re.compile(r"[ \t]+[A-ZÀ-Þ]")


_DAY = r"(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)(?:day)?\.?"
_DAYS = re.compile(rf"{_DAY}[ \t]*[–—\-][ \t]*{_DAY}")


def header_key(text: str, a: int, b: int) -> bool:
    """text[a:b] is a mail header's key at its line's start, its colon after it (`Кому: info@...`): no place."""
    return (a == 0 or text[a - 1] == "\n") and text[b : b + 1] == ":" and _HEADER_KEY.fullmatch(text, a, b) is not None


def _no_one(text: str, a: int, b: int) -> bool:
    """A person's reading of what is a street (`Aletta Jacobslaan`), a month beside a day (`12–19 Dec`) or a
    unit (`Wh`)."""
    value = text[a:b]
    if _STREET.search(value.rsplit(" ", 1)[-1].rsplit("-", 1)[-1]) or _VOWELLESS.match(value):
        return True
    if _DAYS.fullmatch(value):
        return True  # `Tue–Thu`: a rota's days
    if _ORGANISATION_WORD.search(value) or _STREET_FIRST.match(value) or _BUSINESS_FIRST.match(value):
        return True
    if _RULED_LINE.search(text, max(0, a - 40), a) and _RULED_AFTER.match(text, b):
        return True  # `---------- Weitergeleitete Nachricht ---------`: a mail client's banner
    if " " in value and " ".join(fold(value).replace(".", " ").split()) in FAMOUS and _a_things_name(text, a, b):
        return True  # `room Grace Hopper`, not `Grace Hopper wrote the first compiler`, `refund to Mary Jackson`
    if _paired_work(text, a, b):
        return True  # `"Romeo e Giulietta" ora appare`: a ballet's title, no one
    if _woken(text, a, b):
        return True  # `Hey Siri`, `Ask Alexa`: an assistant called, and the verb that calls it
    if _ASKING.match(value) and _ASKED.match(text, b):
        return True  # `Can you help me`, `Will we ship it`: a question's verb, not `Can` or `Will`
    if _HEADER_KEY.match(value) and text[b : b + 1] == ":":
        return True
    if value in ("getter", "setter", "property") and _ACCESSOR.match(text, text.rfind("\n", 0, a) + 1):
        return True  # Crystal's `getter name : String`: an accessor, no one
    if _GERMAN_CAPITALISED.match(value) and languages.language_at(text, a) == "de":
        return True
    if _INVERTED_QUESTION.match(value):
        return True  # `Est-il possible`, `Est-ce possible ?`: French asks with the verb before its pronoun
    if _GREETING_WORDS.search(value):
        return True  # `Viele Grüße`, `Mit freundlichen Grüßen`, `Best regards`: a letter's close, no one
    if _SAINT_BEFORE.search(text, max(0, a - 7), a) and not _SURNAME_SAINT.search(text, max(0, a - 30), a):
        return True
    if _SAINT_JOINED.match(value):
        return True  # `Saint-Émilion`, `Sainte-Foy`, `Sankt-Peterburg`: a town or a street, no one
    if _QUALIFIED_AFTER.match(text, b):
        return True  # `Florence Nightingale Nursing Scholarship`: a prize's word after one more word (a person's
        # reading only: `Leeds Central Library` is still where she is)
    if " " not in value and _NOUN_BEFORE.search(text, max(0, a - 12), a):
        return True
    alone = " " not in value
    if alone and fold(value) in _CI_SERVER and _BUILD_AFTER.match(text, b) and not cues.title_before(text, a):
        start, end = text.rfind("\n", 0, a) + 1, text.find("\n", b)
        if _BUILD_LINE.search(text, start, end if end >= 0 else len(text)):
            return True  # `deploy is green, Jenkins took 14m again`: the CI server, not `Mr Jenkins`
    if alone and text[a - 1 : a] in ('"', "'") and _NUMBERED_AFTER.match(text, b) and not _someones(fold(value)):
        return True  # `"Alphorn order #5521 paid"`: what was ordered, no one
    return _MONTH.match(value) is not None and (
        _DAY_BEFORE.search(text, max(0, a - 4), a) is not None or _DAY_AFTER.match(text, b) is not None
    )


# typefaces few people and no place are called: the name alone says it is a font (`fascia in Garamond`, `renders
# in Georgia instead of Gill Sans`), unless a title says whose (`Mr Garamond`); not `Georgia`, `Lato`, `Cambria`,
# `Baskerville`, which name places and people too
_WORD_AFTER = re.compile(r"[ \t]+([^\W\d_]+)")
_TYPEFACES = frozenset(
    name.replace("_", " ")
    for name in _words(
        "garamond helvetica futura verdana calibri tahoma arial roboto "
        "gill_sans open_sans comic_sans fira_sans noto_sans source_sans_pro times_new_roman segoe_ui"
    )
)
_CO = re.compile(r"[ \t]Co\.?\Z")  # the last word of a business's name: `Kandy Hills Co`; not `Boulder Co`


_FONT_STYLE = _words("narrow black condensed light bold italic medium thin")  # `Arial Narrow`, `Futura Bold`
_SAINTS_PLACE = re.compile(r"['’]s[ \t]+(?:Church|Cathedral|Chapel|Abbey|Parish|School|College|Hospital|Hall|Well)\b")


def _thing(text: str, a: int, b: int) -> bool:
    words = fold(text[a:b]).split()
    if fold(text[a:b]) in _TYPEFACES and not cues.title_before(text, a):
        return True
    if (after := _WORD_AFTER.match(text, b)) and fold(f"{text[a:b]} {after.group(1)}") in _TYPEFACES:
        return True  # `Noto Sans`, `Gill Sans`: the face's first word, found alone
    if len(words) > 1 and words[0] in _TYPEFACES and all(w in _FONT_STYLE for w in words[1:]):
        return True
    if words[:1] in (["st"], ["st."], ["saint"]) and _SAINTS_PLACE.match(text, b):
        return True  # `St Brigid's Church`: the saint's church, no one
    if text.count(" ", a, b) > 1 and _CO.search(text, a, b):
        return True
    if _STORM.search(text, max(0, a - 20), a) or text[a:b].split(" ", 1)[0].lower() in (
        "storm",
        "hurricane",
        "typhoon",
    ):
        return True
    if _ORGANISATION_AFTER.match(text, b) or _ORGANISATION_BEFORE.search(text, max(0, a - 28), a):
        return True
    if " " not in text[a:b] and (
        _ORGANISATION_LATER.match(text, b)
        or _WORKS_LATER.match(text, b)
        or (text[a - 2 : a] == "& " and _WORKS.match(text, b))
    ):
        return True  # `Eskilstuna Knivsmedja AB`, `Chennai Brass & Tin Works`: a word of the company's name
    last = text[a:b].rfind(" ")
    if last > 0 and _ORGANISATION_AFTER.match(text, a + last, b):
        return True  # `Bäckerei Sonnenhof GmbH`: the organisation's word inside the name found
    inside = _BODY_AFTER.match(text, a + last) if last > 0 else None
    if (_BODY_AFTER.match(text, b) or (inside and inside.end() == b)) and not cues.title_before(text, a):
        return True  # `Yerevan Duduk Guild`: a guild's name, found with its word or before it
    room = _ROOM_AFTER.match(text, b) is not None and _THE_BEFORE.search(text, max(0, a - 6), a) is not None
    if _NAMED_AFTER.match(text, b) or _NAMED_BEFORE.search(text, max(0, a - 24), a) or room:
        return True
    if fold(text[a:b]) in _CARD_NETWORKS or _CODENAME_BEFORE.search(text, max(0, a - 30), a):
        return True  # `Meredith's Amex`, `codename is Betelgeuse`: a card's network, a project's name
    if " " not in text[a:b] and _THE_MS.search(text, max(0, a - 12), a):
        return True  # `on the MS Amalia`, `aboard MS Vivaldi`: a ship of one word (not `to the MS Hannah Fischer`)
    if last > 0 and _NAMED_AFTER.match(text, a + last, b):
        return True  # `Dolores Huerta Hall`: the building's word inside the name found
    if _ANIMAL_AFTER.match(text, b) or _PET_BEFORE.search(text, max(0, a - 16), a) or _FOOD_AFTER.match(text, b):
        return True
    animal = _ANIMAL_IS.match(text, b) if " " not in text[a:b] else None
    if animal is not None and not _ANIMAL_IDIOM.search(animal.group()):
        return True
    if _LINE_AFTER.match(text, b) or _line_listed(text, a, b) or _CULTIVAR_AFTER.match(text, b):
        return True  # `Amber Dawn colourway`, `shades such as "Audrey Hepburn Red"`: a product line's names
    if _NO_PERSON_ASIDE.match(text, b) or _NOT_PLACES_SAID.match(text, b):
        return True  # `Earl Grey (our tea, not a person)`: the text says so
    if _JOINED_BUSINESS.match(text, b) or _JOINED_BUSINESS.search(text, a, b):
        return True  # `Von: Tischler-Service <noreply@...>`: a business's name, no one's
    if _TEST_STRING_AFTER.match(text, b):
        return True  # `("Wolfgang Amadeus" test string from ...)`
    if _FONT_AFTER.match(text, b) or (_TYPEFACE.search(text, a, b) and _set_as_font(text, a, b)):
        return True  # `Georgia, serif`, `Paris is the serif we use`, `heading = "Gill Sans"` (not `Jordi Sans`)
    if _in_font_section(text, a):
        return True  # a value in a `[fonts]` section
    if _FONT_BEFORE.search(text, max(0, a - 60), a):
        return True  # `switch the template font from Helvetica to Lato`
    if fold(text[a:b]) in _SHARED_FACES and _beside_a_face(text, a, b) and not _spoken_to(text, a, b):
        return True  # `uses Helvetica instead of Lato`, `la police Futura ..., on repasse sur Montserrat`
    line_start = text.rfind("\n", max(0, a - 200), a) + 1 or max(0, a - 200)
    line_end = text.find("\n", b, b + 200)
    return _FONT_LINE.search(text, line_start, line_end if line_end >= 0 else b + 200) is not None


# typefaces that name places and people too (`Georgia`, `Lato`, `Montserrat`), and what says a text is about type
# near one: a font's word in a few languages, or another typeface (`renders in Georgia instead of Lato`)
_SHARED_FACES = _words(
    "georgia lato montserrat cambria baskerville palatino raleway poppins merriweather avenir optima "
    # (and typefaces named like people: `swap Futura for Jost`)
    "jost lora oswald barlow nunito"
)
_FACE_REACH = 80
_FACE_NEAR = re.compile(
    r"(?i)(?:fonts?|typefaces?|la[ \t]+police|fuentes?[ \t]+tipogr[áa]fica|tipograf[íi]a|schrift(?:art)?|"
    r"lettertype|шрифт\w*|czcionk\w*)\b|フォント|字体|폰트"
    r"|(?i:\b(?:garamond|helvetica|futura|verdana|calibri|tahoma|arial|roboto|gill sans|open sans|"
    r"georgia|lato|montserrat|cambria|baskerville|palatino|raleway|poppins|merriweather|avenir|optima|"
    r"jost|lora|oswald|barlow|nunito)\b)"
)


_SENTENCE_BREAK = re.compile(r"[.!?;](?:\s|\Z)|\n")
_CITY_COMMA = re.compile(r"[A-Z][\w\-]+,[ \t]*\Z")  # `Tbilisi, Georgia`: the country or the state of a city


def _beside_a_face(text: str, a: int, b: int) -> bool:
    """A font's word or another typeface in the sentence of the typeface at text[a:b], which names a place and a
    person too; not after a city and a comma."""
    if _CITY_COMMA.search(text, max(0, a - 30), a):
        return False
    start = max(
        [max(0, a - _FACE_REACH), *(m.end() for m in _SENTENCE_BREAK.finditer(text, max(0, a - _FACE_REACH), a))]
    )
    stop = _SENTENCE_BREAK.search(text, b, min(len(text), b + _FACE_REACH))
    own = fold(text[a:b])
    near = _FACE_NEAR.finditer(text, start, stop.start() if stop else min(len(text), b + _FACE_REACH))
    return any(fold(m.group()) != own for m in near)


def _spoken_to(text: str, a: int, b: int) -> bool:
    """A typeface's name at text[a:b] that a title, a greeting or what is said of people marks as someone's (`Hi
    Jost,`, `Ms. Barlow`, `Lora and I`), or that is called by it, first and before a comma (`Oswald, can you...`)."""
    if cues.title_before(text, a) or cues.person(text, a, b, strict=True, pronoun=True):
        return True
    if _PERSON_NOUN_BEFORE.search(text, max(0, a - 24), a):
        return True  # `Our new hire, Jost, prefers Calibri`
    opened = a == 0 or _OPENED.search(text, max(0, a - 8), a) is not None
    return opened and _ADDRESSED_FIRST.match(text, b) is not None


_PERSON_NOUN_BEFORE = re.compile(
    r"\b(?:hire|colleague|designer|intern|manager|friend|boss|teammate|lead|client|customer)[ \t]*,[ \t]*\Z"
)
_ADDRESSED_FIRST = re.compile(r",[ \t]+(?:can|could|would|will|please|pls|do|did|are|is|have|you|we|I)\b")
_OPENED = re.compile(r"(?:^|\n|[.!?:>][ \t]+|,[ \t]+)\Z")


def _line_listed(text: str, a: int, b: int) -> bool:
    """text[a:b] is a name a product line's noun lists: the noun, up to three words, then `such as`, `like`,
    `come` or a colon (right after the noun only), then names up to this one (`shade names such as "Audrey
    Hepburn Red"`, `colourways like Heather, Amber Dawn`, `nomi come Rosa, Ambra e Cielo`). The list must say it
    names (`names`), quote its names or hold two at least (not `Colour: blue, assignee: Maria Lopez`, `the
    colors like Anna asked`)."""
    for m in reversed(list(_LINE_NOUN.finditer(text, max(0, a - _LINE_REACH), a))[-3:]):
        opens = _LINE_OPENS.match(text, m.end())
        if opens is None or opens.end() > a or (opens.group("colon") and opens.group("gap")):
            continue
        at, items = opens.end(), 0
        while at < a:  # the names before this one, each followed by a separator
            item = _LINE_ITEM.match(text, at)
            sep = _LINE_SEP.match(text, item.end()) if item is not None else None
            if item is None or sep is None:
                break
            at, items = sep.end(), items + 1
        if at != a and text[at:a] not in "\"'“„«":
            continue
        quoted = a > 0 and text[a - 1] in "\"'“„«"
        more = _LINE_SEP.match(text, b + (b < len(text) and text[b] in "\"'”“»")) is not None
        named = _NAMES_WORD.search(text, m.start(), opens.end()) is not None
        if named or quoted or items or more:
            return True
    return False


def _a_things_name(text: str, a: int, b: int) -> bool:
    """A famous person's name used for a thing: in quotes, as a record's `name`, or with a thing's word near it
    (`"name": "Grace Hopper", "capacity": 4`, `the Ada Lovelace room`, `a round of Tom Collins`); and nothing
    said of a person around it (`Grace Hopper wrote`)."""
    if cues.person(text, a, b, strict=True, imperative=False) and not cues.field_before(text, a):
        return False
    quoted = text[a - 1 : a] in "\"'“«" and text[b : b + 1] in "\"'”»" and a > 0
    near = text[max(0, a - _THING_REACH) : b + _THING_REACH]
    return quoted or cues.field_before(text, a) or _THING_WORDS.search(near) is not None


_THING_REACH = 80
_THING_WORDS = re.compile(
    r"(?i:\b(?:rooms?|halls?|building|wing|lab|suites?|ward|auditorium|theatre|theater|cluster|nodes?|servers?|"
    r"satellite|ship|vessel|loco|locomotive|engine|train|cocktails?|drinks?|rounds?|menu|themed|theme|named|"
    r"codename|mascot|model|units?|tractors?|films?|movies?|novel|book|detectives?|character|capacity|booked|"
    r"escape|mortgage|loans?|LPA|firmware|fleet|opera|fictional|series|watched|rewatched|mugs?|tea|pots?|cups?|"
    r"teapot|cócteles|"
    r"cocktail)\b)"
)


def _someones(key: str) -> bool:
    """A word that is a given name or a surname in the lexicons."""
    lex = lexicons()
    return key in lex.given or key in lex.surnames
