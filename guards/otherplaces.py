"""Places the English cues miss: after another language's preposition of place, and the world's seas, rivers,
mountain ranges and deserts in prose.

- `Isabella Rossi vive a Napoli`, `habite à Marseille`, `bor i Göteborg`,
  `sống ở Hà Nội`: a place's preposition in French, Italian, Spanish,
  Portuguese, German, Swedish, Dutch or Vietnamese before a capitalised name
  that is a place, a town, a region or a large city's name in another
  language (lexicon regions.txt). The preposition counts only where the
  sentence is in its language: two of that language's function words that
  are no English word around it (`vive`, `ma`, `lavora`), so `a Rome trip`
  and `en route` in English are not read.
- `banco de sangre de Sevilla`, `teatro comunale di Bologna`, `din Cotnari`:
  a place after a Romance language's `of` (French, Spanish, Italian,
  Portuguese, Romanian, Catalan), only after a common noun in lower case
  (`María de Sevilla` is a person's particle) and never a given name or a
  common surname unless a large city's or a region's.
- `the Andes`, `the Red Sea`, `near the Loire`, `die Alpen`: a well-known
  geographic feature (FEATURES, written from common knowledge: no pinned
  package lists them) after an article or a place's cue, not before a
  capitalised word or a system's (`Atlantic Records`, `Pacific Time`,
  `the Amazon S3 bucket`), and no cloud region's id on its line.

- `Berlin → Almaty`: both ends of a route, when the lexicons know both; `the
  river Severn`, `Lake Bled`, `Mount Kenya`: a name after a river's, a lake's
  or a mountain's word that is no ordinary word (`Lake Formation`).
- `Helsingissä`, `Budapesten`: a place with a Finnish or Hungarian case
  ending, where the language's function words are around.
- `eDurban`, `e-Durban`, `n'Enugu`, `taga-Cebu`: a place the lexicons know
  after a Zulu, Xhosa, Igbo or Tagalog prefix of place written on it.
- `İzmir'de`, `Ankara'dan`: a place the lexicons know before a Turkish case
  suffix after an apostrophe; `Samarqanddagi`: a large city with Uzbek's
  locative written onto it; `in Nova Scotia`, `from Bretagne`: a
  subdivision or another language's city name (regions.txt) after an
  English place's preposition; `w Krakowie`, `z Gdańska`: in Polish and
  Czech, a place with its case ending.

A place found so replaces a person's reading of the same words (`em Lisboa`:
`Lisboa` is a surname too).
"""

from __future__ import annotations

import re

from . import cues, deployments, languages, places
from . import systems as said
from .findings import Overlaps
from .kinds import LARGE_CITY, Kinds
from .lexicons import Lexicons, fold
from .lexicons import words as _words
from .scriptplaces import where_systems_run

Span = tuple[str, int, int]

