"""Names as chat writes them, in lower case: `ping marco`, `kenji & mei are pairing`, `i'm in lisbon till friday`.

guards/names.py reads capitalised words. People typing in chat often write
no capitals at all, and a name in lower case looks like any other word. Here
a lower-case word is a person's only when it is a given name on sight (many
people carry it), no English word more than a name, no product's name nor a
large place's, and what is said around it is said of a person (`ping`, `cc`, `thanks`,
`said`, `is out`, `moved to`, another name in `X & Y`, a stand-up line's
`marco on the ledger bug`). A word that is a name and nothing else (no
English word, three letters or more, in Latin letters: `kwabena`, `priya`)
needs less: a Japanese honorific on it (`nakamura-san`), the name that
opens a message (`kwabena i owe you`, `ines: my new number`), another such
name beside it (`ravi shreya — retro at 4`), what
is done for a person (`have fun marco`, `add valentina to`); and a name read
as a person's once is that person wherever else the text writes it. A
place only when it is a large place's name
(a country, or a city of 100,000 people or more) that is no English word and
no common given name, after a place's cue (`in`, `from`, `moved to`) and not where a
system runs (guards/deployments.py). Words in code, on a line of code
(`=`, braces, a `;` ending a statement), a language's keyword (`elif`) or
glued to an identifier (`priya_test`, `@marco`, `/home/priya`) are never
read.
"""

from __future__ import annotations

import itertools
import re

from . import cues, deployments, languages, mailboxes, places
from . import systems as said
from .kinds import WORDY, Kinds
from .lexicons import fold
from .lexicons import words as _words
from .scriptnames import any_latin_function_word

