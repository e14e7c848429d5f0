"""A chat log's speakers: the name in the slot a chat client writes before each message.

A chat client writes who speaks before what they say: Slack's and Teams'
copies `[12:30] Ollie: ...`, an IRC log's `<marek> ...`, a WhatsApp export's
`12/03/2024, 09:14 - Siobhan: ...`, Discord's `hiro — Today at 13:05`, Teams'
`Ingrid Solberg (10:41): ...`, a copy's `[10:31] Bakker, Femke` or
`Ffion Evans 10:44` over its message (and `[10:41] Élodie Marchand` where the
times are a chat's, or the name and the time on lines of their own), and a
bare `Marisol: ...` where several lines open the same way. A slot of one word
holds a handle, as `tomas.p` or `@m-osei` would, and so does the name after
a chat export's time (`09:14 - Siobhan Kelly:`), before Teams' bracketed
time or over a message; guards/names.py reads no person there. A bare slot
of several words is not a chat's (`Dear Ahmed Khan:`, a transcript's `Graham
Ellis:`, a YAML key) and is read as any name is. The same name said inside a
message (`ask Ollie`) is a person's as ever.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from typing import TYPE_CHECKING

from .cues import CLOSINGS, GREETINGS, TITLES
from .deployments import TIME_PREFIX
from .lexicons import fold
from .lexicons import words as _words
from .systems import TECH_WORDS

if TYPE_CHECKING:
    from .kinds import Kinds

# a speaker's handle: one word, no digit first (`Ollie`, `tomas.p`, `o'brien`); after a chat export's time, the
# name the account shows, of up to three words (`12/03/2024, 09:14 - Siobhan Kelly:`)
_NAME = r"[^\W\d_][\w.'’\-]*"
_SHOWN = rf"{_NAME}(?:[ \t]{_NAME}){{0,2}}"
# a WhatsApp export's date and time (`12/03/2024, 09:14 - `, `[12.03.24, 09:14:05] `, `3/12/24, 9:14 PM - `), and
# a copied message's time and date in brackets (`[9:41 AM, 3/14/2024] `, `[14:05, 14.3.2024] `); not an ISO date's
# `2024-03-15 09:12 - Maria Lopez:`, which a CRM's notes, a changelog and a visitor log write as often
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[AaPp]\.?[Mm]\.?)?"
# after an export's date, the time as the phone's locale writes it, with dots too (Indonesian's, Finnish's, Danish's
# `[20/10/24 19.02.11] `)
_EXPORT_CLOCK = r"\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:[ \t]?[AaPp]\.?[Mm]\.?)?"
_EXPORT = (
    rf"\[?\d{{1,2}}[./]\d{{1,2}}[./]\d{{2,4}},?[ \t]+{_EXPORT_CLOCK}\]?(?:[ \t]+-)?"
    rf"|\[{_CLOCK},[ \t]*\d{{1,2}}[./]\d{{1,2}}[./]\d{{2,4}}\]"
)
# (and a guest's tag before the colon: `[14:10] Harper Collins (Guest): ...`)
_TIMED = re.compile(
    rf"(?m)^[ \t]*(?:{_EXPORT}|{TIME_PREFIX})[ \t]+(?:<(?P<nick>[^\s<>]+)>|@?(?P<who>{_SHOWN})"
    rf"(?:[ \t]+\((?:External|Guest)\))?:)[ \t]"
)
# a time with the half of the day, then a name and a guest's tag: `[2:10 PM] Harper Collins (Guest): ...` (the tag
# says chat; not an agenda's `[9:00 AM] Anna Schmidt: keynote`)
_TIMED_GUEST = re.compile(rf"(?m)^[ \t]*\[{_CLOCK}\][ \t]+(?P<who>{_SHOWN})[ \t]+\((?:External|Guest)\):[ \t]")
NICK = re.compile(r"(?m)^[ \t]*<(?P<nick>[\w.\-]+)>[ \t]")
# Discord's copied header line, the name, a dash, the day and the time, nothing after: `hiro — 今日 13:05`, `frederik
# — i dag kl. 11:02`, `Ana — Yesterday at 9:14 PM`, and German's `gwen — Heute um 16:20 Uhr` (a dash is `-` once
# the text is normalised; not `Anna - 14:30`, nor a schedule's `Stefanie — ab 13:00 Uhr`)
# a Discord copy's day before its time, after a name shown in two or three words (`Zainab Hussain — Today at
# 20:01`; not an agenda's `Priya Raman — Opening remarks 09:30`)
_DISCORD_DAY = (
    r"[ \t]+[—–-][ \t]+(?:Today|Yesterday|Heute|Gestern|Aujourd[’']hui|Hier|Hoy|Ayer|Oggi|Ieri|Hoje|Ontem|Vandaag|"
    r"Gisteren|I[ \t]dag|I[ \t]går|Dzisiaj|Wczoraj|Сегодня|Вчера|\d{1,2}[./]\d{1,2}[./]\d{2,4})"
)
_DISCORD = re.compile(
    rf"(?m)^(?:(?P<who>{_NAME})|(?P<shown>{_NAME}(?:[ \t]{_NAME}){{1,2}})(?={_DISCORD_DAY}))[ \t]+[—–-][ \t]+"
    r"(?:[^\s\d][^\n]{0,30}?\d{1,2}[:.]\d{2}(?:[ \t]?[AaPp][Mm])?"
    r"|(?:Heute|Gestern|Vorgestern)[ \t]+um[ \t]+\d{1,2}:\d{2}[ \t]+Uhr)[ \t]*$"
)
# a guest's or an external's tag after the name shown, in several languages: `(Guest)`, `(Extern)`, `(invité)`
# (English's as Teams writes them, capitalised: not a programme's `Hugh Grant (host) 19:00`)
_TAGS = r"(?:External|Guest|(?i:extern|externe|gast|gäst|gjest|invité|invitado|ospite|gość))"
# Teams' copied line: the name shown, the time in brackets, a colon (`Ingrid Solberg (10:41): anyone moving...`)
# (also after the client's tag a copy carries: `[Teams] Lukas Berger (10:41): ...`)
_TEAMS = re.compile(
    rf"(?m)^[ \t]*(?:\[[A-Za-z]+\][ \t]+)?(?P<who>{_SHOWN})[ \t]+"
    rf"\((?:\d{{1,2}}:\d{{2}}(?:[ \t]?[AaPp][Mm])?|(?P<tag>{_TAGS}))\):[ \t]"
)
# a copy that puts the speaker and the time on a line of their own, the message under it (`[10:31] Bakker, Femke`
# then `Kun je ...`): a handle or `Surname, Given` (not an agenda's `[09:00] Anna Schmidt`), read where at least
# BARE_LINES lines do
_HEADED = re.compile(rf"(?m)^[ \t]*\[\d{{1,2}}:\d{{2}}\][ \t]+(?P<who>{_NAME}|{_NAME},[ \t]{_NAME})[ \t]*\n[ \t]*\S")
# a chat line's clock time, its hour and minute (and half of the day) read apart to tell a reply's few minutes
_CHAT_TIME = r"(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d)(?:[ \t]?(?P<half>[AaPp])[Mm])?"
# the same copy with the name shown whole (`[10:41] Élodie Marchand`), read where the times are a chat's: at least
# BARE_LINES lines, a clock's time, and one a reply to the one before, a few minutes after it (not an agenda's
# `[09:00] Anna Schmidt` / `[09:30] Kai Berg`, a call log's, a video's chapters past 23 minutes); no title or role
# before the name (`[13:21] Dr. Emily Chen`, `[14:02] Customer Olivia Brown`: a record's)
_HEADED_SHOWN = re.compile(
    rf"(?m)^[ \t]*\[{_CHAT_TIME}\]"
    rf"[ \t]+(?P<who>{_SHOWN})[ \t]*\n[ \t]*(?!\[\d)\S"
)
_REPLY_MINUTES = 3
_ROLES = frozenset(
    ["customer", "client", "patient", "nurse", "judge", "doctor", "driver", "guest", "visitor", "agent", "officer"]
)
# Teams' and Slack's copy that puts the name shown and the time on a line of their own, the message under it
# (`Rhiannon Price (Guest) 10:42` then `@Ffion can you...`), read where at least BARE_LINES lines do; Teams'
# `Nguyen, Bao 16:00` only where one line is a reply a few minutes after the one before
_STAMPED = re.compile(
    rf"(?m)^[ \t]*(?P<who>{_SHOWN}|{_NAME},[ \t]{_NAME})(?:[ \t]+\((?P<tag>{_TAGS})\))?[ \t]+"
    rf"{_CHAT_TIME}[ \t]*\n[ \t]*\S"
)
# Teams' copy that puts the name shown, then the time, each on a line of its own, the message under them
# (`Karin Ek` / `09:01` / `Har någon sett ...`), read where the times are a chat's, as _HEADED_SHOWN's are
_STACKED = re.compile(rf"(?m)^[ \t]*(?P<who>{_SHOWN})[ \t]*\n[ \t]*{_CHAT_TIME}[ \t]*\n[ \t]*\S")
_CALL_EVENT = re.compile(r"(?m)^[ \t]*(?:Joined|Left)[ \t]+the[ \t]+(?:call|meeting)[ \t]*$")
_BARE = re.compile(rf"(?m)^(?P<who>{_NAME}):[ \t]+\S")  # not indented: a YAML key (`  Elena Rossi: [backend]`)
_LEVEL = frozenset(["info", "warn", "warning", "error", "err", "debug", "trace", "fatal", "notice", "crit", "critical"])
_PARTICLES = frozenset(
    [
        "de",
        "van",
        "der",
        "den",
        "da",
        "di",
        "del",
        "la",
        "le",
        "von",
        "ten",
        "ter",
        "bin",
        "al",
        "el",
        "ap",
        "ní",
        "nic",
        "mac",
    ]
)  # `Ria de Boer`
# a Teams copy's plain speaker line: two or three words, or `Surname, Given` (`Gómez Ruiz, Lucía` too)
_PLAIN_NAME = re.compile(rf"{_NAME}(?:[ \t]{_NAME}){{1,2}}|{_NAME}(?:[ \t]{_NAME})?,[ \t]{_NAME}")
_MESSAGE_WORDS = 3  # a message's words, in one at least: not only a role's lines under names (`Registrar, Sales`)
_LABELLED = re.compile(r"[^\s:]{1,30}:(?:\s|\Z)")  # `DOB: 1980-02-01`: a record's field, not a message
# a reply's first word: `ok`, `thanks`, `LGTM`, `Danke`, `Igen,`
_REPLIES = _words(
    "ok okay yes yeah yep no nope thanks thx np ack done lgtm agreed approved sure danke merci gracias grazie "
    "obrigado obrigada igen rendben tak takk tack kiitos ja sí sim oui perfetto ottimo vale claro bedankt dank "
    "dzięki спасибо да ок хорошо evet tamam hvala"
)
# a capitalised word, and a workplace's preposition before it: `at Siemens`, `bei SAP`, `chez Doctolib`
_CAPITALISED = re.compile(
    r"(?:(?<![\w\-])(at|bei|chez|presso|for|für|hos|på|w|u)[ \t]+)?(?<![\w\-])([A-Z][\w\-]*[a-z][\w\-]*)"
)
# a system's token in a message: a path, a snake_case name (`/lampshades/custom`, `max_conn`; not `Q3`, `room B2`)
_SYSTEM_TOKEN = re.compile(r"(?<![\w/])/\w|\w_\w")
_WORD_AFTER = re.compile(r"[ \t]+([a-z][a-z\-]*)\b")
# a value a roster or a contact list writes beside a name: an address, a long number
_CHAT_VALUE = re.compile(r"@|\d[\d \-]{5,}\d")
# the letters of scripts written without spaces between words: Han, kana, Thai, Lao, Khmer, Burmese
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\u0e00-\u0eff\u1780-\u17ff\u1000-\u109f]")
_REACTIONS = frozenset("👍👎🙏👌❤🙂😊😀😃😄😁😂🤣😅😉😍🥳🎉💯🔥👏🙌✌🤝👀🙈😢😬🤔")  # (with skin tones, U+FE0F)
BARE_LINES = 2  # bare `Name: ...` lines a text needs to be a chat log's (one is a field: `Reporter: Ana`)


def speakers(text: str, kinds: Kinds | None = None) -> list[tuple[int, int]]:
    """Where text's chat lines name their speaker: after a time, in an IRC nick's brackets, before Discord's dash
    and time, or bare at a line's start where at least BARE_LINES lines open so with a message after the colon;
    with the lexicons' `kinds`, a Teams copy's plain speaker lines too (_plain_speakers)."""
    plain = _plain_speakers(text, kinds) if kinds and "\n" in text and not _CHAT_VALUE.search(text) else []
    if ":" not in text and "<" not in text:
        return plain  # every other format's time has a colon, or an IRC nick its bracket
    out = [_slot(m) for m in _TIMED.finditer(text)] + [m.span("nick") for m in NICK.finditer(text)]
    out += [m.span("who") for m in _TIMED_GUEST.finditer(text)] if "uest)" in text or "xternal)" in text else []
    discord = _DISCORD.finditer(text) if " - " in text or " — " in text else ()
    out += [m.span("who") if m.group("who") else m.span("shown") for m in discord]
    teams = [m for m in _TEAMS.finditer(text)] if "):" in text else []
    # a guest's or an external's tag for the time only in a Teams copy (not a booking log's `Anna Schmidt (Guest):`)
    out += [m.span("who") for m in teams if m.group("tag") is None or "Teams" in text]
    bare = [m.span("who") for m in _BARE.finditer(text)]
    if len(bare) >= BARE_LINES:
        out += bare
    headed = [m.span("who") for m in _HEADED.finditer(text)] if "]" in text else []
    if len(headed) >= BARE_LINES:
        out += headed
    stacked = list(_STACKED.finditer(text))
    if len(stacked) >= BARE_LINES and _replies(stacked):  # (not a roster's, an agenda's or a boarding list's)
        out += [m.span("who") for m in stacked]
    shown = list(_HEADED_SHOWN.finditer(text)) if "]" in text else []
    if len(shown) >= BARE_LINES and _replies(shown):
        out += [m.span("who") for m in shown]
    out += plain
    stamped = list(_STAMPED.finditer(text))
    # Teams' own: a guest's or an external's tag on a line, or the client named (not a schedule's `Dr Rahman 08:00`
    # or `Call Maria Lopez 10:30`)
    # (or a call's events that Teams writes as messages: `Joined the call`, `Left the call`, two at least)
    events = len(_CALL_EVENT.findall(text)) >= BARE_LINES
    if len(stamped) >= BARE_LINES and ("Teams" in text or events or any(m.group("tag") for m in stamped)):
        # (`Surname, Given 16:00` where the times are a chat's, not an interview schedule's `Okafor, David 11:00`)
        chat = _replies(stamped) or events
        out += [m.span("who") for m in stamped if "," not in m.group("who") or chat]
    return [(a, b) for a, b in out if text[a:b].lower() not in _LEVEL and _shown(text[a:b])]


def _plain_speakers(text: str, kinds: Kinds) -> list[tuple[int, int]]:
    """A Teams copy's plain speaker lines: from the text's first line on, a name alone on its line, then its
    message, over and over, two turns at least (`Rui Figueiredo` / `O deploy do Airflow falhou` / `Sofia Antunes` /
    `É o Vault, o token expirou`), where a message has a chat's marks (_talk). Not a list of names (one after
    another), nor a signature, nor names each with a line about the person (`Head of sales, based in Madrid`); the
    caller reads none where a value is written (a roster's phone, an e-mail)."""
    lines = text.strip().split("\n")
    if len(lines) < 4 or len(lines) % 2:
        return []
    start = text.index(lines[0])
    out, names = [], set()
    for i, line in enumerate(lines):
        bare = line.strip()
        if i % 2 == 0:
            if not _PLAIN_NAME.fullmatch(bare) or not _shown(bare) or not _known_name(kinds, bare):
                return []
            at = start + line.index(bare)
            out.append((at, at + len(bare)))
            names.add(bare)
        elif not bare or _PLAIN_NAME.fullmatch(bare) or _LABELLED.match(bare):
            return []
        start += len(line) + 1
    messages = [line.strip() for line in lines[1::2]]
    if len({m.split()[0].lower() for m in messages}) == 1:
        return []  # `mora em Lisboa` / `mora no Porto`: a list's entries, written alike
    said = any(_wordy(m) for m in messages) and (
        any(_talk(m, kinds) for m in messages) or any(_emoji_only(m) for m in messages[1:])
    )
    return out if len(out) > 1 and said and _turns(names, len(out), messages) else []


def _wordy(message: str) -> bool:
    """A message of _MESSAGE_WORDS words at least, or of as many words' letters in a script written without spaces
    (`テストの結果、Kafka のコンシューマーが遅延しています`)."""
    return len(message.split()) >= _MESSAGE_WORDS or len(_UNSPACED.findall(message)) >= 2 * _MESSAGE_WORDS


def _foreign(message: str) -> bool:
    """A message written mostly in letters other than Latin ones (a product's Latin name in it is a system's)."""
    letters = [c for c in message if c.isalpha()]
    return 2 * sum(c.isascii() or "\u00c0" <= c <= "\u024f" for c in letters) < len(letters)


def _emoji_only(message: str) -> bool:
    """A reply of a reaction's emoji alone (`👍`, `🙏🏽`, `👌`): a chat's, never a record's field (not a status's or a
    rating's mark: `✔`, `✅`, `⭐`, `❌`, `📞`)."""
    return any(c in _REACTIONS for c in message) and all(
        c in _REACTIONS or c.isspace() or unicodedata.category(c) in ("Sk", "Mn", "Cf") for c in message
    )


def _turns(names: set[str], lines: int, messages: list[str]) -> bool:
    """A conversation's marks: someone speaks twice, a question is asked, or a message after the first opens with
    a reply's word (`ok`, `thanks`, `LGTM`, `Igen,`); a directory, a roster, minutes or a list of bios has none."""
    if (len(names) > 1 and len(names) < lines) or any(q in m for m in messages for q in "?？؟"):
        return True  # (one person's name over each of their notes is a note's, a diary's: no turn is taken)
    return any(m.split()[0].strip(",.!:;").lower() in _REPLIES or _emoji_only(m) for m in messages[1:])


def _known_name(kinds: Kinds, line: str) -> bool:
    """A speaker's name as Teams shows it: a given name or a surname the lexicons know, no title, greeting or
    closing (not `Dr Anna Berg`, `Hi Marco`, `Best Regards`)."""
    keys = [fold(w) for w in line.replace(",", " ").split()]
    if any(k in TITLES or k in GREETINGS or k in CLOSINGS for k in keys):
        return False
    return any(kinds.given(k) == 2 or k in kinds.lex.surnames for k in keys)


def _talk(message: str, kinds: Kinds) -> bool:
    """A chat message about systems, not a line about a person (`senior engineer at Siemens`, `Yes, attending
    alone`, `Where did you grow up?`, `CTO, based in Milan`): a system's token (`/lampshades/custom`,
    `max_conn`), or a product named that is no English word, place or given name, not as where someone works
    (`the Grafana panel is empty`, `O deploy do Airflow falhou`)."""
    if _SYSTEM_TOKEN.search(message):
        return True
    for m in _CAPITALISED.finditer(message):
        key = fold(m.group(2))
        named = key in kinds.lex.words or kinds.lex.knows_place(key) or kinds.given(key)
        if m.group(1) is None and kinds.product(key) and (not named or _system_noun_after(message, m.end())):
            return True
        if m.group(1) is None and kinds.product(key) and not kinds.given(key) and _foreign(message):
            return True  # `Kafka のコンシューマーが遅延しています`: a product's Latin name in another script's message
    return False


def _system_noun_after(message: str, b: int) -> bool:
    """A system's noun right after the word ending at message[b] (`de Prometheus alert`, `de Thanos upgrade`)."""
    after = _WORD_AFTER.match(message, b)
    return after is not None and after.group(1).lower() in TECH_WORDS


def _replies(lines: list[re.Match[str]]) -> bool:
    """A chat's headed lines: one a reply within _REPLY_MINUTES of the line before it, and no name led by a title
    or a role."""
    if any(m.group("who").split()[0].rstrip(".").lower() in TITLES | _ROLES for m in lines):
        return False
    minutes = [_minute_of_day(m) for m in lines]
    return any(0 <= b - a <= _REPLY_MINUTES for a, b in itertools.pairwise(minutes))


def _minute_of_day(m: re.Match[str]) -> int:
    hour = int(m.group("hour"))
    if m.group("half"):  # `[12:01 PM]`
        hour = hour % 12 + (12 if m.group("half") in "Pp" else 0)
    return hour * 60 + int(m.group("minute"))


def _shown(slot: str) -> bool:
    """A name's casing: every word capitalised or in a script without case (`أبو خالد`), or all in lower case (not
    `09:02 Lena paged:`, a log's sentence)."""
    words = slot.split()
    return (
        len(words) == 1
        or slot.islower()
        or (not words[0][0].islower() and all(not w[0].islower() or w in _PARTICLES for w in words[1:]))
    )


def _slot(match: re.Match[str]) -> tuple[int, int]:
    return match.span("nick") if match.group("nick") is not None else match.span("who")


def opens_message(text: str, a: int) -> bool:
    """text[a:] is a message's first word, right after its speaker's slot on its line (`[21:40] Ewa: Dvořák z
    Brna poslal`, `<andrei> Popescu a trimis`, `Nadia: Dupont-Moreau veut`)."""
    start = text.rfind("\n", max(0, a - 200), a) + 1 or max(0, a - 200)
    for pattern in (_TIMED, NICK, _TEAMS, _BARE):
        match = pattern.match(text, start)
        end = -1 if match is None else match.end() - (pattern is _BARE)  # _BARE ends on the message's first letter
        if match is not None and end <= a and not text[end:a].strip(" \t-:"):
            return True
    return False