# each language's prepositions of place, and function words of it that are no English word
_LANGUAGES = {
    "fr": ("à au aux en vers depuis pour", "le les des du une est et dans mais avec pour sur chez elle il ses sa "
           "habite vit travaille depuis sont était grand-mère ans parti partie né née où qui ont avait son au un leur "
           "nous vous cette aussi très été passé enfance"),
    "it": ("a ad in da verso", "il gli della di che ma vive lavora sono è con una tre giorni settimana nel alla anche "
           "ha suo sua dopo anni passati dal nella sul"),
    "es": ("en a desde hacia", "el los las vive y pero con para una del que es trabaja desde hacia su sus vende "
           "nació pueblo cerca nunca quiso vivir"),
    "pt": ("em no na nos nas para desde", "os em na da vive mora com para uma que é trabalha hoje marido nasceu "
           "cresceu perto beira"),
    "de": ("nach aus in durch", "der das dem und ist nach aus bei mit wohnt lebt arbeitet jedes jahr durch bis seit "
           "sie zog zurück studium"),
    "sv": ("i från till", "och bor på från är med hon han jag vi ska inte som har vill det kunden måndag tisdag onsdag "
           "torsdag fredag lördag söndag"),
    "nl": ("naar uit in bij", "en het een woont werkt naar uit zijn maar ouders komen jaar woonde heeft"),
    "vi": ("ở", "sống ở nhưng quê làm việc"),
    "pl": ("w we z ze do na od po pod koło przy obok", "że się nie jest mówi znowu mieszka pracuje jego jej który "
           "która biura był była ten sam tego oraz już jak ale często pochodzi teraz jeździ mieszkała urodził urodziła "
           "pani pan dziś jutro wczoraj będzie jestem są przez wróci"),
    "cs": ("v ve z ze do na", "že se není je bydlí pracuje jeho její který která byl byla také už jak jako teď "
           "pořád narodila narodil studuje psal psala bydlela ještě zákazník paní pan čeká prosím nebo pro kde dnes "
           "zítra"),
    "no": ("på i fra til utenfor ved", "og bor er med hun han om mellom sommeren jobber kommer skal ikke hvor"),
    "ms": ("di ke dari", "dan sejak setiap tinggal pulang yang bekerja"),
    "tl": ("mula sa papuntang", "ay ng para isang lumipat nakatira"),
    "da": ("i fra til på", "og bor er med hun han har det en et som af ikke boede flyttede arbejder"),
    "sl": ("v na iz pri do", "je in da se so pa ki živi dela delala dela kot poleti pozimi njegova njena"),
    "hr": ("u na iz do kod", "je i da se su ali živi radi rođen rođena njegova njezina sada"),
    "sk": ("v vo z zo do na", "je a sa nie býva pracuje jeho jej ktorý ktorá bol bola teraz"),
    "lt": ("iš į ties prie iki", "ir yra kad su ne bet jau dabar gyvena dirba gavėjas užsakymas labai"),
    "ro": ("în la spre", "și este sunt lucrează locuiește un o cu pentru care a fost nou nouă cel mai după"),
    "ca": ("a en cap", "el la els les i és són va treballa viu amb per una dels del que aquest aquesta"),
}  # fmt: skip
# each Romance language's preposition of origin or belonging (`of`), which precedes a place and a person's
# surname alike (`de Sevilla`, `de la Cruz`): a place after it only after a common noun (`banco de sangre de
# Sevilla`, `teatro comunale di Bologna`, `cooperativa do Douro`), not after a given name (`María de Sevilla`)
_OF = {
    "fr": "de du des",
    "es": "de del",
    "it": "di del della dello dei",
    "pt": "de do da dos das",
    "ro": "din",
    "ca": "de del dels",
}
# the case endings of Polish and Czech places: `w Krakowie` (Kraków), `z Gdańska`, `we Wrocławiu`, `z Łodzi`
_ENDINGS = (
    ("owie", "ow"),
    ("iu", ""),
    ("ie", "a"),
    ("ie", ""),
    ("a", ""),
    ("u", ""),
    ("i", ""),
    ("y", "a"),
    ("e", "a"),
    ("ne", "no"),  # Czech: `v Brně` (Brno)
    ("em", ""),  # Polish: `pod Tarnowem` (Tarnów)
    ("iem", ""),  # Polish, after k and g: `pod Gdańskiem` (Gdańsk)
    ("m", ""),  # Polish: `w Zakopanem` (Zakopane)
    ("ku", "k"),  # Polish: `w Gdańsku` (Gdańsk)
    ("a", "o"),  # Czech: `z Brna` (Brno)
    ("ni", "en"),  # Czech: `v Plzni` (Plzeň)
    ("ze", "ha"),  # Czech: `v Praze` (Praha)
    ("i", "ia"),  # Polish: `z Gdyni` (Gdynia)
    ("y", ""),  # Polish: `z Bydgoszczy` (Bydgoszcz)
    ("e", ""),  # Czech: `do Olomouce` (Olomouc)
    ("nia", "n"),  # Polish: `z Poznania` (Poznań)
    ("ia", ""),  # Polish: `do Wrocławia` (Wrocław)
    ("niu", "n"),  # Polish: `w Toruniu` (Toruń)
    ("i", "a"),  # Slovene, Croatian: `v Ljubljani` (Ljubljana)
    ("ci", "ka"),  # Croatian: `u Rijeci` (Rijeka)
    ("iach", "e"),  # Slovak: `v Košiciach` (Košice)
    ("ego", "e"),  # Polish: `z Zakopanego` (Zakopane)
    ("ne", "en"),  # Czech: `z Vídně` (Vídeň)
    ("o", "as"),  # Lithuanian: `iš Kauno` (Kaunas)
    ("e", "as"),  # Lithuanian: `Kaune`
    ("iaus", "ius"),  # Lithuanian: `iš Vilniaus` (Vilnius)
    ("iuje", "ius"),  # Lithuanian: `Vilniuje`
    ("os", "a"),  # Lithuanian: `iš Klaipėdos` (Klaipėda)
    ("oje", "a"),  # Lithuanian: `Klaipėdoje`
    ("ach", "e"),  # Polish: `w Katowicach` (Katowice)
    ("kach", "ki"),  # Polish: `w Mikołajkach` (Mikołajki)
    ("cie", "t"),  # Polish: `w Sopocie` (Sopot)
    ("ce", "ka"),  # Polish: `w Wieliczce` (Wieliczka)
    ("c", "ce"),  # Polish, Czech, Slovak: `z Katowic` (Katowice), `z Košíc` (Košice)
)
# Croatian's and Serbian's fleeting a, read on a city of FLEETING_CITY people or more only (surnames take these
# endings too: `od Sokala`, `kod Demka`): `u Zadru` (Zadar), `u Karlovcu`, `iz Karlovca` (Karlovac)
_FLEETING = (("ru", "ar"), ("cu", "ac"), ("ca", "ac"))
FLEETING_CITY = 40_000
# the endings a woman's name in -a takes in the Slavic languages (`Božena`: `Boženu`, `Boženy`, `Boženě`, `Boženou`)
_NAME_ENDINGS = ("ou", "u", "y", "e", "i", "ie")  # (folded: `Boženě` is `bozene`)
_LITHUANIAN = frozenset([("o", "as"), ("e", "as"), ("iaus", "ius"), ("iuje", "ius"), ("os", "a"), ("oje", "a")])
# the languages whose places take a case ending after a preposition: Polish, Czech, Slovak, Slovene, Croatian,
# Lithuanian
_INFLECTED = frozenset({"pl", "cs", "sk", "sl", "hr", "lt"})
# prepositions of place that are no English word nor a code's, in one language: read before a large city or a
# region whatever else the line says (the Nordic languages' `fra`, `från`: `// kunde fra Bergen`)
_DISTINCT = _words("à au aux en vers aus nach desde hacia verso uit naar în ở fra från")
# the Nordic languages' `i` (in) is `and` in the Slavic languages and Catalan, and `til` (to) is English's `until`:
# before a large city no one is named after, written in lower case after no English word, a place either way
# (`kunde i Bergen`, `z Katowic i Krakowa`); not before a given name (`Anna i Sofia`, `wait til Austin replies`)
# nor after an English word (`when i Split the file`)
_NORDIC = frozenset(["i", "til"])
# Slavic prepositions that are no English word nor a variable's usual name, before a place with its case ending
_SLAVIC_DISTINCT = _words("z ze iz we ve od pri kod iš")  # (and Lithuanian's `iš`, from)
# English prepositions before a region's or another language's city name: `in Nova Scotia`, `from Bretagne`
_ENGLISH = _words("in from near to at around visiting across through throughout towards toward")
_PREPOSITIONS = {lang: _words(preps) for lang, (preps, _) in _LANGUAGES.items()}
_FUNCTION_WORDS = {lang: _words(words) for lang, (_, words) in _LANGUAGES.items()}
_OF_PREPOSITIONS = {lang: _words(preps) for lang, preps in _OF.items()}
_ALL_OF = frozenset().union(*_OF_PREPOSITIONS.values())
_ALL_PREPOSITIONS = frozenset().union(*_PREPOSITIONS.values()) | _ENGLISH | _ALL_OF
_INFLECTED_PREPOSITIONS = frozenset().union(*(_PREPOSITIONS[lang] for lang in _INFLECTED))
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_NAME = r"[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]*(?:-[^\W\d_]+)*"
_PARTICLE = r"(?:(?:de|del|da|do|di|la|le)[ \t]+)?"
_PLACE_AFTER = re.compile(rf"(?<![\w\-])(\w+)[ \t]+({_NAME}(?:[ \t]+{_PARTICLE}{_NAME}){{0,2}})")
_SENTENCE = 160  # characters either side in which a language's words are counted

FEATURES = _words(
    # oceans and seas
    "atlantic pacific arctic mediterranean caribbean baltic adriatic aegean caspian bosphorus dardanelles "
    "red_sea north_sea black_sea dead_sea south_china_sea irish_sea coral_sea tasman_sea arabian_sea "
    "english_channel persian_gulf gulf_of_mexico bay_of_bengal bay_of_biscay indian_ocean southern_ocean "
    # mountain ranges and mountains
    "alps alpen alpes alpi andes himalayas himalaya rockies pyrenees pyrenäen pyrénées dolomites dolomiten "
    "dolomiti carpathians karpaten apennines appalachians urals caucasus atlas_mountains tatras hindu_kush "
    "western_ghats eastern_ghats drakensberg kilimanjaro everest mont_blanc matterhorn fuji aconcagua "
    "blue_mountains scottish_highlands sierra_nevada table_mountain zugspitze ben_nevis snowdon scafell_pike "
    "ben_lomond denali mount_rainier etna vesuvius "
    # rivers
    "nile ganges ganga danube donau rhine rhein loire seine thames mekong yangtze volga zambezi niger congo "
    "mississippi orinoco tagus tejo douro elbe vistula wisła brahmaputra indus euphrates tigris amazonas "
    "rio_amazonas rio_grande okavango limpopo "
    # deserts, plains and other regions people travel through
    "sahara kalahari namib gobi atacama mojave sonora outback empty_quarter rub_al_khali serengeti patagonia "
    "siberia scandinavia balkans lapland sinai negev garden_route great_barrier_reef fjordland fiordland "
    "camargue provence tuscany toscana bretagne brittany normandy andalusia algarve "
    # islands and regions people live on and travel to, and lakes and uplands in the languages written of them
    "azores açores acores madeira canarias canary_islands mallorca majorca ibiza menorca sicily sicilia sardinia "
    "sardegna corsica corse crete santorini mykonos naxos rhodes zanzibar lofoten skye hebrides orkney shetland "
    "tasmania hokkaido okinawa jeju bodensee gardasee chiemsee harz ruhrgebiet schwarzwald black_forest eifel "
    "allgäu lake_district cotswolds pilbara kimberley riviera high_atlas high_tatras tatry"
)
# articles, and prepositions an article is written into (`do Douro`, `della Toscana`, `du Rhône`)
_ARTICLE = _words(
    "the die der den la le el il lo o a les los las des du nos nas aux au am im på sur do da dos das "
    "del della dello dei al"
)
_NOT_AFTER = re.compile(r"/|[ \t]+(?:[A-Z]\w*|time|standard|records|airlines?|ocean\w*|s3|bucket|region\b[^\n]*-\d)")