Span = tuple[str, int, int]
_LOWER = re.compile(r"(?<![\w\-'’])[^\W\d_]+(?![\w\-])")
# a line of code has `=` or braces, or a `;` ending a statement; chat's `raj – schema; elif – oncall` has none
_CODE = re.compile(r"[={}]|;[ \t]*(?:$|//|#|--)", re.M)
_CONTRACTED = re.compile(r"['’](?:d|ll|ve|re|m)\b", re.IGNORECASE)
# a stand-up line names a person at its start, or after a comma: `hamid on ledger bug, sana on ios crash`
_STANDUP_AFTER = re.compile(r"\s+(?:(?:on|out|off|back|oof|ooo|wfh|pto|away|sick)\b|[–—:]\s|-\s)")
_ABSENT_AFTER = re.compile(r"\s+(?:is\s+|['’]s\s+)?(?:ooo|oof|wfh|afk|pto|out\s+sick|off\s+sick)\b", re.IGNORECASE)
# what people do, said right after a lower-case given name: `joão has the pager`, `aditi fixed jarvis`
_DOES_AFTER = re.compile(
    r"\s+(?:(?:just|also|still|already|finally|prob|probably|literally)\s+)?"
    r"(?:has|had|is|was|will|can|could|did|does|fixed|pushed|merged|reviewed|approved|owns|covers|covered|wrote|"
    r"said|says|asked|knows|thinks|left|joined|took|shipped|told|tells|mentioned|noticed|found|swapped|owes|wants|"
    r"needs|suggested|reported|confirmed|promised|replied|pinged|sent|gave|offered|volunteered|are\s+both|→|->|"
    r"called|calls|rang|phoned|texted|messaged|emailed|dropped|arrived|landed|"
    # what a person does with their own things: `pedro pasted his ssn`, `mei lost her badge`
    r"[a-z]+ed\s+(?:his|her|their)|forgot\s+(?:his|her|their)|lost\s+(?:his|her|their))"
    r"(?=\s)"
)
# where a person works, after their name: `kemal from the izmir depot says`, `ana from the lisbon office`
_FROM_SITE_AFTER = re.compile(
    r"\s+from\s+(?:the\s+|our\s+)?[a-z\-]+(?:\s+[a-z\-]+)?\s+(?:team|office|depot|site|branch|warehouse|clinic|"
    r"store|desk|lab|plant|hub)\b"
)
# a message addressed to someone by the name that opens it: `kwabena i owe you`, `quick q akua — is`, `ines: my`
_OPENING = re.compile(
    r"(?:\A|\n)[ \t]*(?:(?:ok|okay|so|gm|gn|hey|hi|yo|btw|fyi|sorry|quick\s+q|q|psst|also)[!,.:]*\s+)*\Z"
)
_ADDRESSED_AFTER = re.compile(
    r"[ \t]*(?:[,—–][ \t]|\s-\s|:?\s+(?:i|i'm|im|my|me|we|you|u|ur|can|could|would|pls|please|do|did|are|r|any|when|"
    r"where|what|how|quick|thanks|thx|hey|hi|sorry|ok|okay|yes|yeah|no|lol|so|just|btw)\b)"
)
_LATIN = re.compile(r"[a-z\u00df-\u024f]+")
# what is done to or for a person only: `add valentina to`, `reviews go to fatou`, `new hire hannah`
_FOR_PERSON_BEFORE = re.compile(
    r"(?:\b(?:add|added|adding|invite|invited|onboard|onboarding|welcome|welcoming|congrats|congratulations|bye|"
    r"night|fun|cheers|hire|owe|owes|thank|miss|missed|meet|met|dm|dm'd|dmed|pinged|pinging|told|asked|"
    r"assigned\s+to|go\s+to|goes\s+to|over\s+to|handed\s+to|back\s+to|swap(?:ped)?\s+with|covering\s+for|"
    r"shout\s?out\s+to|kudos\s+to|props\s+to|me\s+\+|me\s+and|oye|hola|ciao|hallo|moin|hej|salut|olá|oi)"
    r")\s*\Z"
)
_LIST_START = re.compile(r"(?:\A|\n|[,;:]\s*|[-*•]\s+)\Z")
# greetings in other languages: `oye carlos`, `ciao giulia`, `hallo jens`
_GREETINGS = frozenset(
    {"oye", "hola", "ciao", "hallo", "moin", "hej", "salut", "olá", "oi", "merhaba", "cześć", "ahoj", "szia"}
)
_PEOPLE_BEFORE = (
    frozenset({"w", "with", "ping", "cc", "thanks", "thx", "ty", "hi", "hey", "yo", "tell", "ask"}) | _GREETINGS
)
# the names of the values a record holds, some of them given names too (`Iban`)
_VALUE_WORDS = _words("iban bic swift cvv cvc pin ssn vat tin nif nie dni")
BIG_PLACE = 100_000


def lower_names(kinds: Kinds, text: str, taken: list[Span], sure: set[Span] | None = None) -> list[Span]:
    """The people and places written in lower case in `text`, apart from those `taken` already overlaps; a name
    an honorific marks (`nakamura-san`) is added to `sure` too."""
    if not any(c.islower() for c in text):
        return []
    code = cues.code_spans(text)
    lines = _code_lines(text) if any(c in text for c in "=;{}") else []
    out: list[Span] = []
    covered = bytearray(len(text))  # the characters a name already found covers
    for _, s, e in taken:
        covered[s:e] = b"\x01" * (e - s)
    words = list(_LOWER.finditer(text))
    lex = kinds.lex
    for i, m in enumerate(words):
        a, b = m.span()
        word = m.group()
        if not word.islower():
            continue
        wordy = word.isascii() and lex.wordiness(word) >= 0.5 and word not in lex.place_first_words
        if wordy and lex.wordiness(word) >= WORDY:
            continue  # an English word more than a name, and no place's first word: most words of prose
        if 1 in covered[a:b] or cues.within(code, a):
            continue
        if cues.glued(text, a, b) or cues.within(lines, a) or _CONTRACTED.match(text, b):
            continue  # `cc'd`, `we'll`: a verb's contraction, no one's name
        pair = words[i + 1] if i + 1 < len(words) and text[b : words[i + 1].start()] == " " else None
        if pair is not None and _full_name(kinds, text, a, b, pair.end()):
            found: Span | None = ("PERSON", a, pair.end())  # `modulo per gianni bertolotti`, `W-9 for tom albrecht`
        elif wordy:
            found = None  # a word before all else, unless a surname follows it
        elif pair is not None and _place(kinds, text, a, pair.end()):
            found = ("LOCATION", a, pair.end())  # `buenos aires`; its second word is not read again
        elif _place(kinds, text, a, b):
            found = ("LOCATION", a, b)
        elif _person(kinds, text, a, b):
            found = ("PERSON", a, b)
        else:
            found = None
        if found is not None:
            out.append(found)
            covered[found[1] : found[2]] = b"\x01" * (found[2] - found[1])
    out += _korean(kinds, text, code, lines, covered)
    honoured = _honoured(kinds, text, code, lines, covered) if "-" in text else []
    out += honoured
    out += _irish(kinds, text, code, lines, covered) if "o'" in text or "o’" in text else []
    if sure is not None:
        sure.update(honoured)
    # one sense a text: a name read as a person's once is that person wherever else the text writes it
    people = {fold(text[s:e]) for kind, s, e in out if kind == "PERSON"}
    for m in words if people else ():
        a, b = m.span()
        if not m.group().islower() or fold(m.group()) not in people or 1 in covered[a:b]:
            continue
        if not (cues.within(code, a) or cues.glued(text, a, b) or cues.within(lines, a)):
            out.append(("PERSON", a, b))
    return out


