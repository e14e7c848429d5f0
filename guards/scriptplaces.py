"""Places written in scripts other than Latin: `στην Θεσσαλονίκη`, `في الدوحة`, `जयपुर में`, `福岡出張`, `부산 지사로`.

guards/names.py reads capitalised words; Arabic, Devanagari, Han, kana and
Hangul have no capitals, and the lexicons hold places by their Latin names.
Here a city of 100,000 people or more is looked up by its names in other
scripts (lexicon scripts.txt, GeoNames' alternate names); a town of 15,000 or
more only where the text says it is a place, four letters at least and no
one's name (a town's short name is often a word too: Urdu's `اور`, `and`):
with a Bengali, Tamil, Armenian or Georgian case ending (`Դիլիջանում`), in
Cyrillic with a case ending after a preposition and no adjective's ending
(`из Бердска`), in Thai, Lao and Khmer after a preposition (`จากภูเก็ต`,
`ຢູ່ ຫຼວງພະບາງ`, `នៅកំពត`), in Sinhala before `from` or with the locative's
sign (`ගාල්ල සිට`, `ගාල්ලේ`). Arabic's, Hebrew's, Greek's and Hindi's cues
come before or after common nouns and people as often (`في جامعة`,
`בשדרות`, `της Δάφνης`, `डेविड के`): there a town is not read. Words in scripts
written with spaces are looked up whole, a Cyrillic or Greek one also with a
case ending of up to two letters (`Новосибирске`, `Харкова` from `Харков`),
two such words declined together (`из Новог Сада`), a Bengali, Tamil, Armenian,
Georgian, Devanagari, Malayalam, Telugu, Gujarati or Gurmukhi one with its
case ending or postposition (`চট্টগ্রামে`, `மதுரையில்`, `Երևանում`, `თბილისში`,
`पोखरामा`, `കൊച്ചിയിലെ`), a Kazakh one with its locative (`Алматыдағы`), a
Hebrew, Arabic or Amharic one after the letters of a preposition (`בתל אביב`,
`በአዲስ አበባ`); a place's two words outweigh a person's reading of one;
in Han, kana, Thai, Lao and Khmer, written without spaces, a city's name may
start anywhere a syllable does (`田中美咲さんは京都で生まれ`, `នៅភ្នំពេញនឹង`),
not before a language's or a people's character (`日本語`, `中国人`),
and one of two characters only for a city of 500,000 people or more, or of
100,000 with a particle after it (`鈴鹿の店舗`); in
Hangul, at a word's start, a particle after it (`대전에서`). A line that names
a cloud region (`ap-northeast-1`, `region`, `リージョン`, `리전`, within 200
characters) is where systems run: its places are not read.
"""

from __future__ import annotations

import re
import unicodedata

from .cues import NEVER_ALONE
from .deployments import LINE_REACH, REGION_ID
from .findings import Overlaps
from .lexicons import Lexicons
from .lexicons import words as _words

Span = tuple[str, int, int]
WIDE_SHORT = 500_000  # a name of two Han or kana characters: a city this large
_TOWN_LETTERS = 4  # a town's name this long at least: a shorter one is often a word too (`اور`, `and`; `גרה`)
_REGION_WORDS = re.compile(r"\b(?:regions?|zones?|регион|зона)\b|リージョン|ゾーン|리전", re.IGNORECASE)
_CASED_ENDING = 2  # Cyrillic and Greek: letters a case ending may add
# weekdays some places share a name with: `να έρθει Πέμπτη` (Thursday), not a town
_DAYS = frozenset(["Δευτέρα", "Τρίτη", "Τετάρτη", "Πέμπτη", "Παρασκευή", "Σάββατο", "Κυριακή"])