def other_places(kinds: Kinds, text: str, taken: list[Span]) -> list[Span]:
    """The places in `text` after another language's preposition, and its well-known geographic features, apart
    from what `taken` holds other than people (a person's reading of the same words gives way to them)."""
    out: list[Span] = []
    if any(c.isupper() for c in text):
        out += _after_prepositions(kinds, text)
        out += _features(kinds, text)
        out += _suffixed(kinds, text) if "'" in text or "’" in text else []
        out += _turkic(kinds, text)
        out += _agglutinated(kinds, text)
        out += _routes(kinds, text) if "→" in text or "->" in text else []
        out += _listed(kinds, text) if "[" in text and '", "' in text else []
        out += _named_features(kinds, text)
        out += _sites(kinds, text)
        out += _prefixed(kinds, text)
        out += [("LOCATION", *m.span(1)) for m in _CITY_WORD_AFTER.finditer(text)]
        out += _hyphenated(kinds, text) if "-" in text else []
        out += _city_quarters(kinds, text) if "-" in text else []
        out += [("LOCATION", *m.span()) for m in _VIETNAMESE_DISTRICT.finditer(text)]
        out += _sainted(kinds, text) if "S" in text else []
        out += _counties(kinds, text) if "Co" in text else []
        out += [("LOCATION", *m.span("name")) for m in _MUTATED.finditer(text) if _irish_or_welsh(text, m.start())]
        out += _welsh_softened(kinds, text) if _WELSH_HINT.search(text) else []
    if _HUNGARIAN_HINT.search(text):
        out += _hungarian_adjectives(kinds, text)
    out = list(dict.fromkeys(out))  # a place both a preposition and a feature find (`in Toscana`) is one
    out = [span for span in out if text[span[1] : span[2]].lower() not in cues.NEVER_ALONE]  # `Lūdzu`, please
    kept = Overlaps(span for span in taken if span[0] != "PERSON")
    return [span for span in out if not kept.over(span[1], span[2]) and not cues.time_zone_area(text, *span[1:])]


def _hyphenated(kinds: Kinds, text: str) -> list[Span]:
    """Towns named with a particle of place between hyphens whose name, or its part before the particle or after
    it, the lexicons know (`Saint-Savin-sur-Gartempe`: Saint-Savin; `Roquefort-sur-Soulzon`); not a compound noun
    (`Mise-en-Prod`, `Arc-en-Ciel`) nor a person's name (`Jean-Pierre-le-Moal`), nor on a line about systems."""
    out: list[Span] = []
    for m in _HYPHENATED_PLACE.finditer(text):
        words = m.group().split("-")
        cut = next(i for i, w in enumerate(words) if w in _HYPHEN_PARTICLES)
        parts = [fold("-".join(words)), fold("-".join(words[:cut])), fold("-".join(words[cut + 1 :]))]
        if kinds.given(fold(words[0])) == 2 or not any(kinds.lex.knows_place(part) for part in parts):
            continue
        if not where_systems_run(text, *m.span()):
            out.append(("LOCATION", *m.span()))
    return out


def _city_quarters(kinds: Kinds, text: str) -> list[Span]:
    """A large city's name and its quarter's, joined by a hyphen (`Düsseldorf-Oberkassel`); not a person's double
    surname (the city's name no one's) nor a route between two cities (`Berlin-Hamburg`)."""
    out: list[Span] = []
    for m in _CITY_QUARTER.finditer(text):
        city, quarter = fold(m.group("city")), fold(text[m.end("city") + 1 : m.end("name")])
        if not kinds.large_city(city) or kinds.given(city) or city in kinds.lex.surnames:
            continue
        if kinds.lex.knows_place(quarter) and kinds.large_city(quarter):
            continue  # `Berlin-Hamburg`: a route, two places
        if not where_systems_run(text, *m.span("name")):  # (not `the "Mexico-Norte" zone`)
            out.append(("LOCATION", *m.span("name")))
    return out


def _after_prepositions(kinds: Kinds, text: str) -> list[Span]:
    out: list[Span] = []
    lex = kinds.lex
    at = 0
    while (m := _PLACE_AFTER.search(text, at)) is not None:
        # the next search starts after the name's first word: a place found in part (`z Brna` of `z Brna do
        # Olomouce`, whose `do` reads as a particle) leaves the rest to read
        at = m.start(2) + len(m.group(2).split()[0])
        prep = m.group(1).lower()
        if prep not in _ALL_PREPOSITIONS:
            continue
        # `Henrique Gouveia, de Coimbra,`: after a comma `de` is where someone is from, no surname's particle
        after_comma = text[max(0, m.start() - 2) : m.start()].rstrip(" \t").endswith(",")
        after_noun = prep not in _ALL_OF or after_comma or _after_common_noun(kinds, text, m.start())
        if not after_noun and not any(prep in preps for preps in _PREPOSITIONS.values()):
            continue  # `de` after a given name or a capital: a person's particle
        a, b = m.span(2)
        tokens = [t.end() for t in re.finditer(r"\S+", text[a:b])]
        # the longest run of the name's words that is a place: `Ciudad de México`, `Aix-en-Provence`
        for end in (a + t for t in reversed(tokens)):
            key = " ".join(fold(text[a:end]).split())
            english = prep in _ENGLISH and key in lex.regions and key not in lex.given
            known = lex.knows_place(key)
            # `do Warszawy`: Warszawa is a large city's name in Polish
            inflected = not known and prep in _INFLECTED_PREPOSITIONS and _inflected(kinds, key)
            if not (known or inflected):
                continue
            if " " not in key and kinds.given(key) == 2 and _SURNAME_AFTER.match(text, end):
                break  # `till Karin Lundgren`: a given name and its surname, not the place `Karin`
            language = None if english else _language(text, m.start(), prep)
            # (a region's other name that is a given name too is no more sure: `aus Athena`, a product's)
            large = kinds.large_city(key) or (key in lex.regions and not kinds.given(key))
            distinct = prep in _DISTINCT or (
                m.group(1) in _NORDIC and kinds.given(key) < 2 and not _english_before(kinds, text, m.start())
            )
            if language is None and distinct and large and not kinds.product(key):
                # `antiquaire à Lyon`, `chocolatier uit Gent`: a preposition no English word, before a large city
                language = next(lang for lang, (preps, _) in _LANGUAGES.items() if prep in preps.split())
            if inflected and language is None and prep in _SLAVIC_DISTINCT:
                # a line too short to tell its language (`skupina z Brna dorazí`, `Urška iz Maribora`): the
                # preposition's own, a place the lexicons know with a case ending no name takes
                language = next((lang for lang in sorted(_INFLECTED) if prep in _PREPOSITIONS[lang]), None)
            if inflected and language not in _INFLECTED:
                continue
            if language and prep not in _PREPOSITIONS.get(language, ()) and (not after_noun or _personal(kinds, key)):
                break  # `María de Sevilla`; `de Victoria` after a noun may be a person's surname
            if (english or language) and not deployments.deployment(text, a, end, lex.products):
                out.append(("LOCATION", a, end))
            break
    return out


_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+\Z")
_SURNAME_AFTER = re.compile(r"[ \t]+[A-ZÀ-ÖØ-ÞĀ-ſ][a-zß-öø-ÿā-ž]+(?:-[A-ZÀ-ÖØ-ÞĀ-ſ][a-zß-öø-ÿā-ž]+)?(?![\w\-])")


def _english_before(kinds: Kinds, text: str, at: int) -> bool:
    """The word before text[at] is an English word, or none is (`when i Split`, a line's first word)."""
    m = _WORD_BEFORE.search(text, max(0, at - 40), at)
    return m is None or fold(m.group(1)) in kinds.lex.words