def _korean(
    kinds: Kinds, text: str, code: list[tuple[int, int]], lines: list[tuple[int, int]], covered: bytearray
) -> list[Span]:
    """Korean given names romanised in lower case, two syllables and a hyphen (`ask hyun-woo or seo-yeon`), with
    the surname before when there is one (`park ji-hoon's payout`): no English word is so shaped."""
    out: list[Span] = []
    for m in _KOREAN_GIVEN.finditer(text) if "-" in text else ():
        a, b = m.span()
        lex = kinds.lex
        if len(m.group()) < 6 or any(lex.words.get(part, 0) >= _KOREAN_WORD for part in m.groups()):
            continue  # `go-to`, `re-run`: a common English word
        if all(lex.wordiness(part) >= 0.5 for part in m.groups()):
            continue  # `ping-pong`, `bye-bye`: English words both (`hyun-woo`: `woo` is one, `hyun` no word)
        if not _free(code, lines, covered, a, b) or _foreign_line(text, a):
            continue
        surname = _KOREAN_SURNAME_BEFORE.search(text, max(0, a - 8), a)
        out.append(("PERSON", surname.start() if surname else a, b))
    return out


# a Japanese honorific written on a name: `nakamura-san`, `yuki-chan`, `tanaka-sensei`
_HONOURED = re.compile(r"(?<![\w\-'’./@])([a-z]{3,})-(?:san|sama|kun|chan|sensei|senpai)(?![\w\-])")


def _honoured(
    kinds: Kinds, text: str, code: list[tuple[int, int]], lines: list[tuple[int, int]], covered: bytearray
) -> list[Span]:
    """Names with a Japanese honorific after them, in lower case: `fyi nakamura-san from the osaka office`; the
    name without it, when it is a given name or a surname the lexicons know and no English word."""
    out: list[Span] = []
    for m in _HONOURED.finditer(text):
        a, b = m.span(1)
        key = m.group(1)
        if kinds.lex.words.get(key, 0) or kinds.product(key) or not _free(code, lines, covered, a, b):
            continue
        if len(key) < 4 or not (kinds.given(key) == 2 or key in kinds.lex.surnames or key in kinds.lex.people):
            continue  # `foo-kun`, `dev-san`: no name the lexicons know, or too short to tell
        out.append(("PERSON", a, b))
    return out


_IRISH = re.compile(r"(?<![\w\-'’])o['’]([a-z]{3,})(?![\w\-])")