def script_places(lex: Lexicons, text: str, taken: list[Span]) -> list[Span]:
    """The places in `text` named in scripts other than Latin, apart from what `taken` overlaps."""
    if text.isascii() or not lex.scripts:
        return []
    out: list[Span] = []
    seen = Overlaps(taken)
    words = words_by_script(text)
    for i, (a, b, script) in enumerate(words):
        if script == "latin" or text[a:b] in _DAYS or text[a:b].lower() in NEVER_ALONE:
            continue  # (`Манай`, Mongolian's `our`: a town's name too)
        if _compound_name(lex, text, words, i):
            continue  # `Бат-Эрдэнэ`: the first part of a compound name
        two = False
        if script in ("han", "hangul") or _unspaced(text[a]):  # Thai, Lao and Khmer are written without spaces too
            found = _wide(lex, text, a, b)
        else:
            found = _two_words(lex, text, words, i)
            two = bool(found)
            found = found or _spaced(lex, text, a, b, script)
        if not found and script == "cased" and _GREEK_PLACE_BEFORE.search(text, max(0, a - 16), a):
            found = _greek(lex, text, a, b)
        if (
            not found
            and script == "cased"
            and _GREEK_FROM_PLURAL.search(text, max(0, a - 16), a)
            and _town(lex, text[a:b])
        ):
            found = [(a, b)]
        for s, e in found:
            # a place's two words whole outweigh a person's reading of one of them (`በአዲስ አበባ`: `Abeba`)
            over = [span for span in seen.over(s, e) if not (two and span[0] == "PERSON" and s <= span[1])]
            if not over and not where_systems_run(text, s, e):
                out.append(("LOCATION", s, e))
                seen.add(("LOCATION", s, e))  # `בבאר שבע`: its second word is not read again
    return out


def _compound_name(lex: Lexicons, text: str, words: list[tuple[int, int, str]], i: int) -> bool:
    """The word is the first part of a hyphenated name whose second part is capitalised and no place's
    (`Бат-Эрдэнэ`; not `Санкт-Петербурга`)."""
    b = words[i][1]
    if text[b : b + 1] != "-" or not text[b + 1 : b + 2].isupper() or i + 1 >= len(words) or words[i + 1][0] != b + 1:
        return False
    c, d, script = words[i + 1]
    return not (text[c:d] in lex.scripts or (script == "cased" and declined(lex, text[c:d])))


# Greek's `in`, `to`, `from` with the article, before a place: `στην Κρήτη`, `στη Νάξο`, `από τον Πειραιά`
_GREEK_PLACE_BEFORE = re.compile(r"(?:\bστ(?:ην|η|ον|ο|ις|α)|\bαπό\s+τ(?:ην|η|ον|ο))\s+\Z")
# `from` with a plural article, before a town the lexicons know only (`από τα Χανιά`; not `από τα Χριστούγεννα`,
# since Christmas)
_GREEK_FROM_PLURAL = re.compile(r"\bαπό\s+τ(?:α|ις|ους)\s+\Z")


_GREEK_NAME_GOES_ON = re.compile(r"[ \t]+(?:[\u0391-\u03a9\u0386-\u038f]|\d)")


def _greek(lex: Lexicons, text: str, a: int, b: int) -> list[tuple[int, int]]:
    """A capitalised Greek word after a place's preposition and article that is no person's name: `στην Κρήτη`
    (not `στη Μαρία`)."""
    word = text[a:b]
    if len(word) < 4 or not word[0].isupper() or not "\u0370" <= word[0] <= "\u03ff":
        return []
    if _GREEK_NAME_GOES_ON.match(text, b):
        return []  # `στο Κεφάλαιο 3`, `στην Εθνική Τράπεζα`: a chapter, a bank, a university
    if word in lex.people or any(word[:-cut] + v in lex.people for cut in (1, 2) for v in ("ος", "ας", "ης", "α", "η")):
        return []
    return [(a, b)]


def _two_words(lex: Lexicons, text: str, words: list[tuple[int, int, str]], i: int) -> list[tuple[int, int]]:
    """A place of two words (`באר שבע`, `תל אביב`, `Νέα Υόρκη`), its first with a prefix's letters or not."""
    if i + 1 >= len(words) or words[i + 1][2] != words[i][2] or text[words[i][1] : words[i + 1][0]] != " ":
        return []
    a, b = words[i][0], words[i + 1][1]
    name = text[a:b]
    if name in lex.scripts:
        return [(a, b)]
    for prefix in _PREFIXES.get(script_of(name[0]), ()):
        if name.startswith(prefix) and name[len(prefix) :] in lex.scripts:
            return [(a + len(prefix), b)]
    if words[i][2] == "cased" and name[0].isupper() and text[words[i + 1][0]].isupper():
        # both words declined: `из Новог Сада` (`Нови Сад`), `в Нижнем Новгороде`
        first, second = name.split(" ")
        if any(f"{x} {y}" in lex.scripts for x in _bases(first) for y in _bases(second)):
            return [(a, b)]
    return []