def _after_common_noun(kinds: Kinds, text: str, at: int) -> bool:
    """The word before text[at] is a common noun of a line's prose: lower case, no given name, and no system's
    (`le serveur de Lyon`, `il database di Milano` name where a system runs)."""
    m = _WORD_BEFORE.search(text, max(0, at - 40), at)
    if m is None or not m.group(1).islower() or m.group(1) in _SYSTEM_NOUNS:
        return False
    # an article before it makes a noun of a word that is a given name too (`el taller de Zaragoza`, Taller)
    return (
        kinds.given(fold(m.group(1))) < 2 or _NOUNS_ARTICLE.search(text, max(0, m.start(1) - 8), m.start(1)) is not None
    )


# the Romance languages' articles before a noun (`el taller`, `la casa`, `il negozio`, `o armazém`)
_NOUNS_ARTICLE = re.compile(r"(?<![\w\-])(?:el|la|los|las|un|una|il|lo|gli|le|les|du|o|os|as|um|uma)[ \t]+\Z")


# Romance nouns of systems, before `de`, `di`, `do`
_SYSTEM_NOUNS = _words(
    "serveur serveurs servidor servidores server servers servizio serviço serviços nodo nodi nó nós noeud nœud "
    "nœuds cluster clusters database databases base banco datacenter datacentre réseau rede red rete région "
    "región regione região zona zone instance instances instancia instancias istanza istanze"
)


def _personal(kinds: Kinds, key: str) -> bool:
    """A given name or a common surname, unless a large city's (in any language) or a region's: `Leon`; not
    `Lyon`, `Valencia`, `Lisboa`."""
    named = bool(kinds.given(key)) or kinds.common_surname(key)
    return named and not _large(kinds.lex, key) and key not in kinds.lex.regions


def _inflected(kinds: Kinds, key: str) -> bool:
    """`key` is a place the lexicons know with a Slavic case ending, and no one's name with one."""
    lex = kinds.lex
    stems = {_stem(key, ending, base) for ending, base in _ENDINGS} - {""}
    fleeting = {_stem(key, ending, base) for ending, base in _FLEETING} - {""} - stems
    fleeting = {x for x in fleeting if (place := lex.places.get(x)) is not None and place.population >= FLEETING_CITY}
    known = [x for x in stems if lex.knows_place(x)] + sorted(fleeting)
    if not known or kinds.given(key) or key in lex.surnames:
        return False
    # (not by a Lithuanian ending alone: `iš Reginos` is from Regina, a woman, far likelier than the city)
    slavic = {_stem(key, ending, base) for ending, base in _ENDINGS if (ending, base) not in _LITHUANIAN} - {""}
    if any(_large(lex, x) for x in known if x in slavic):
        return True  # `w Toruniu`, `v Bratislave`: Toruń and Bratislav are given names too, the cities are large
    # people's names take the same endings: `do Anny`, `od Martiny`, `do Jana`, `na Boženu` (Božena), `u Novaka`;
    # a name few people carry gives way only to a city (`do Žiliny`, Žilina; not `na Libuši`, Libuše)
    names = stems | {key[: -len(ending)] + "a" for ending in _NAME_ENDINGS if key.endswith(ending)}
    if any(kinds.given(x) == 2 for x in names):
        return False
    if any(x in lex.surnames for x in names):
        # a surname few people carry gives way only to a large city with Croatian's fleeting a (`u Zadru`: Zadra
        # is a rare surname; not `kod Sokala`, `od Melnika`)
        return bool(fleeting) and not any(kinds.common_surname(x) for x in names)
    return not any(kinds.given(x) for x in names) or any(x in lex.places for x in known)


def _large(lex: Lexicons, key: str) -> bool:
    place = lex.places.get(key)
    # a city this large with a case ending is the city, though the stem is a given name too
    return place is not None and (place.kind != "city" or place.population >= LARGE_CITY)


def _stem(key: str, ending: str, base: str) -> str:
    stem = key[: -len(ending)] + base if key.endswith(ending) else ""
    return stem if len(stem) > 3 else ""  # `Brně` is `Brno`


def _language(text: str, at: int, prep: str) -> str | None:
    """The language whose preposition `prep` is, around text[at]: the language identifier's when it is sure of
    one, else the language two of whose function words at least are around."""
    identified = languages.language_at(text, at, _SENTENCE, kin=True)
    if identified is not None:
        return identified if _of_language(prep, identified) else None
    line_start = text.rfind("\n", max(0, at - _SENTENCE), at) + 1
    line_end = text.find("\n", at, at + _SENTENCE)
    window = text[max(line_start, at - _SENTENCE) : line_end if line_end >= 0 else at + _SENTENCE].lower()
    words = set(_WORD.findall(window)) - {prep}
    for lang in _PREPOSITIONS:
        if _of_language(prep, lang) and len(words & _FUNCTION_WORDS[lang]) >= 2:
            return lang
    return None


def _of_language(prep: str, lang: str) -> bool:
    return prep in _PREPOSITIONS.get(lang, ()) or prep in _OF_PREPOSITIONS.get(lang, ())


# each feature by its first word: `red` -> (`red`, `sea`); looked up from the text's capitalised words
_BY_FIRST: dict[str, list[tuple[str, ...]]] = {}
for _feature in sorted(FEATURES, key=lambda f: -f.count("_")):
    _BY_FIRST.setdefault(_feature.split("_")[0], []).append(tuple(_feature.split("_")))
_CAPITALISED = re.compile(r"(?<![\w\-])[A-ZÀ-Þ][^\W\d_]*")
_NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)")


# a place's name of several words joined by hyphens around a particle of place, as French and English towns are
# named (`Saint-Savin-sur-Gartempe`, `Villaines-les-Rochers`, `Châlons-en-Champagne`, `Stratford-upon-Avon`): no
# one's name nor product's is built so (not `on`: `Ruby-on-Rails`)
_HYPHEN_PARTICLES = ("sur", "sous", "lès", "les", "lez", "en", "le", "la", "aux", "upon", "under")
_HYPHENATED_PLACE = re.compile(
    rf"(?<![\w\-/.@])(?:[A-ZÀ-Þ][a-zà-ÿ]+-){{1,3}}(?:{'|'.join(_HYPHEN_PARTICLES)})"
    r"(?:-[A-ZÀ-Þ][a-zà-ÿ]+){1,3}(?![\w\-/.@])"
)
# a large city and its quarter, joined by a hyphen, after a place's preposition: `in Düsseldorf-Oberkassel`,
# `naar Rotterdam-Zuid` (not a service's or a host's name: `Leipzig-Gateway`, `Lisbon-Alpha`)
_CITY_QUARTER = re.compile(
    r"(?<![\w\-/.@])(?:in|im|aus|nach|bei|von|from|to|at|near|en|à|de|naar|uit|te|i|w|v|u|na|z)[ \t]+"
    r"(?P<name>(?P<city>[A-ZÀ-Þ][a-zà-ÿ]+)-[A-ZÀ-Þ][a-zà-ÿ]{2,})(?![\w\-/.@])"
)
# a Vietnamese city's district by its number: `ở Quận 1, TP.HCM`, `Phường 12` (a district's name after the word is
# as often followed by an official's: `Chủ tịch Phường Bến Nghé Nguyễn Văn An`)
_VIETNAMESE_DISTRICT = re.compile(r"(?<![\w])(?:Quận|Huyện|Phường)[ \t]+\d{1,2}(?!\d)(?![.,]\d)")