def _irish(
    kinds: Kinds, text: str, code: list[tuple[int, int]], lines: list[tuple[int, int]], covered: bytearray
) -> list[Span]:
    """An Irish surname with its `O'` in lower case (`ping o'brien`, `o'brien wants the dashboard`): a surname the
    lexicons know written without the apostrophe, with what is said of a person around it (not `o'clock`)."""
    out: list[Span] = []
    for m in _IRISH.finditer(text):
        a, b = m.span()
        if "o" + m.group(1) not in kinds.lex.surnames or m.group(1) in kinds.lex.words:
            continue
        if not _free(code, lines, covered, a, b):
            continue
        said_of = cues.word_before(text, a) in _PEOPLE_BEFORE or cues.person(text, a, b, strict=True)
        if said_of or _DOES_AFTER.match(text, b) or _ABSENT_AFTER.match(text, b):
            out.append(("PERSON", a, b))
    return out


def _free(code: list[tuple[int, int]], lines: list[tuple[int, int]], covered: bytearray, a: int, b: int) -> bool:
    """text[a:b] is read by no other reader and is in no code (a span of it or a line of it)."""
    return 1 not in covered[a:b] and not cues.within(code, a) and not cues.within(lines, a)


def _code_lines(text: str) -> list[tuple[int, int]]:
    """The lines of code in `text` (`var ean = "...";`, `if (x) {`), by their spans: chat's lines have none of
    `=`, `;` and braces."""
    out = []
    start = 0
    for line in text.split("\n"):
        if _CODE.search(line):
            out.append((start, start + len(line)))
        start += len(line) + 1
    return out


def _full_name(kinds: Kinds, text: str, a: int, b: int, end: int) -> bool:
    """A given name on sight and a surname the census knows, both in lower case, the surname no English word and
    neither a product's or a place's name, on an English line: `W-9 for tom albrecht came in`."""
    given, surname = fold(text[a:b]), fold(text[b + 1 : end])
    lex = kinds.lex
    if kinds.given(given) < 2 or len(surname) < 3 or not text[b + 1 : end].islower():
        return False
    # a surname the census knows, no English word (the given name may be one: `tom albrecht`)
    if surname not in lex.surnames or lex.wordiness(surname) >= 0.5 or min(len(given), len(surname)) < 3:
        return False
    if lex.wordiness(given) >= (WORDY if lex.surnames[surname] <= _COMMON_SURNAME else 0.5):
        return False  # `tom albrecht`; not `two jade opal sheets`
    others = any_latin_function_word()
    if surname in others or (given in others and lex.surnames[surname] > _COMMON_SURNAME):
        return False  # other languages' words on a line read as English (`jag kollar`, `som los`)
    for key in (given, surname, f"{given} {surname}"):
        if kinds.product(key) or kinds.big_place(key) or key in lex.places:
            return False
        if key in cues.CALENDAR or key in cues.TITLES or key in cues.KIN or key in _KEYWORDS or key in lex.codenames:
            return False
    if cues.glued(text, a, end) or said.tech_after(text, end) or said.tech_before(text, a):
        return False
    return _english_line(text, a)  # another language's words are names in the lists too (`dua kali`, `el puerto`)