def _bases(word: str) -> set[str]:
    """What a Cyrillic or Greek word may be before a case ending of up to two letters."""
    out = {word}
    for cut in range(1, _CASED_ENDING + 1):
        stem = word[:-cut]
        if len(stem) >= 2:
            out |= {stem, *(stem + v for v in _VOWELS)}
    return out


_VOWELS = "аяоеьіиыйΑα"


def declined(lex: Lexicons, word: str, most: int = _CASED_ENDING, towns: bool = False) -> bool:
    """A Cyrillic or Greek place's name with a case ending of up to `most` letters on it or on its stem:
    `Новосибирске`, `Харкова` (Харков), `Перми` (Пермь); with `towns`, a town's (`Бердска`, Бердск)."""
    names = lex.script_towns if towns else lex.scripts
    for cut in range(1, most + 1):
        stem = word[:-cut]
        if len(stem) >= (_TOWN_LETTERS if towns else 3) and (stem in names or any(stem + v in names for v in _VOWELS)):
            return True
    return False


def _spaced(lex: Lexicons, text: str, a: int, b: int, script: str) -> list[tuple[int, int]]:
    word = text[a:b]
    if word in lex.scripts and (script_of(word[0]) != "myanmar" or _BURMESE_AFTER.match(text, b)):
        return [(a, b)]
    cued = _place_word_around(text, a, b)
    if cued and _town(lex, word) and not _ADJECTIVE.search(word):
        return [(a, b)]  # `Тэрэлж дэх`, `នៅ សៀមរាប`: a town the word before or after says is a place
    if script == "cased" and declined(lex, word):  # `Новосибирске`, `Харкова`: a case ending on the name or its stem
        return [(a, b)]
    if script == "cased" and cued and _declined_town(lex, word):
        return [(a, b)]  # `из Бердска`, `в Карелию`
    # Hebrew and Arabic write `in`, `from`, `to`, `and` as letters before the name: `בירושלים`, `מחיפה`,
    # `وبالقاهرة`; the place is the name after them (a city's only: after them a town's name is as often a
    # word's, `בשדרות`, in a boulevard, or a person's, `לטיילור`)
    for prefix in _PREFIXES.get(script_of(word[0]), ()):
        if word.startswith(prefix) and len(word) - len(prefix) >= 3 and word[len(prefix) :] in lex.scripts:
            return [(a + len(prefix), b)]
    # Bengali, Tamil, Armenian and Georgian write `in`, `of`, `from` as an ending: `চট্টগ্রামে`, `மதுரையில்`,
    # `Երևանի`, `თბილისის` (Georgian's stem loses its final `ი`)
    script = script_of(word[0])
    for ending, restore in _ENDINGS.get(script, ()):
        stem = word[: -len(ending)]
        if not word.endswith(ending) or len(stem) < 3:
            continue
        if ending.startswith("्या") and _NOT_TOWN_BEFORE.search(text, max(0, a - 24), a):
            continue  # `पोलीस ठाण्यात`: a police station, not Thane
        if lex.scripts.get(stem + restore, 0) >= _ENDING_FLOOR.get(ending, _ENDED.get(script, 1)):
            return [(a, b - len(ending))] if script == "myanmar" else [(a, b)]  # Burmese's postposition apart
        if script not in _ENDED and ending not in _ENDING_FLOOR and _town(lex, stem + restore):
            return [(a, b)]  # `Վանաձորից`, `ქობულეთიდან`: a town with its ending
    return []


# Marathi's words before `ठाणे` as a common noun (a police or a government station), not the city of Thane
_NOT_TOWN_BEFORE = re.compile(r"(?:पोलीस|पोलिस|सरकारी)[ \t]+\Z")


# the word before a town: in Cyrillic, a preposition before a town's name with its ending (`из Бердска`); not
# Arabic's, Greek's or Hindi's, before or after which a town's name is as often a common noun's or a person's
# (`في جامعة`, `της Δάφνης`, `डेविड के`)
_PLACE_WORD_BEFORE = _words(
    "в во из до под около возле близ через із біля във от"  # Russian, Ukrainian, Bulgarian (`от Казанлък`)
)  # (Khmer's and Lao's, written onto the name as often: _KHMER_BEFORE, _LAO_BEFORE)
# the word after it: Mongolian's `in` (`Тэрэлж дэх`); Sinhala's `from`, and `the town's`, `the area's` (`ගාල්ල
# සිට`, from Galle; not `to`, `වෙත`, which follows people as often)
_PLACE_WORD_AFTER = _words("дэх සිට නගරයේ නගරය ප්\u200dරදේශයේ")
_WORD_BEFORE = re.compile(r"(\S+)[ \t]+\Z")
_WORD_AFTER = re.compile(r"[ \t]+(\S+)")