# a name before the Turkic languages' `city` with its case ending: `Samarqand shahridagi`, `Bakı şəhərindəki`,
# `Konya şehrinde`, `Алматы қаласында`
_CITY_WORD_AFTER = re.compile(
    r"(?<![\w\-])([A-ZÀ-ÞİŞÇĞÖÜƏА-ЯЁӘҒҚҢӨҰҮҺІ][\w'’\-]{2,})[ \t]+"
    r"(?:şehr|shahr|şəhər|қалас)[\wçğıöşüəғқңөұүһі]*(?![\w])"
)


def _features(kinds: Kinds, text: str) -> list[Span]:
    out: list[Span] = []
    for m in _CAPITALISED.finditer(text):
        shapes = _BY_FIRST.get(m.group().lower())
        if shapes is None:
            continue
        a = m.start()
        b = next((end for shape in shapes if (end := _spelled(text, m.end(), shape[1:])) is not None), None)
        if b is None or text[a - 1 : a] == "/" or _NOT_AFTER.match(text, b) or said.tech_after(text, b):
            continue
        before = cues.word_before(text, a)
        if before not in _ARTICLE and not cues.place_before(text, a):
            continue
        if deployments.REGION_ID.search(text, max(0, a - 80), b + 80):
            continue
        out.append(("LOCATION", a, b))
    return out


def _spelled(text: str, b: int, rest: tuple[str, ...]) -> int | None:
    """Where the words `rest` end if they follow text[:b] (any case), else None."""
    for word in rest:
        match = _NEXT_WORD.match(text, b)
        if match is None or match.group(1).lower() != word:
            return None
        b = match.end()
    return b


# a Turkish place with its case suffix after an apostrophe: `İzmir'de`, `Ankara'dan`, `Trabzon'a`
_TURKISH = re.compile(
    r"(?<![\w\-])([A-ZÇĞİÖŞÜ][^\W\d_]+)['’](?:da|de|ta|te|dan|den|tan|ten|a|e|ya|ye|na|ne|ı|i|u|ü|yı|yi|yu|yü|"
    r"ın|in|un|ün|nın|nin|nun|nün|la|le|lı|li|lu|lü|daki|deki|taki|teki|dakiler|dekiler)(?![\w\-])"
)


def _suffixed(kinds: Kinds, text: str) -> list[Span]:
    out: list[Span] = []
    for m in _TURKISH.finditer(text):
        key = fold(m.group(1))
        if kinds.lex.knows_place(key):
            out.append(("LOCATION", *m.span(1)))
    return out


# Uzbek's and Kazakh's locative-adjective, genitive and dative written onto a large place's
# name in Latin letters: `Samarqanddagi` (in Samarkand), `Toshkentning` (Tashkent's), `Samarqandga` (to Samarkand)
_TURKIC = re.compile(r"(?<![\w\-])([A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]{3,}?)(?:dagi|dagilar|tagi|ning|ga|gacha)(?![\w\-])")


def _turkic(kinds: Kinds, text: str) -> list[Span]:
    return [
        ("LOCATION", *m.span())
        for m in _TURKIC.finditer(text)
        if (kinds.large_city(fold(m.group(1))) or fold(m.group(1)) in kinds.lex.regions)  # (`Samarqand`, `Toshkent`)
        and not _named(kinds, fold(m.group()))  # not a name so ending (`Kianga`, `Baliga`)
    ]


# Finnish, Hungarian, Estonian, Latvian and Lithuanian put `in`, `from`, `to` on the place's end: `Helsingissä`,
# `Tampereelta`, `Budapesten`, `Debrecenben`, `Tallinnas`, `Tartusse`, `Siguldu`, `Vilniuje`, `Kauno`. Read where
# the language identifier is sure of the language (or, where it is unsure, two of the language's function words
# that are no English word are near): the place is the word with its ending, when the stem is a place the lexicons
# know. An ending is written folded (no accents), `ending>base` where the place's own ending changes (Lithuanian
# `Vilniuje` is `Vilnius`).
_CASES = {
    "fi": (
        "ssa ssä sta stä lla llä lta ltä lle seen siin hin n",
        "ja ei että mutta hän hänen asuu asuvat asui vanhempansa kun ovat oli myös nyt vuonna työskentelee "
        "muutti syntyi kesällä joka minä sinä meidän heidän lähti matkusti takaisin koko perhe",
    ),
    "hu": (
        "ban ben ba be ból ből ra re ról ről on en ön n nál nél hoz hez höz tól től ig ba",
        "és hogy nem él lakik dolgozik született nyáron minden évben volt egy már még után óta között "
        "költözött szülei családja utazott tavaly jövőre ment él itt ott",
    ),
    "et": ("s sse st l lt le ni ga", "ja ei aga elab elavad töötab tema vanemad kolis käib suviti ka"),
    "lv": ("u>a as>a", "un ir dzīvo strādā brauc uz viņa viņš ar"),
    "is": ("i", "og er í á frá til hjá með sem hún hann býr vinnur rekur bjó"),  # `á Selfossi` (Selfoss)
    "lt": (
        "iuje>ius oje>a uje>us iaus>ius o>as e>as",
        "ir yra gyvena dirba jos jo brolis sesuo iš į kad su",
    ),
}


def _endings(endings: str) -> list[tuple[str, str]]:
    """`iuje>ius oje>a s` as (ending, the place's own ending), the longest first, folded as the words they are
    matched against are (`ből` is `bol`)."""
    pairs = sorted({(fold(ending), fold(base)) for ending, _, base in (e.partition(">") for e in endings.split())})
    return sorted(pairs, key=lambda pair: -len(pair[0]))


_CASE_ENDINGS = {lang: _endings(endings) for lang, (endings, _) in _CASES.items()}
_CASE_WORDS = {lang: _words(words) for lang, (_, words) in _CASES.items()}
# the stem's own changes before an ending: Finnish `Helsingi-` (Helsinki), `Tampere-e-`; Hungarian `Szentendré-`
# Finnish `Rovaniemelle` (Rovaniemi)
_GRADATION = (("ngi", "nki"), ("nni", "nti"), ("mme", "mpe"), ("lli", "lti"), ("rri", "rti"), ("e", "i"))
_CAPITALISED_WORD = re.compile(r"(?<![\w\-])[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]{3,}")


def _agglutinated(kinds: Kinds, text: str) -> list[Span]:
    out: list[Span] = []
    lex = kinds.lex
    for m in _CAPITALISED_WORD.finditer(text):
        key = fold(m.group())
        given = kinds.given(key)
        if given == 2 or (given and not m.group().endswith("ā")):
            continue  # a person's name (`Mäkinen`)
        if key in lex.places or key in lex.towns:
            # the name as written: the other readers' to find, but for Latvian's locative, which folding takes off
            # (`dzīvo Rīgā`)
            if m.group().endswith("ā") and _agglutinating(text, m.start()) == "lv":
                out.append(("LOCATION", *m.span()))
            continue
        # the languages in which the word is a place with an ending; asked of the text only when there is one
        known = {
            lang: place for lang, endings in _CASE_ENDINGS.items() if (place := _place_of(key, endings, lex, lang))
        }
        if key in lex.surnames:  # `Kaune` is a surname too: the place only when it is a large one (`Kaunas`)
            known = {lang: place for lang, place in known.items() if _large(lex, place)}
        if known and (_agglutinating(text, m.start()) or _written_ending(m.group())) in known:
            out.append(("LOCATION", *m.span()))
    return out


# endings with letters only one of these languages writes: read where the line is too short to tell its language
# (`megjött Debrecenből`)
_DISTINCT_ENDINGS = {"hu": ("ből", "ból", "ről", "ról", "től", "tól", "nál", "nél", "höz", "ében", "ában")}


def _written_ending(word: str) -> str | None:
    """The language whose own letters end `word`, as written (not folded)."""
    return next((lang for lang, endings in _DISTINCT_ENDINGS.items() if word.endswith(endings)), None)