def _person(kinds: Kinds, text: str, a: int, b: int) -> bool:
    key = fold(text[a:b])
    lex = kinds.lex
    title = _TITLE_BEFORE.search(text, max(0, a - 8), a)
    known = kinds.given(key) or key in lex.surnames
    unknown = len(key) > 3 and key not in lex.words and cues.person(text, a, b, strict=True, pronoun=True)
    known = known or (title is not None and title.group().strip() == "mrs" and unknown)  # `mrs okonjo, she'll pay`
    if title and not title.group().rstrip().endswith(".") and not known:
        title = None  # a title without its dot only before a name the lexicons know, or a word of none
        # (`mrs okonjo`): not `ms entra`, `dr rto`
    titled = title is not None or cues.officer_before(text, a)
    if titled and key not in lex.words and not kinds.product(key):
        return len(key) > 2 and not kinds.big_place(key)  # `capt. moreau`, `dr. okafor`: a surname after a title
    given = kinds.given(key)
    # a product's name is written without accents: `lucía` is someone, `lucia` may be a product
    product = kinds.product(key) and text[a:b].isascii()
    if not given or product or kinds.big_place(key) or key in lex.codenames:
        return False
    if given < 2 and (key in lex.words or key in mailboxes.ROLES or len(key) < 4):
        return False  # a name few people carry is read only when it is no English word nor a role's (`admin`),
        # and only with a strong cue
    if lex.wordiness(key) >= 0.5 or key in cues.PRONOUNS or key in cues.CALENDAR or key in cues.TITLES:
        return False
    if key in cues.KIN:
        return False
    if said.tech_after(text, b) or said.tech_before(text, a) or cues.field_before(text, a):
        return False  # `name: "nile"`, `name = ledger`: a field in lower case holds an identifier
    before = cues.word_before(text, a)
    if key in _VALUE_WORDS and not (before in _PEOPLE_BEFORE or _DOES_AFTER.match(text, b)):
        return False  # `, iban on member 2231`, `email,iban,ssn`: a value's name (Iban is a given name too)
    if before in _PEOPLE_BEFORE and given == 2 and (before in _GREETINGS or not _foreign_line(text, a)):
        return True  # `ping marco`, and other languages' greetings: `oye carlos`, `ciao giulia` (not Vietnamese
        # `Công ty quản lý`, whose `ty` is no thanks)
    if _foreign_line(text, a):
        return False  # the cues below are English's: `email dela` in Portuguese, `refund ko` in Tagalog
    if given == 2 and cues.person(text, a, b, strict=True):
        return True
    if cues.person(text, a, b, strict=True, imperative=False, social=True):
        return True  # a name few people carry, only by what is said of people alone (`baraka's sister`): not
        # `ping triton`, `thanks argus`, `kron will run`
    if key in _VALUE_WORDS:
        return False  # by the weaker cues below: a value's name
    if standup(text, a, b):
        return True
    if given == 2 and (_ABSENT_AFTER.match(text, b) or _DOES_AFTER.match(text, b) or _FROM_SITE_AFTER.match(text, b)):
        return True  # (a name few people carry: not `kron will run`, `ping triton`)
    if introduced(text, a, b):
        return True  # `hi, i'm aroha from the ski school`, `its soraya at the isfahan clinic`, `pairing w/ haruto`
    if given < 2:
        return False
    other = cues.pair(text, a, b, lower=True)  # `kenji & mei`
    if other is not None and kinds.given(other) == 2 and not kinds.product(other) and other not in kinds.lex.words:
        return True
    if key in lex.words or key in _KEYWORDS or len(key) < 3 or not _LATIN.fullmatch(text[a:b]):
        return False  # the weaker cues below are for words that are names alone (`kwabena`, `priya`)
    if not _english_line(text, a):
        # in another language's line, any word may be a name's spelling (`cùng gia đình`, `raha hai`, Hausa's
        # `yana aiki a Kaduna`, which has an `a`)
        return False
    if other is not None and _PAIRED_AFTER.match(text, b):
        return True  # `kenji and sam are both out`: the pair is people whatever the other word is
    if _either(kinds, text, a, b):
        return True  # `a review from mehdi or parisa`: two names alone, one or the other
    if addressed(text, a, b):
        return True  # `kwabena i owe you a beer`, `quick q akua — is the feed`, `ines: my new number`
    # `have fun marco`, `add valentina to`; `ravi shreya omar — retro at 4`
    return done_for(text, a) or _names_beside(kinds, text, a, b)


def introduced(text: str, a: int, b: int) -> bool:
    """Who the writer is or is with: `i'm aroha from the ski school`, `her name's yuna,`, `pairing w/ haruto`."""
    if _WITH_BEFORE.search(text, max(0, a - 4), a):
        return True
    return (
        _INTRODUCED_BEFORE.search(text, max(0, a - 16), a) is not None and _INTRODUCED_AFTER.match(text, b) is not None
    )