def _place_word_around(text: str, a: int, b: int) -> bool:
    """A preposition's word right before text[a:b], or a postposition's right after it."""
    before = _WORD_BEFORE.search(text, max(0, a - 24), a)
    if before is not None and before.group(1) in _PLACE_WORD_BEFORE:
        return True
    after = _WORD_AFTER.match(text, b)
    return after is not None and after.group(1).rstrip("،,.;:!?۔।") in _PLACE_WORD_AFTER


# a city this large for the endings of these scripts, whose words and given names share stems with smaller ones
# (`सागरमा`, in the ocean; `భావనలో`, in the concept)
_ENDED = dict.fromkeys(("devanagari", "malayalam", "telugu", "kannada", "gujarati", "gurmukhi", "cyrillic"), 500_000)
_ENDED["myanmar"] = 100_000
# Bengali's locative `য়` is on any word ending in a vowel (`বোমায়`, by a bomb; `চিতায়`, on the pyre; Boma and
# Chita are cities): read only on a city of a million people or more (`ঢাকায়`, `কলকাতায়`)
_ENDING_FLOOR = {"\u09af\u09bc": 1_000_000, "\u09df": 1_000_000}


# case endings, longest first, with what the stem gives back
_ENDINGS = {
    # (and the locative `য়` after a vowel, in either of its encodings: `ঢাকায়`, in Dhaka)
    "bengali": [("েতে", ""), ("ের", ""), ("তে", ""), ("ে", ""), ("র", ""), ("\u09af\u09bc", ""), ("\u09df", "")],
    # (a name that ends in a consonant loses its virama under the ending: `கோயம்புத்தூரிலிருந்து`; not under the
    # dative's `ுக்கு`, which people's names take as often, `ஹாசனுக்கு`)
    "tamil": [
        ("யிலிருந்து", ""),
        ("ிலிருந்து", ""),
        ("யில்", ""),
        ("ில்", ""),
        ("வில்", ""),
        ("க்கு", ""),
        ("ுக்கு", ""),
        ("ிலிருந்து", "்"),
        ("ில்", "்"),
    ],
    "armenian": [("ում", ""), ("ից", ""), ("ով", ""), ("ի", ""), ("ը", "")],
    "georgian": [("ისკენ", "ი"), ("იდან", "ი"), ("ში", "ი"), ("ის", "ი"), ("ში", ""), ("ის", "")],
    # Nepali's and Marathi's postpositions written onto the name: `पोखरामा`, `काठमाडौंबाट`, `मुंबईमध्ये`
    # (not `ले`, `को`, `ला`: they follow people as often, `आनंदले कोड पठायो`)
    # (and Marathi's `तील`, `in the`, and the oblique of a name in `े`: `पुण्यातील`, `पुण्यात` from `पुणे`)
    "devanagari": [
        ("मध्ये", ""),
        ("बाट", ""),
        ("हून", ""),
        ("मा", ""),
        ("्यातील", "े"),
        ("्यात", "े"),
        ("्याहून", "े"),
        ("तील", ""),
    ],
    # (a name that ends in a consonant loses its virama under the ending: `ദുബായിലെ` from `ദുബായ്`)
    "malayalam": [
        ("യിൽനിന്ന്", ""),
        ("യിലേക്ക്", ""),
        ("യിലെ", ""),
        ("യിൽ", ""),
        ("ിലേക്ക്", ""),
        ("ിലെ", ""),
        ("ിൽ", ""),
        ("ിലേക്ക്", "്"),
        ("ിലെ", "്"),
        ("ിൽ", "്"),
    ],
    # (a name that ends in `ు` writes a virama under the ending, with or without a joiner: `హైదరాబాద్‌లోని` from
    # `హైదరాబాదు`)
    "telugu": [
        ("నుండి", ""),
        ("లోని", ""),
        ("లో", ""),
        ("కు", ""),
        ("్\u200cలోని", "ు"),
        ("్లోని", "ు"),
        ("్\u200cలో", "ు"),
        ("్లో", "ు"),
    ],
    # Kannada's genitive, locative, ablative and dative: `ಬೆಂಗಳೂರಿನ` (`ಬೆಂಗಳೂರು`, its final `ು` to `ಿ`), `ಮಂಗಳೂರಿನಲ್ಲಿ`
    "kannada": [("ಿನಲ್ಲಿ", "ು"), ("ಿನಿಂದ", "ು"), ("ಿಗೆ", "ು"), ("ಿನ", "ು"), ("ದಲ್ಲಿ", ""), ("ದಿಂದ", "")],
    "gujarati": [("માં", ""), ("થી", ""), ("નો", ""), ("ના", ""), ("ની", "")],
    "gurmukhi": [("ਵਿੱਚ", ""), ("ਤੋਂ", ""), ("ਦਾ", ""), ("ਦੀ", "")],
    # Kazakh's locative and ablative, longer than the two letters a Russian case ending has: `Алматыдағы`,
    # `Шымкенттен`
    "cyrillic": [
        ("ндағы", ""),
        ("дағы", ""),
        ("тағы", ""),
        ("дегі", ""),
        ("тегі", ""),
        ("дан", ""),
        ("тан", ""),
        ("ден", ""),
        ("тен", ""),
    ],
    # Burmese postpositions written onto the name: `ရန်ကုန်ရှိ` (in Yangon), `မန္တလေးမှ` (from Mandalay)
    "myanmar": [("ရှိ", ""), ("တွင်", ""), ("သို့", ""), ("မှ", ""), ("မှာ", ""), ("မြို့", "")],
    # Sinhala's locative, a vowel's sign on the name's last consonant: `ගාල්ලේ` (in Galle, `ගාල්ල`)
    "sinhala": [("\u0dda", "")],
}