def _place_of(key: str, endings: list[tuple[str, str]], lex: Lexicons, language: str) -> str | None:
    """The place `key` names with one of a language's `endings`, if any."""
    return next((place for ending in endings if (place := _stems(key, ending, lex, language))), None)


def _stems(key: str, ending: tuple[str, str], lex: Lexicons, language: str) -> str | None:
    """The place the lexicons know that `key` is with `ending` taken off (and the place's own ending put back)."""
    suffix, base = ending
    if not key.endswith(suffix) or len(key) < len(suffix) + 3:
        return None
    if suffix == "n" and language == "fi" and key[-2] != key[-3]:
        return None  # Finnish `n` alone only after a doubled vowel, into a place: `Jyväskylään`, `Ouluun`
    stem = key[: -len(suffix)]
    if base:
        return stem + base if lex.knows_place(stem + base) else None
    candidates = {stem, stem[:-1]}
    candidates |= {stem[: -len(a)] + b for a, b in _GRADATION if stem.endswith(a)}
    return next((c for c in sorted(candidates) if len(c) > 2 and lex.knows_place(c)), None)


def _agglutinating(text: str, at: int) -> str | None:
    """The language around text[at]: the language identifier's when it is sure of one, else the language two of
    whose function words at least are near."""
    identified = languages.language_at(text, at, _SENTENCE, kin=True)
    if identified is not None:
        return identified
    window = text[max(0, at - _SENTENCE) : at + _SENTENCE].lower()
    words = set(_WORD.findall(window))
    for lang, function in _CASE_WORDS.items():
        if len(words & function) >= 2:
            return lang
    return None


def _sites(kinds: Kinds, text: str) -> list[Span]:
    """Another language's name of a city before a site people work at: `the Napoli warehouse`, `our Lisboa
    office` (the English name's the other readers')."""
    out: list[Span] = []
    lex = kinds.lex
    for m in _CAPITALISED.finditer(text):
        key = fold(m.group())
        if key in lex.places or key not in lex.regions or not places.site_after(text, m.end()):
            continue
        if kinds.given(key) or kinds.product(key) or key in lex.words or len(key) < 4:
            continue  # `the Meta team`, `the Athena office`: regions.txt's short and other names
        if not deployments.deployment(text, m.start(), m.end(), lex.products):
            out.append(("LOCATION", *m.span()))
    return out


# a place named after a saint: `San Tomà`, `Santa Sofia`, `Sant Cugat`, `São Roque`, `St. Louis`, `Saint-André`,
# `San Carlos de Bariloche`; not a building or a club named so (`St Mary's`, `Sankt Georgen Hall`, `St. Louis
# Cardinals`); read only where a place's cue stands by it (_sainted)
_SAINTED = re.compile(
    r"(?<![\w\-/.@'’])(?:San|Santa|São|Sant|Sankt|Saint|Sainte|St\.?|Ste\.)(?:[ \t]|-(?=[A-ZÀ-Þ]))"
    r"[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:-[A-Za-zÀ-ÿ][a-zß-öø-ÿ]+)*"
    r"(?:[ \t](?:de|da|do|dos|das|di|del|della|de[ \t]la|de[ \t]las|de[ \t]los|im|am|an[ \t]der|sur|en)[ \t]"
    r"[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)?"
    r"(?![\w\-'’]|[ \t]*['’]s\b|[ \t]+[A-ZÀ-ÖØ-Þ0-9])"
)
# a place's preposition right before (`en San Telmo`, `from Saint-Émilion`, `usine de Saint-André`): not `to`, nor
# `a` (`a Saint Bernard puppy`), said to people and of breeds as often
_SAINT_AFTER = _ALL_PREPOSITIONS - {"to", "a"}
# a stop, a station, a quarter after the name: `the San Tomà stop`
_STOP_AFTER = re.compile(
    r"[ \t]+(?:stop|stops|station|stazione|fermata|estación|estacion|quarter|district|neighbourhood|neighborhood|"
    r"barrio|bairro|sestiere)(?![\w\-])"
)
# a place's key right before: `stop=Santa Sofia`, `home_port: St. Louis`, `"stazio": ["San Marco"`, `city,`
_PLACE_KEY_BEFORE = re.compile(
    r"(?i:\b(?:[\w]*_)?(?:stop|station|stazio|stazione|city|town|ciudad|cidade|citt[aà]|ville|stadt|ort|locality|"
    r"location|port|home_?port|birthplace|hometown|village|comune|municipio|district|county))"
    r"[\"']?[ \t]*[:=][ \t]*[\[\"'(]*[ \t]*\Z"
)
# what stands before a saint's name that is a building's, a ship's or a feast's: `église Saint-Michel`, `Kirche St.
# Emmeram`, `MV St. Brendan` (folded)
_SAINT_NOT_AFTER = _words(
    "church chapel cathedral basilica abbey parish priory eglise chapelle cathedrale basilique abbaye paroisse "
    "kirche kapelle munster kloster stift iglesia capilla catedral parroquia ermita chiesa cappella cattedrale pieve "
    "igreja capela paroquia kosciol kaplica katedra parafia kerk kapel kyrka kirke kirkko mv ms hms ss rv"
)
# a feast's saint (`Per Sant Jordi`, `la Saint-Valentin`, `San Silvestro`) and Santa Claus (folded)
_FEASTS = _words("jordi valentin valentino valentine patrick silvestro sylvestre silvester fermin claus")
# an Irish county after its abbreviation or its word: `Mallow, Co. Cork`, `County Kerry` (not a firm's `& Co.`)
_IRISH_COUNTY = re.compile(
    r"(?<![&+][ \t])(?<![\w\-])(?:Co\.|County)[ \t]+(?:Antrim|Armagh|Carlow|Cavan|Clare|Cork|Derry|Donegal|"
    r"Down|Dublin|Fermanagh|Galway|Kerry|Kildare|Kilkenny|Laois|Leitrim|Limerick|Longford|Louth|Mayo|Meath|Monaghan|"
    r"Offaly|Roscommon|Sligo|Tipperary|Tyrone|Waterford|Westmeath|Wexford|Wicklow)(?![\w\-])"
)
# a town's county: `Lubbock County` (not a county's office: `Lubbock County Sheriff`)
_COUNTY = re.compile(r"(?<![\w\-/.@])([A-Z][a-z]+(?:[ \t][A-Z][a-z]+)?)[ \t]+County(?![\w\-]|[ \t]+[A-Z0-9])")


def _sainted(kinds: Kinds, text: str) -> list[Span]:
    """Places named after a saint (`_SAINTED`) where a place's cue stands by them: a place's preposition right
    before, a place's key, a US state's code, a site or a stop after. As many people's surnames are saints'
    (`St. John`, `Saint-Pierre`, `San Roman`) and as many people are named `San` or `Sant` (`San Kim`, `Sant
    Singh`), a cue is needed; and not after a given name or a particle after one (`Antoine de Saint-Exupéry`),
    a church's word, a feast's saint, or a large city, which the lexicons' reading has decided."""
    out: list[Span] = []
    for m in _SAINTED.finditer(text):
        a, b = m.span()
        before = _WORD_BEFORE.search(text, max(0, a - 40), a)
        word = fold(before.group(1)) if before is not None else ""
        if before is not None and word in cues.PARTICLES:  # `Antoine de Saint-Exupéry` (not `chapelle de Saint-…`)
            earlier = _WORD_BEFORE.search(text, max(0, before.start() - 40), before.start())
            if earlier is not None and earlier.group(1)[0].isupper():
                continue
        elif before is not None and (before.group(1)[0].isupper() or word in _SAINT_NOT_AFTER):
            continue  # `Yves Saint Laurent`, `Zhang San Li`, `église Saint-Michel`
        saint = re.split(r"[ \t\-]", text[a:b].replace("St. ", "St "), maxsplit=2)[1]
        if fold(saint) in _FEASTS or where_systems_run(text, a, b):
            continue
        if kinds.large_city(" ".join(fold(w) for w in text[a:b].split())):
            continue  # `São Paulo`: the lexicons' reading stands (`the São Paulo tenant`, `PoPs in São Paulo`)
        cued = (
            (before is not None and before.group(1).islower() and word in _SAINT_AFTER)
            or _PLACE_KEY_BEFORE.search(text, max(0, a - 40), a) is not None
            or places.state_after(text, b)
            or places.site_after(text, b)
            or _STOP_AFTER.match(text, b) is not None
        )
        if cued:
            out.append(("LOCATION", a, b))
    return out