def standup(text: str, a: int, b: int) -> bool:
    """A stand-up line's name at its start or after a comma: `hamid on ledger bug, sana on ios crash`."""
    return _STANDUP_AFTER.match(text, b) is not None and _LIST_START.search(text, max(0, a - 3), a) is not None


def addressed(text: str, a: int, b: int) -> bool:
    """A message addressed to someone by the name that opens it: `kwabena i owe you`, `quick q akua — is`; not a
    chat log's speaker (`tomasz: she says`, a line's first word and a colon, where another line opens so)."""
    speaker = text[b : b + 1] == ":" and _LINE_START.search(text, max(0, a - 24), a) is not None
    if speaker and sum(1 for _ in itertools.islice(_SPEAKER_LINE.finditer(text), 2)) > 1:
        return False
    return _OPENING.search(text, max(0, a - 24), a) is not None and _ADDRESSED_AFTER.match(text, b) is not None


_LINE_START = re.compile(rf"(?:\A|\n)[ \t]*(?:{deployments.TIME_PREFIX}[ \t]+)?\Z")
# a chat log's line opening with its speaker: `tomasz: she says`, `[09:41] bia: nome Joana`
_SPEAKER_LINE = re.compile(rf"(?m)^[ \t]*(?:{deployments.TIME_PREFIX}[ \t]+)?[\w.\-]+:[ \t]")


def done_for(text: str, a: int) -> bool:
    """What is done for or to a person only, right before text[a:]: `add valentina to`, `have fun marco`,
    `reviews go to fatou`."""
    return _FOR_PERSON_BEFORE.search(text, max(0, a - 24), a) is not None


# an introduction: `i'm aroha from the ski school`, `this is kemal at billing`, `its soraya here`
_INTRODUCED_BEFORE = re.compile(
    r"(?<![\w'’])(?:i['’]?m|i\s+am|this\s+is|it['’]?s|(?:my|her|his|their)\s+name(?:['’]s|\s+is))\s+\Z"
)
_INTRODUCED_AFTER = re.compile(r"\s+(?:from|at|with|here|in|again)\b|[ \t]*(?:,|[—–]|\s-\s)")
_SYLLABLE = (
    r"(?:kk|tt|pp|ss|jj|ch|[kgndtrlmbpsjhwy])?(?:yae|yeo|wae|ae|ya|eo|ye|wa|oe|yo|wo|we|wi|yu|eu|ui|oo|ee|[aeiou])"
    r"(?:ng|[kntlmph])?"
)
_KOREAN_GIVEN = re.compile(rf"(?<![\w\-'’@./])({_SYLLABLE})-({_SYLLABLE})(?![\w\-])")
_KOREAN_WORD = 25_000  # a syllable this frequent as an English word is that word (`run`, `go`), not a name's part
_KOREAN_SURNAME_BEFORE = re.compile(
    r"(?<![\w\-])(?:kim|lee|park|choi|jung|kang|cho|yoon|jang|lim|han|oh|seo|shin|kwon|hwang|ahn|song|yoo|hong|jeon|"
    r"moon|yang|son|bae|baek|nam)[ \t]+\Z"
)
# chat drops the title's dot too, before a name the lexicons know: `dr okafor` (not `200 ms latency`: a number
# before it)
_TITLE_BEFORE = re.compile(
    r"(?<![\w\-])(?<!\d[ \t])(?:(?i:dr|mr|mrs|ms|prof|capt|cpt|sgt|lt|insp)\.|dr|mr|mrs|ms|prof)[ \t]+\Z"
)  # in lower case only without the dot: `the DR runbook` is disaster recovery's
_COMMON_SURNAME = 5_000  # the census' rank
_PAIRED_AFTER = re.compile(r"(?:\s+(?:and|&)\s+[^\W\d_]+)?\s+(?:are|were|both|r)\b")
# keywords of programming languages that people are also called (`elif x:`, `var name`, `echo $HOME`), and other
# languages' pronouns (`elle ne parlait pas`)
_KEYWORDS = _words(
    "elif var val echo dim nil enum const elsif unless fn pub elle ella ele lei lui sie hij zij hon han hen nous vous"
)
_OR_AFTER = re.compile(r"[ \t]+or[ \t]+([^\W\d_]+)(?![\w\-@.])")
_OR_BEFORE = re.compile(r"(?<![\w\-@./])([^\W\d_]+)[ \t]+or[ \t]+\Z")
_WITH_BEFORE = re.compile(r"(?<![\w/])w/[ \t]*\Z")
_BESIDE = re.compile(r"[ \t]*,?[ \t]*([^\W\d_]+)(?![\w\-@.])")
_BESIDE_BEFORE = re.compile(r"(?<![\w\-@./])([^\W\d_]+)[ \t]*,?[ \t]*\Z")