# a Burmese city's name is a word too (`တောင်ကြီး`, Taunggyi, a big mountain; `ကျောက်ဖြူ`, a white stone): read with
# its postposition or its kind's word after it, written onto it or apart (`မန္တလေး ရှိ`, in Mandalay; `မန္တလေး မြို့`)
_BURMESE_AFTER = re.compile(r"[ \t]*(?:" + "|".join(ending for ending, _ in _ENDINGS["myanmar"]) + ")")


# one- and two-letter prefixes, longest first: Hebrew ב ל מ ה ו כ ש and their pairs; Arabic ب ل و ف ك and ال
_PREFIXES = {
    "hebrew": sorted({*"בלמהוכש", *(x + y for x in "ושכ" for y in "בלמה"), "מה", "לה", "בה"}, key=len, reverse=True),
    "arabic": ["وبال", "فبال", "وال", "بال", "لل", "ال", "وب", "ول", "فب", "ب", "ل", "و", "ف", "ك"],
    "ethiopic": ["ወደ", "በ", "ከ", "ለ", "የ"],  # Amharic: `በአዲስ አበባ`, `ወደ` `to`
}


_SCRIPT_BLOCKS = (
    ("hebrew", "\u0590", "\u05ff"),
    ("arabic", "\u0600", "\u06ff"),
    ("bengali", "\u0980", "\u09ff"),
    ("tamil", "\u0b80", "\u0bff"),
    ("armenian", "\u0530", "\u058f"),
    ("georgian", "\u10a0", "\u10ff"),
    ("ethiopic", "\u1200", "\u137f"),
    ("devanagari", "\u0900", "\u097f"),
    ("gurmukhi", "\u0a00", "\u0a7f"),
    ("gujarati", "\u0a80", "\u0aff"),
    ("telugu", "\u0c00", "\u0c7f"),
    ("kannada", "\u0c80", "\u0cff"),
    ("malayalam", "\u0d00", "\u0d7f"),
    ("cyrillic", "\u0400", "\u04ff"),
    ("myanmar", "\u1000", "\u109f"),
    ("sinhala", "\u0d80", "\u0dff"),
)


def script_of(c: str) -> str:
    """The script of a letter of those a prefix or an ending is read in (`hebrew`, `arabic`, `bengali`, ...),
    else empty."""
    return next((name for name, low, high in _SCRIPT_BLOCKS if low <= c <= high), "")