def _counties(kinds: Kinds, text: str) -> list[Span]:
    out = [("LOCATION", *m.span()) for m in _IRISH_COUNTY.finditer(text)]
    for m in _COUNTY.finditer(text):
        if kinds.lex.knows_place(fold(m.group(1))) and not where_systems_run(text, *m.span()):
            out.append(("LOCATION", *m.span()))
    return out


# a town's adjective in Hungarian, in lower case: `a debreceni irodába`, `a szegedi verseny`, `a pécsi antikvárium`
_HUNGARIAN_HINT = re.compile(r"[őűá]|(?<![\w\-])(?:az|és|hogy|nem|egy)(?![\w\-])")
_HUNGARIAN_ADJECTIVE = re.compile(r"(?<![\w\-])([a-záéíóöőúüű]{4,})i(?![\w\-])")
_HUNGARIAN_PERIODS = _words("permi")


def _hungarian_adjectives(kinds: Kinds, text: str) -> list[Span]:
    """A town's adjective (its name and `-i`) in a line the language identifier puts in Hungarian, where the town
    has FLEETING_CITY people or more (not `bocsi`, sorry: the village of Bocs); not a surname so made, before a
    given name (`kedves pécsi zoltán`), nor a geological period's (`permi`: Permian)."""
    out: list[Span] = []
    for m in _HUNGARIAN_ADJECTIVE.finditer(text):
        place = kinds.lex.places.get(fold(m.group(1)))
        if place is None or place.population < FLEETING_CITY or kinds.product(fold(m.group(1))):
            continue
        after = _NEXT_WORD.match(text, m.end())
        if m.group() in _HUNGARIAN_PERIODS or (after is not None and kinds.given(fold(after.group(1)))):
            continue
        if languages.language_at(text, m.start()) == "hu":
            out.append(("LOCATION", *m.span()))
    return out


# a place with a locative prefix on it: Zulu and Xhosa `eDurban`, `e-Durban`, `eThekwini`, `kwaMashu`, Igbo
# `n'Enugu`, Tagalog's `taga-Cebu` (from Cebu); the place without it (the prefix is the preposition's)
_PREFIXED = re.compile(r"(?<![\w\-'’])(?:e-?|kwa-?|n['’]|taga-)([A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]{2,}(?:[ \t][A-Z][^\W\d_]+)?)")


def _prefixed(kinds: Kinds, text: str) -> list[Span]:
    """The places with a locative prefix on them, in a line the language identifier puts in a language that
    writes one (Zulu, Xhosa, Igbo and their neighbours; not `the eBerlin endpoint` in English)."""
    out: list[Span] = []
    for m in _PREFIXED.finditer(text):
        if languages.language_at(text, m.start()) in (None, "en"):
            continue
        words = m.group(1).split()
        for n in dict.fromkeys((len(words), 1)):  # `eCape Town`, else its first word
            end = m.start(1) + len(" ".join(words[:n]))
            key = " ".join(fold(w) for w in words[:n])
            if kinds.lex.knows_place(key) and not kinds.product(key) and key not in kinds.lex.words:
                out.append(("LOCATION", m.start(1), end))
                break
    return out


# a journey's ends: `Flight Berlin → Almaty`, `Napoli -> Lisboa`, both places the lexicons know
_ROUTE = re.compile(rf"(?<![\w\-])({_NAME}(?:[ \t]{_NAME})?)[ \t]*(?:→|->|⇒)[ \t]*({_NAME}(?:[ \t]{_NAME})?)")


def _routes(kinds: Kinds, text: str) -> list[Span]:
    out: list[Span] = []
    lex = kinds.lex
    at = 0
    while (m := _ROUTE.search(text, at)) is not None:
        at = m.start(2)  # a chain's next leg starts at this one's end: `Berlin → Almaty → Bishkek`
        window = text[max(0, m.start() - _ROUTE_REACH) : m.end() + _ROUTE_REACH]
        if not _TRAVEL_WORDS.search(window) or said.tech_after(text, m.end()):
            continue  # `Frankfurt -> Dublin replication`, `Georgia -> Jordan font fallback`
        # each end whole, or its word nearest the arrow when the other is no name: `Flight Berlin` is `Berlin`,
        # `Takumi Mori -> Yuki Hayashi` is two people
        left, right = [m.span(1)], [m.span(2)]
        if " " in m.group(1) and not _named(kinds, m.group(1).split()[0]):
            left.append((m.start(1) + m.group(1).rindex(" ") + 1, m.end(1)))
        if " " in m.group(2) and not _named(kinds, m.group(2).split()[-1]):
            right.append((m.start(2), m.start(2) + m.group(2).index(" ")))
        ends = [next((x for x in side if _known_place(kinds, text[x[0] : x[1]])), None) for side in (left, right)]
        if all(ends) and not any(deployments.deployment(text, a, b, lex.products) for a, b in filter(None, ends)):
            out += [("LOCATION", a, b) for a, b in filter(None, ends)]
    return out


# a list of quoted names: `stops = ["Salzburg", "Ljubljana", "Zagreb", "Trieste"]`
_QUOTED_NAME = rf'"{_NAME}(?:[ \t]{_NAME})?"'
_QUOTED_LIST = re.compile(rf"\[[ \t]*{_QUOTED_NAME}(?:[ \t]*,[ \t]*{_QUOTED_NAME})+[ \t]*,?[ \t]*\]")
_QUOTED = re.compile(r'"([^"]+)"')


# Irish and Welsh write a name after `in` with its first letter mutated, and only a name's capital after the
# mutation's letters: `i nGaillimh`, `i gCorcaigh`, `i bPort Láirge`, `yng Nghaerdydd`, `ym Mhorthmadog`, `yn
# Nolgellau` (Dolgellau); a
# name after `in` is a place's
_MUTATED = re.compile(
    r"(?<![\w\-'’])(?:i|yng|ym|yn)[ \t]+(?P<name>(?:nG|bhF|mB|gC|dT|bP|n-[AEIOUÁÉÍÓÚ]|Ngh|Ng|Mh|Nh|N)[a-záéíóúâêîôûŵŷ]"
    r"[^\W\d_]*(?:[ \t]+[A-ZÁÉÍÓÚ][^\W\d_]*)?)"
)