_ENGLISH = _words("the is are was to and you i i'm for on with from my me we can just so it at in of a an be will")
_OTHER_LETTERS = 20  # letters on a line besides the name for its language to be asked
_LINE_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")  # whole words: `tại` is no `i`


def _english_line(text: str, a: int) -> bool:
    """The line around text[a] is English chat: one of English's commonest words on it, and the language
    identifier not sure of another language (a Hausa or Tagalog line has an `a` or a `from` too)."""
    line = languages.around(text, a, 200)
    if not any(word in _ENGLISH for word in _LINE_WORD.findall(line.lower())):
        return False
    return _language(text, a) in ("en", None)


def _foreign_line(text: str, a: int) -> bool:
    """The language identifier is sure the line around text[a] is in another language than English: its cues
    (`email X`, `X said`) are English's."""
    return _language(text, a) not in ("en", None)


def _language(text: str, a: int) -> str | None:
    """The line's language, if the identifier is sure and the line has words enough besides the name at text[a]
    (`agnieszka ooo` is Polish to it by the name alone)."""
    line = languages.around(text, a, 200)
    letters = sum(c.isalpha() for c in line) - sum(c.isalpha() for c in text[a : a + 40].split(" ", 1)[0])
    return languages.language_at(text, a, 200) if letters >= _OTHER_LETTERS else None


def _either(kinds: Kinds, text: str, a: int, b: int) -> bool:
    """`mehdi or parisa`: a name alone, `or`, another name alone, each a given name and nothing else."""
    for match in (_OR_AFTER.match(text, b), _OR_BEFORE.search(text, max(0, a - 30), a)):
        if match is not None and match.group(1).islower() and _alone(kinds, match.group(1)):
            return True
    return False


def _alone(kinds: Kinds, word: str) -> bool:
    """A given name on sight and nothing else, in Latin letters: no English word, product or large place."""
    key = fold(word)
    lex = kinds.lex
    pure = len(key) > 2 and key not in lex.words and _LATIN.fullmatch(word) is not None
    return pure and kinds.given(key) == 2 and not kinds.product(key) and not kinds.big_place(key)


def _names_beside(kinds: Kinds, text: str, a: int, b: int) -> bool:
    """Another lower-case given name right before or after text[a:b] (`lukas anja`, `ravi, shreya`): two names
    side by side in lower case are people."""
    for match in (_BESIDE.match(text, b), _BESIDE_BEFORE.search(text, max(0, a - 30), a)):
        if match is None or not match.group(1).islower():
            continue
        if _alone(kinds, match.group(1)):
            return True
    return False


def _place(kinds: Kinds, text: str, a: int, b: int) -> bool:
    key = " ".join(fold(text[a:b]).split())
    lex = kinds.lex
    place = lex.places.get(key)
    if place is None or (place.kind == "city" and place.population < BIG_PLACE):
        return False
    if any(w in lex.words for w in key.split()) or kinds.given(key) == 2 or kinds.product(key):
        return False
    if (not cues.place_before(text, a) or cues.word_before(text, a) == "on") and not places.peoples_place_after(
        text, b
    ):
        return False  # no place's cue before it, nor a place people work at after it (`the durban office`)
    return not deployments.deployment(text, a, b, lex.products)