def _wide(lex: Lexicons, text: str, a: int, b: int) -> list[tuple[int, int]]:
    """Names in a run of Han, kana or Hangul: anywhere in Han and kana, at the start in Hangul; longest first."""
    hangul = "HANGUL" in unicodedata.name(text[a], "")
    out: list[tuple[int, int]] = []
    i = a
    while i < b - 1:
        whole = not _cuts(text, i)
        # (in Hangul, a city's name starts a word only before a particle: not `홈스` (Homs) of `홈스테이`, homestay)
        size = next(
            (
                k
                for k in range(min(12, b - i), 1, -1)
                if whole
                and _known(lex, text[i : i + k], text, i)
                and (not hangul or i + k == b or text.startswith(_HANGUL_TAILS, i + k))
            ),
            0,
        )
        if not size and not hangul:
            size = _wide_town(lex, text, i, b)
        if not size and hangul:
            size = _hangul_city(lex, text, i, b)
        if size and _inside_loanword(text, a, b, i, i + size):
            size = 0  # `リマ` of `リマインダー` (reminder): katakana writes a borrowed word whole
        if size and _lao_or_khmer(text[i]) and not (_cued(text, i) or (i == a and i + size == b)):
            size = (
                0  # `ម៉ូបាល` of `កម្មវិធីម៉ូបាល` (a mobile app): in Lao and Khmer a city within other words only after a cue
            )
        if size and text[i : i + size] in _UNSPACED_WORDS:
            size = 0
        if size:
            out.append((i, i + size))
            i += size
        else:
            i += 1
        if hangul:
            break
    return out


def _town(lex: Lexicons, name: str) -> bool:
    """A town's name in another script (lexicon scripts.txt, under 100,000 people), four letters at least and
    no one's."""
    return len(name) >= _TOWN_LETTERS and name in lex.script_towns and name not in lex.people


# adjectives' endings in Russian: `в Новый год`, `в Северной Каролине` are no towns of their own
_ADJECTIVE = re.compile(r"(?:ый|ий|ой|ая|яя|ое|ее|ые|ие|ого|его|ей|ую|юю)\Z")


def _declined_town(lex: Lexicons, word: str) -> bool:
    """A Cyrillic town's name with its case ending (`Бердска`), no adjective's and no one's: no name in the
    lexicon of people on the word or its stem (`до Чехова`)."""
    if not word[:1].isupper() or _ADJECTIVE.search(word):
        return False
    return not any(stem in lex.people for stem in _bases(word)) and declined(lex, word, towns=True)  # (word too)


def _katakana(c: str) -> bool:
    return "\u30a0" <= c <= "\u30ff"


def _inside_loanword(text: str, a: int, b: int, s: int, e: int) -> bool:
    """text[s:e], a name in katakana, is part of a longer katakana word in the run text[a:b]."""
    if not all(_katakana(c) for c in text[s:e]):
        return False
    return (s > a and _katakana(text[s - 1])) or (e < b and _katakana(text[e]))


# a city of two Han characters is read with the particle after it (`鈴鹿の店舗`, `金沢で`); a town in Thai, Lao or
# Khmer with a preposition before it (`จากภูเก็ต`, `ไป ภูเก็ต`, `ຢູ່ ຫຼວງພະບາງ`, `នៅកំពត`), in Thai not one whose name
# is a village's or a pier's common noun (`บ้านใหม่`, a new house; `ท่าเรือ`, a pier)
_HAN_AFTER = (*"のでにへ発駅", "から", "まで")
_THAI_BEFORE = ("จาก", "ไป", "ที่", "ใน", "แถว", "อยู่", "เมือง", "จังหวัด", "ถึง")
_LAO_BEFORE = ("ຢູ່", "ທີ່", "ໃນ", "ໄປ", "ຈາກ", "ຮອດ", "ເມືອງ", "ແຂວງ")
_KHMER_BEFORE = ("នៅ", "ពី", "ទៅ", "ដល់", "ក្រុង", "ខេត្ត")
# words a cue ends: Khmer's `about` (`អំពី`, ending in `ពី`, from)
_NOT_CUES = ("អំពី",)
# places' names that are words: Khmer's `middle` (Kandal: `នៅកណ្តាលទំព័រ`, in the middle of the page); and Lao's
# `told` (`ບອກໂດ`, which scripts.txt holds as a city's, in `ທີ່ບອກໂດຍ`, that was told by)
_UNSPACED_WORDS = frozenset(["កណ្តាល", "កណ្ដាល", "ບອກໂດ"])
_THAI_NOUNS = ("บ้าน", "ท่า")
# (not a title that ends in `長`, head: `松本支店長`, Matsumoto the branch manager; nor a shop's clerk or owner,
# `店員`, `店主`); a shop alone, `新宿店` (the Shinjuku shop)
_HAN_SITE = re.compile(
    "の?(?:倉庫|工場|支店|店舗|営業所|事務所|本社|空港|温泉|会場|拠点|出張所|物流センター|店(?![員主]))(?!長)"
)
_HAN_SITE_CITY = 100_000