# Welsh softens a name's first letter after `i` (to), `o` (from), `ar`, `am`, `at`, `gan`, `dan`, `drwy`, `wrth`,
# `hyd`, `heb`, `tan` and `ger` (near): `i Fangor` (Bangor), `o Fachynlleth` (Machynlleth), `i Gaernarfon`
# (Caernarfon), `o Ddinbych` (Dinbych), `i Wynedd` (Gwynedd); and aspirates it after `a`, `â`, `tua`: `a Chaerdydd`
_SOFTENED = re.compile(
    r"(?<![\w\-'’])(?:i|o|ar|am|at|gan|dan|drwy|wrth|hyd|heb|tan|ger|a|â|tua)[ \t]+"
    r"(?P<name>[A-ZŴŶ][a-zâêîôûŵŷ]+(?:[\- ][A-Z][a-zâêîôûŵŷ]+)?)"
)
# its commonest words, two of them on the line: a Welsh line, whatever the identifier says of a short one
_WELSH_HINT = re.compile(r"(?<![\w\-])(?:yn|mae|bydd|fydd|ddydd|dydd|gyda|hefyd|wedi|ydy|nhw|eich|fod|bod)(?![\w\-])")
_WELSH_WORDS = _words(
    "yn mae bydd fydd ddydd dydd gyda hefyd wedi ydy nhw eich fod bod ein yr ac heddiw erbyn dod mynd"
)
_WELSH_NUMBERS = _words("ddau dair dri bedwar bedair bump chwech saith wyth naw ddeg deg un ddeuddeg")
_UNSOFTENED = (("Dd", ("D",)), ("Ch", ("C",)), ("Ph", ("P",)), ("Th", ("T",)), ("F", ("B", "M")), ("G", ("C",)),
               ("B", ("P",)), ("D", ("T",)), ("L", ("Ll",)), ("R", ("Rh",)), ("", ("G",)))  # fmt: skip


def _welsh_softened(kinds: Kinds, text: str) -> list[Span]:
    """Places written with Welsh's soft or aspirate mutation on a Welsh line: the name unmutated is a place the
    lexicons know, and as written a word no lexicon knows (`i Fangor`; not `i Fiona`, `o Gaza`); and a town
    whose first letter no mutation changes, as written (`ger Aberdaron`, near Aberdaron)."""
    out: list[Span] = []
    for m in _SOFTENED.finditer(text):
        name = m.group("name")
        key = fold(name)
        if key in _WELSH_NUMBERS:
            continue  # `am Ddeg`: at ten
        vowel = name[0] in "AEIOUWYŴŶ" and key in kinds.lex.towns  # a town no other lexicon holds
        if not vowel and not kinds.unknown(fold(name.split()[0])):
            continue
        line = languages.around(text, m.start(), 200).lower()
        if len(_WELSH_WORDS.intersection(re.findall(r"[a-zâêîôûŵŷ]+", line))) < 2:
            continue
        if vowel:
            out.append(("LOCATION", *m.span("name")))
            continue
        for mutated, plain in _UNSOFTENED:
            if not name.startswith(mutated):
                continue
            rest = name[len(mutated) :]
            if any(kinds.lex.knows_place(" ".join(fold(p + rest).split())) for p in plain):
                out.append(("LOCATION", *m.span("name")))
                break
    return out


def _irish_or_welsh(text: str, at: int) -> bool:
    """The line at text[at] is in Irish or Welsh by the language identifier (not `i nGrok tunnel`)."""
    return languages.language_at(text, at) in ("ga", "cy")


def _listed(kinds: Kinds, text: str) -> list[Span]:
    """A list's places, where every one of its two or more names is a place the lexicons know and most of them
    large cities, and none a given name many people have nor a product's, on a line that names no region nor
    system: `stops = ["Salzburg", "Ljubljana"]`, not `fonts = ["Georgia", "Helvetica"]`, `regions = [...]`, nor
    stations named after small places (`["Vostok", "Mirny", "Concordia"]`)."""
    out: list[Span] = []
    for m in _QUOTED_LIST.finditer(text):
        items = [q.span(1) for q in _QUOTED.finditer(text, m.start(), m.end())]
        keys = [" ".join(fold(text[a:b]).split()) for a, b in items]
        if not all(kinds.lex.knows_place(k) and kinds.given(k) < 2 and not kinds.product(k) for k in keys):
            continue
        if 2 * sum(kinds.large_city(k) for k in keys) <= len(keys) or where_systems_run(text, m.start(), m.end()):
            continue
        if deployments.deployment(text, items[0][0], items[0][1], kinds.lex.products):
            continue
        out += [("LOCATION", a, b) for a, b in items]
    return out


def _named(kinds: Kinds, word: str) -> bool:
    key = fold(word)  # a name and not an ordinary word: `Takumi`, `Mori`; not `Flight`
    return key not in kinds.lex.words and (bool(kinds.given(key)) or key in kinds.lex.surnames)


_ROUTE_REACH = 60
_TRAVEL_WORDS = re.compile(
    r"(?i:\b(?:flights?|fly|flew|flying|train|bus|coach|ferry|trip|travel\w*|journey|booking|booked|ticket|"
    r"drive|drove|ride|itinerary|layover|connection|depart\w*|arriv\w*|leg|passengers?|pax|route|vuelo|volo|"
    r"flug|reise|viagem|voyage|tren|treno|zug|tour|tours|tournée|gira|tournee|crossing|sailing|sailings))"
)


def _known_place(kinds: Kinds, name: str) -> bool:
    key = " ".join(fold(name).split())
    return kinds.lex.knows_place(key)


# a river, a lake or a mountain by its word: `the river Severn`, `Lake Bled`, `Mount Kenya`, `lago di Como`; an
# Irish county (`County Roscommon`, `Co. Clare`; not a company's `Co.`: `Acme Co. Ltd`)
_FEATURE_WORD = re.compile(
    rf"(?<![\w\-])(?P<word>[Rr]iver|[Ll]ake|Mount|Mt\.|[Ll]ago(?:[ \t]+d[ei])?|[Ll]ac|[Rr]ío|[Rr]io|County|Co\.)"
    rf"[ \t]+(?P<name>{_NAME})"
)
# the island of Ireland's 32 counties, the only names read after `Co.`
_IRISH_COUNTIES = _words(
    "antrim armagh carlow cavan clare cork derry donegal down dublin fermanagh galway kerry kildare kilkenny laois "
    "leitrim limerick longford louth mayo meath monaghan offaly roscommon sligo tipperary tyrone waterford "
    "westmeath wexford wicklow"
)


def _named_features(kinds: Kinds, text: str) -> list[Span]:
    out: list[Span] = []
    lex = kinds.lex
    for m in _FEATURE_WORD.finditer(text):
        key = fold(m.group("name"))
        if m.group("word") in ("County", "Co.") and key not in _IRISH_COUNTIES:
            continue  # `County Durham` is read by the lexicons; `Co. Ltd`, `County Line` are no county of Ireland
        if key in lex.words or kinds.product(key) or said.tech_after(text, m.end()):
            continue  # `Lake Formation`, `Mount Everest-class`
        start = m.start() if m.group("word")[0].isupper() else m.start("name")
        out.append(("LOCATION", start, m.end()))
    for m in _QUARTER_WORD.finditer(text):
        key = " ".join(fold(m.group("name")).split())
        if key in lex.words or kinds.product(key) or said.tech_after(text, m.end()):
            continue
        out.append(("LOCATION", *m.span("name")))
    return out


# a quarter of a town, by its word in lower case: `la colonia Roma Norte`, `el barrio de Jalatlaco`, `no bairro
# da Lapa`, `dzielnica Podgórze`, `the suburb of Fitzroy`
_QUARTER_WORD = re.compile(
    r"(?<![\w\-])(?:colonia|barrio|bairro|quartier|quartiere|rione|dzielnic[ayę]|osiedl[eu]|wijk|stadsdeel|"
    r"stadtteil|stadtviertel|kerület|kaupunginosa|neighbou?rhood|suburb|district)"
    rf"(?:[ \t]+(?:of|de|del|do|da|di|du|des|von))?[ \t]+(?P<name>{_NAME}(?:[ \t]{_NAME})?)"
)