def _wide_town(lex: Lexicons, text: str, i: int, b: int) -> int:
    """The length of a town's name in Thai at text[i], or a city's of two Han characters, in the run ending at
    b, with its cue beside it; 0 if none. The cue is looked for first: it is rarer than a name."""
    if _unspaced(text[i]):
        if not _cued(text, i) or text.startswith(_THAI_NOUNS, i) or text.startswith(tuple(_UNSPACED_WORDS), i):
            return 0
        for k in range(min(12, b - i), _TOWN_LETTERS - 1, -1):
            # whole: not cut before a vowel's mark (`กาแล` of `กาแล็กซี`)
            if not unicodedata.category(text[i + k : i + k + 1] or " ").startswith("M") and _town(lex, text[i : i + k]):
                return k
        return 0
    name = text[i : i + 2]
    if name not in lex.scripts or not all("CJK" in unicodedata.name(c, "") for c in name):
        return 0
    if text.startswith(_HAN_AFTER, i + 2) and name not in lex.people:
        return 2
    # a large city that is a surname too, before a site's noun: `長崎の倉庫`, `長崎倉庫` (a warehouse)
    if lex.scripts[name] >= _HAN_SITE_CITY and _HAN_SITE.match(text, i + 2):
        return 2
    return 0


# Korean's particles of place after a city's name, which follow no person (a person takes `에게`): `제주에서`,
# `평택으로`; a name alone only beside a word of place (`반납 지점: 제주`, `강릉 지점`)
_HANGUL_PLACE_AFTER = ("에서", "에", "으로", "로", "까지", "부터", "에서는", "에는")
# what a city's name in its word is followed by (and more particles after it): a particle, `city`, a station's, a
# bound's word, the copula
_HANGUL_TAILS = tuple(
    [*_HANGUL_PLACE_AFTER, "의", "은", "는", "이", "가", "을", "를", "도", "와", "과", "에서도", "에도", "에서의",
     "으로의", "로의", "이나", "나", "만", "에만", "에서만", "까지는", "부터는", "이랑", "랑", "하고", "행", "발", "역",
     "점", "쪽", "시", "시의", "시에", "시에서", "시로", "시는", "시가", "시를", "시청", "시민", "특별시", "광역시",
     "출신", "사람", "지점", "지역", "공항",
     # and the copula's forms: `주소는 인천입니다`
     "입니다", "이에요", "예요", "이야", "이다", "이고", "이며", "인데", "입니까", "이라고", "이라", "라고",
     "에선", "엔", "요", "랑", "근처", "시내", "쪽", "사람"]
)  # fmt: skip
_HANGUL_PLACE_WORD = re.compile(r"(?:지점|지역|도시|매장|출발지?|도착지?|주소)[ \t]*[:：]?[ \t]*\Z")
# cities' names that are common words first: mass production, taste, miscalculation, the week before, Mars, cod,
# pearl, resident, lord, princess
_HANGUL_WORDS = frozenset(["양산", "구미", "오산", "전주", "화성", "대구", "진주", "상주", "영주", "공주"])
# `강릉 지점이에요`, `포항 해변` (beach), `제주 온천` (hot spring)
_HANGUL_PLACE_WORD_AFTER = re.compile(r"[ \t]+(?:지점|지역|매장|시내|공항|터미널|해변|온천|창고|공장|항구|본사)")
_HANGUL_CITY = 100_000


def _hangul_city(lex: Lexicons, text: str, a: int, b: int) -> int:
    """The length of a city's name of 100,000 people or more that a Hangul word starts with, the rest of the word
    a particle of place (`제주에서`), or the whole word beside a word of place (`반납 지점: 제주`, `강릉 지점`); no
    common word first (_HANGUL_WORDS). 0 if none."""
    for k in range(min(4, b - a), 1, -1):
        name, rest = text[a : a + k], text[a + k : b]
        if lex.scripts.get(name, 0) < _HANGUL_CITY:
            continue
        if name in _HANGUL_WORDS:
            continue  # `양산에 들어간` (mass production), `구미에 맞게` (taste): a common word first
        if rest in _HANGUL_PLACE_AFTER:
            return k
        if not rest and (_HANGUL_PLACE_WORD.search(text, max(0, a - 8), a) or _HANGUL_PLACE_WORD_AFTER.match(text, b)):
            return k  # `반납 지점: 제주`, `강릉 지점`: a branch's place, whoever else is so named
    return 0


def _known(lex: Lexicons, name: str, text: str, i: int) -> bool:
    """text[i:i+len(name)] is a city's or a country's name, whole: not cut before a vowel's mark in Thai, Lao or
    Khmer, and in Han not a language's (`日本語`; GeoNames holds `日本語` as a city's name)."""
    population = lex.scripts.get(name, 0)
    if not (population >= WIDE_SHORT or (population > 0 and len(name) > 2)):
        return False
    end = i + len(name)
    if _cuts(text, end):
        return False
    return not (
        "CJK" in unicodedata.name(name[-1]) and (name.endswith(_HAN_NOT_PLACE) or text.startswith(_HAN_NOT_PLACE, end))
    )


# after a place's name in Han: its language (`日本語`), not the place (not `人`, which starts `人民路`, a city's street)
_HAN_NOT_PLACE = ("語",)
# Khmer's sign that writes the next consonant below: a name does not start after it
_COENG = "\u17d2"


def _unspaced(c: str) -> bool:
    """A letter of Thai, Lao or Khmer, written without spaces between words."""
    return "\u0e00" <= c <= "\u0eff" or _lao_or_khmer(c)


def _lao_or_khmer(c: str) -> bool:
    return "\u0e80" <= c <= "\u0eff" or "\u1780" <= c <= "\u17ff"


def _cued(text: str, i: int) -> bool:
    """A Thai, Lao or Khmer preposition of place right before text[i], a space between or none."""
    cues = _THAI_BEFORE if text[i] <= "\u0e7f" else _LAO_BEFORE if text[i] <= "\u0eff" else _KHMER_BEFORE
    before = text[max(0, i - 12) : i].rstrip()
    return before.endswith(cues) and not before.endswith(_NOT_CUES)


def _cuts(text: str, i: int) -> bool:
    """A name starting or ending at text[i] would cut a syllable: a vowel's or tone's mark follows, or a consonant
    written below the one before."""
    return unicodedata.category(text[i : i + 1] or " ").startswith("M") or text[i - 1 : i] == _COENG


def where_systems_run(text: str, a: int, b: int) -> bool:
    """A cloud region's id or word on the line of text[a:b], within LINE_REACH characters of it."""
    start = text.rfind("\n", max(0, a - LINE_REACH), a) + 1 or max(0, a - LINE_REACH)
    end = text.find("\n", b, b + LINE_REACH)
    line = text[start : end if end >= 0 else min(len(text), b + LINE_REACH)]
    return REGION_ID.search(line) is not None or _REGION_WORDS.search(line) is not None


def words_by_script(text: str) -> list[tuple[int, int, str]]:
    """Runs of letters and their marks, each with its script: latin, cased (Cyrillic, Greek), han (Han and
    kana), hangul, or other (Arabic, Hebrew, Devanagari, Thai, ...)."""
    out: list[tuple[int, int, str]] = []
    start = -1
    script = ""
    for i, c in enumerate(text + " "):
        kind = _script(c)
        if kind == script and start >= 0:
            continue
        if kind == "mark" and start >= 0 and (c not in _JOINERS or _INDIC[0] <= text[start] <= _INDIC[1]):
            continue  # (a joiner inside an Indic word only: Persian's `می‌خواهم` is two words here, as before)
        if start >= 0:
            out.append((start, i, script))
        start, script = (i, kind) if kind not in ("", "mark") else (-1, "")
    return out


_JOINERS = "\u200c\u200d"  # zero-width non-joiner and joiner
_INDIC = ("\u0900", "\u0dff")  # Devanagari to Sinhala


def _script(c: str) -> str:
    if c in _JOINERS:
        return "mark"  # inside an Indic word: `హైదరాబాద్‌లోని` (a joiner elsewhere ends the word: words_by_script)
    if c.isascii():
        return "latin" if c.isalpha() else ""
    category = unicodedata.category(c)
    if category[0] == "M":
        return "mark"
    if category[0] != "L":
        return ""
    name = unicodedata.name(c, "")
    if "LATIN" in name:
        return "latin"
    if "CYRILLIC" in name or "GREEK" in name:
        return "cased"
    if "HANGUL" in name:
        return "hangul"
    if "CJK" in name or "HIRAGANA" in name or "KATAKANA" in name or "IDEOGRAPHIC ITERATION" in name:
        return "han"  # (and `々`, the repeat mark: `佐々木`)
    return "other"
