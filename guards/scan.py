"""Find personal data in text, once per distinct text: the analyzer, a content-hash cache, redaction.

Each text is read more than one way before presidio decides (normalize.py,
views.py): normalised (compatibility forms, digits of every script, spaces,
dashes, invisible characters), with the separators inside digit runs removed,
and with bounded base64/hex runs decoded. What any reading finds maps back to
the characters of the original text.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Literal, Protocol

from presidio_analyzer import RecognizerResult
from presidio_analyzer.predefined_recognizers import CreditCardRecognizer
from spacy.lang.en.stop_words import STOP_WORDS

from . import mailboxes, phones, places
from .findings import Finding, Overlaps, redact, resolve_overlaps
from .names import Label, Names
from .normalize import Mapped, normalize, splice
from .presidio import (
    NER_ENTITIES,
    PATTERN_ENTITIES,
    Backend,
    ChecksumIbanRecognizer,
    IssuedSsnRecognizer,
    analyzer,
    card_recognizer,
    issued_length,
    not_a_phone,
    regions_of,
    valid_somewhere,
    zones,
)
from .records import INSERT, ROW
from .testvalues import published
from .views import Decoding, Regions, decoded, joined
from .zones import Zones

__all__ = ["CHUNK_CHARS", "Analyzer", "Finding", "Scanner", "name_parts", "redact", "resolve_overlaps"]
Path = tuple[str | int, ...]
# a long text is read in chunks of about this size, cut at a sentence's end where there is one: each call stays
# well under spaCy's limit (E088), and an analysis past its budget stops within one chunk's time (~0.4 s)
CHUNK_CHARS = 8_000
OVERLAP_CHARS = 512  # consecutive chunks share this much, so an entity across a cut is whole in one of them
JOINED_ENTITIES = ("CREDIT_CARD", "IBAN_CODE", "US_SSN")  # read again with digit-group separators removed
Checkpoint = Callable[[], None]
NerScope = Literal["capitalised", "all"]
Part = tuple[int, int]
MIN_PHONE_DIGITS = 7  # fewer digits than any subscriber number with its area code
SSN_MEDIUM = 0.5  # presidio's score for an SSN in its own shape; below: a bare number a context word raised
_SSN_CONTEXT = re.compile(r"ssn|social|security|ssid", re.IGNORECASE)
_E164_DIGITS = 15  # the most digits a phone number has
_PHONE_WORD = re.compile(
    r"(?i)\b(?:phone|tel|telephone|call|mobile|cell|fax|sms|whatsapp|teléfono|telefono|telefone|telefon|móvil|movil|"
    r"celular|telemóvel|telemovel)\b"
)
_PHONE_WORD_REACH = 30
_SSN_GROUPED = re.compile(r"\d{3}([ \-.])\d{2}\1\d{4}")  # an SSN's groups, 3-2-4, one separator
NAME_SCORE = 0.85  # what a name the lexicons and cues decided scores (the NER model's names score the same)


class Analyzer(Protocol):
    def analyze(
        self, text: str, language: str, *, entities: list[str] | None = ..., score_threshold: float | None = ...
    ) -> list[RecognizerResult]: ...


def _no_checkpoint() -> None:
    return None


class Scanner:
    """presidio behind a bounded LRU keyed by the text's hash.

    A conversation resends its earlier turns; each distinct text is analysed
    once, so a turn costs only its new text. `cached` runs on the event loop;
    `analyze` is the blocking call that belongs on a worker thread. Further
    readings use the pattern analyzer: `separators` for JOINED_ENTITIES, and
    decoded runs for `decode.entities` (the types whose action is block).
    """

    def __init__(
        self,
        backend: Backend,
        entities: Sequence[str],
        threshold: float,
        cache_entries: int,
        decode: Decoding | None = None,
        ner_scope: NerScope = "capitalised",
        names: Names | None = None,
    ):
        self.backend = backend
        self.entities = list(entities)
        # NER reads only the sentences that could hold a name (see `name_parts`); the pattern types, every word
        self.ner_only = ner_scope == "capitalised" and backend == "ner"
        # names: lexicons and cues decide names, and NER reads only what they cannot (guards/names.py)
        self.names = names if backend == "ner" else None
        self.pattern_entities = [e for e in self.entities if e in PATTERN_ENTITIES]
        self.ner_entities = [e for e in self.entities if e in NER_ENTITIES]
        self.threshold = threshold
        self.engine: Analyzer = analyzer(backend)
        self.patterns: Analyzer = analyzer("patterns")
        self.engine_zones, self.pattern_zones = zones(backend), zones("patterns")
        self.nlp = self.engine_zones.nlp
        self.joined_entities = [e for e in self.entities if e in JOINED_ENTITIES]
        self.decode = decode if decode is not None and decode.entities else None
        self._cache: OrderedDict[bytes, tuple[Finding, ...]] = OrderedDict()
        self._limit = cache_entries
        self._lock = threading.Lock()

    def cached(self, text: str) -> tuple[Finding, ...] | None:
        key = _digest(text)
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
            return found

    def analyze(self, text: str, checkpoint: Checkpoint = _no_checkpoint) -> tuple[Finding, ...]:
        """Analyse `text` in each of its readings (long ones in bounded chunks) and remember the result.

        `checkpoint` is called before each analyzer call; it may raise to stop.
        """
        plain = normalize(text)
        patterned = _unglued(plain)
        if self.names is not None:
            found = self._find(self.patterns, self.pattern_zones, patterned, self.pattern_entities, checkpoint)
            found.extend(self._named(plain, checkpoint, _valued(text, found)))
            if "PHONE_NUMBER" in self.pattern_entities:
                found.extend(_phones_beside_names(text, found))
        elif self.ner_only:
            found = self._find(self.patterns, self.pattern_zones, patterned, self.pattern_entities, checkpoint)
            if self.ner_entities and (parts := name_parts(plain.text)):
                view, spans = _parts_view(plain, parts)  # one call for all of them: NER costs ~2 ms a call here
                named = self._find(self.engine, self.engine_zones, view, self.ner_entities, checkpoint)
                found.extend(_within(named, spans))
        else:
            found = self._find(self.engine, self.engine_zones, patterned, self.entities, checkpoint)
        if "CREDIT_CARD" in self.entities:
            found.extend(_cued_long_cards(text, found))
        if "IBAN_CODE" in self.entities and len(text) >= 17:
            found.extend(_overrun_ibans(text, found))
        if "US_SSN" in self.entities:
            found.extend(_tins(text, found))
        for view, regions, entities in self._readings(plain, found):
            found.extend(self._find(self.patterns, self.pattern_zones, view, entities, checkpoint, regions))
        if "US_SSN" in self.entities:  # after the readings: an SSN written spaced is found by one of them
            found.extend(_written_again(text, found, "US_SSN"))
            found.extend(_another_ssn(text, found))
            found.extend(_same_column(text, found))
            found.extend(_ssns_beside_names(text, found))
            if "-" in text:
                found.extend(_masked_again(text, found))
            if "values" in text.lower():
                found.extend(_inserted_ssns(text, found))
            if "ssn" in text.lower() and "\n" in text:
                found.extend(_headed_ssns(text, found))
        if "CREDIT_CARD" in self.entities and "\n" in text and _CARD_HEADER_WORD.search(text):
            found.extend(_headed_cards(text, found))
        found.extend(_row_values(text, found, self.entities))
        if "PHONE_NUMBER" in self.entities and "+" in text:
            found.extend(_listed_phones(text, found))
        if "EMAIL_ADDRESS" in self.entities and "> <" in text:
            found.extend(_second_addresses(text, found))
        findings = resolve_overlaps(_fixed(text, found))
        if self._limit:
            key = _digest(text)
            with self._lock:
                self._cache[key] = findings
                self._cache.move_to_end(key)
                while len(self._cache) > self._limit:
                    self._cache.popitem(last=False)
        return findings

    def _named(self, plain: Mapped, checkpoint: Checkpoint, valued: bool = False) -> list[Finding]:
        """PERSON and LOCATION by the lexicons and cues; the NER model reads the sentences they leave open.
        `valued`: a person's value was found in the text (a phone number, a card, an IBAN, an SSN)."""
        assert self.names is not None
        wanted = set(self.ner_entities)
        spans = self.names.find(plain.text, functools.partial(self._ner_labels, checkpoint=checkpoint), valued)
        return [Finding(e, *plain.span(a, b), NAME_SCORE) for e, a, b in spans if e in wanted and b > a]

    def _ner_labels(self, text: str, spans: Sequence[tuple[int, int]], checkpoint: Checkpoint) -> list[Label]:
        """The NER model's entities in the sentences holding `spans`, read in one call."""
        parts = sentences_around(text, spans)
        view, _ = _parts_view(Mapped(text), parts)
        checkpoint()
        with self.engine_zones.reading():
            doc = self.nlp(view.text)
            return [(*view.span(e.start_char, e.end_char), e.label_) for e in doc.ents if e.end_char > e.start_char]

    def _readings(self, plain: Mapped, found: list[Finding]) -> Iterator[tuple[Mapped, Regions, list[str]]]:
        """The further readings worth a call: a run the text as written already revealed is not read again."""
        known = [(f.start, f.end) for f in found if f.entity in JOINED_ENTITIES]
        if self.joined_entities and (view := joined(plain, known)) is not None:
            yield view[0], view[1], self.joined_entities
        if self.decode is not None and (view := decoded(plain, self.decode)) is not None:
            yield view[0], view[1], list(self.decode.entities)

    def _find(
        self,
        engine: Analyzer,
        zone: Zones,
        text: Mapped,
        entities: list[str],
        checkpoint: Checkpoint,
        regions: Regions | None = None,
    ) -> list[Finding]:
        """Findings of one reading, in the original's positions; with `regions`, only those touching one."""
        out: list[Finding] = []
        for offset, chunk in _chunks(text.text, CHUNK_CHARS):
            checkpoint()
            with zone.reading():  # what spaCy learns from the chunk is freed with the zone
                results = engine.analyze(chunk, language="en", entities=entities, score_threshold=self.threshold)
            for r in results:
                start, end = r.start + offset, r.end + offset
                via = "" if regions is None else _touching(regions, start, end)
                if via is not None and end > start:
                    out.append(Finding(r.entity_type, *text.span(start, end), float(r.score), via))
        return out


# a letter of a script written without spaces right against a digit: `SSN은 763-19-5323이에요`, `卡号6246...`, or
# against an address's first or last letter (`请联系zhang.wei@shop.cn谢谢`, `sehoon.oh@jeonju-insam.kr입니다`); the
# recognizers' word boundaries see no edge between them (both are word characters)
_PREFIX_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=\+\d)")  # Hebrew's `ל-+972 ...`: a prefix's hyphen before a number
_GLUED = re.compile(
    r"(?<=[\dA-Za-z])[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
    r"|[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af](?=[\dA-Za-z])"
)


def _unglued(plain: Mapped) -> Mapped:
    """`plain` with a space between a digit or a Latin letter and a letter of such a script, for the pattern
    recognizers."""
    if plain.text.isascii():
        return plain
    edits = [(m.start(), m.end(), " ") for m in _PREFIX_HYPHEN.finditer(plain.text)]
    for m in _GLUED.finditer(plain.text):
        i = m.start()
        before = " " if i > 0 and (plain.text[i - 1].isdigit() or plain.text[i - 1].isascii()) else ""
        after = " " if plain.text[i + 1 : i + 2].isdigit() or plain.text[i + 1 : i + 2].isascii() else ""
        edits.append((i, i + 1, before + m.group() + after))
    return splice(plain, sorted(edits))[0] if edits else plain


# a card of 19 digits written without separators, which a trace or snowflake id also is: a card's word just before
# says which (`卡号=6246016160610535392`, `card 6759586715219769577`, `карта 2204...`, `fallbackCard: "6212...`),
# or a Luhn check's call on it
# (a sentence's full stop may end it, not a decimal's or a file's: `káàdì 6500...894.`, not `...894.5`, `...894.json`)
_LONG_CARD = re.compile(r"(?<![\d.\-])(?:4|5[06-8]|6|220[0-4])\d{15,18}(?![\d\-])(?!\.\w)")
# one of 19 printed in a group of six, then one of thirteen (`621702 9979056539683`), as UnionPay's and Maestro's
# are too, which an id and a timestamp in milliseconds also are: a card's word before it on its line says which
_CARD_6_13 = re.compile(r"(?<![\d.\-])(?:4\d{5}|5[06-8]\d{4}|6\d{5}|220[0-4]\d\d)[ \-]\d{13}(?![\d\-])(?!\.\w)")
_CARD_ON_LINE = re.compile(
    r"(?i:card|unionpay|union pay|maestro|verve|tarjeta|karte|carte|cart[ãa]o|карт)|卡|カード|카드"
)
_CARD_WORD = re.compile(
    r"(?<!sd )(?<!sim )(?:(?i:\b(?:card|cc|pan|karte|carte|tarjeta|cart[ãa]o|carta|kaart|kort|karta|kartu|kart|карта|"
    r"карты|картой|карт[аыуе]?|kartım|kartımı|kartımla|katin|katina|katinsa|katinta|kadi|kortet|kortti|"
    r"korttini|"
    # a long card's brand, and Yoruba's card: `UnionPay 6217 7406 ...`, `Verve 6500 2730 ...`, `káàdì 6500...`
    r"(?P<brand>verve|unionpay|union[ \t]pay|maestro|rupay)|káàdì)\b|"
    # (and Chinese's and Cantonese's paying by card: `用卡 6253...`, `刷卡 6217...`)
    r"卡号|卡號|银行卡|信用卡|銀行卡|银联卡|銀聯卡|用卡|刷卡|カード|카드|कार्ड|কার্ড|ਕਾਰਡ|કાર્ડ|கார்டு|కార్డ్|ಕಾರ್ಡ್|കാർഡ്|بطاقة|بطاقتي|"
    r"کارت|כרטיס|บัตร|支付卡|"
    # and Vietnamese's card (not English's `the`), its credit, debit and ATM cards, but not a tag's, a tab's, a
    # card's serial or a transaction's code (`gắn thẻ`, `mở thẻ`, `seri thẻ`, `mã giao dịch thẻ`)
    r"(?<![Gg]ắn )(?<![Mm]ở )(?<![Ss]eri )(?<!dịch )\b[Tt]hẻ(?:[ \t]+(?:tín[ \t]+dụng|ghi[ \t]+nợ|ATM|atm|số))?\b)"
    # a payment's constructor with the number first, quoted, then a currency: `new Payment("6217...", "CNY", ...)`
    r"|(?<=new )(?P<call>Payment|CardPayment|PaymentCard)\([ \t]*"
    # a payment's word before `card` or `pan` in a key, camel-cased or after an underscore: `fallbackCard: "`,
    # `refund_card=`, `TEST_CARD_PAN` (not `scoreCard`, `sim_card`, `id_card`, `time_pan`)
    r"|(?<![A-Za-z])(?i:backup|fallback|refund|default|primary|payment|credit|debit|bank|saved|stored|test|billing|"
    r"funding|card)_?(?:Card|CARD|card|Pan|PAN|pan)\b"
    # a card's brand as a key's first word: `unionpay_backup = `, `visa_primary: `
    r"|(?<![A-Za-z])(?i:unionpay|visa|mastercard|amex|maestro|verve|rupay|discover|jcb)_\w{1,20}(?=[ \t]*[=:])"
    # an environment's key in capitals that ends in a payment's card: `PILOT_CARD=`, `TEST_PAYMENT_CARD_PAN=`,
    # `CORPORATE_CARD=` (not a board's, a screen's, a transit's, a library's, a GPU's: `KANBAN_CARD`, `NFC_CARD`)
    r"|(?<![A-Za-z0-9_])(?:[A-Z0-9]+_)*(?:PILOT|TEST|BACKUP|CORPORATE|COMPANY|PAYMENT|CREDIT|DEBIT|BANK|BILLING|"
    r"FUNDING|VIRTUAL|PRIMARY|SECONDARY|DEFAULT|SANDBOX|DEMO|REFUND|FALLBACK|STORED|SAVED|CUSTOMER|OWNER|BUSINESS|"
    r"TRAVEL|EXPENSE|FUEL|PURCHASING|PROCUREMENT)_CARD(?:_(?:PAN|NUMBER|NUM|NO))?(?=[\"']?[ \t]*[=:])"
    # a card's number as a key: `card_no=`, `"card_number":`, `cardNumber`, `CC_NUM`, `paymentCardNumber` (not
    # another card's: `id_card_no`, `loyalty_card_no`, `gift-card-no`)
    r"|(?<![\w\-])(?i:(?:credit|debit|bank|payment|billing)_?)?(?i:card|cc)[_\-]?(?i:number|num|no|nr)(?![A-Za-z])"
    # a Luhn check's call on it, in a test or a validator: `luhn("5060...")`, `isValidLuhn('6212...')`,
    # `luhn_checksum(`, `luhn.is_valid(`, `Luhn::valid(` (not `unluhn(`, `sort_by_luhn_then_id(`)
    r"|(?<![A-Za-z])(?i:(?:is_?valid_?|check_?|validate_?|verify_?)?luhn(?:_?(?:check(?:sum)?|valid(?:ate)?|ok))?"
    r"(?:(?:\.|::)(?:is_?valid|valid(?:ate)?|check))?)\([ \t]*)"
    r"(?i:[ \t]*(?:number|no\.?|nr\.?|num|n°|#|номер|番号|号|번호|नंबर|नम्बर|संख्या))?"
    r"[\"']?[ \t]*(?:=>|[=:])?[ \t]*[\"'«]?\Z"
)  # `card 6759...`, `卡号=6246...`, `card number: `, `"card": "`, PHP's `'card' => '`; not `sd card`, `card count: `
_ID_CARD_AFTER = re.compile(r"[ \t]*[（(]身份证|[ \t]*[（(]身份證")
# a card's column in the row's statement before the value: `INSERT INTO refunds (customer, pan, amount) VALUES ('`
_CARD_COLUMN = re.compile(
    r"(?i:\((?:[^()\n]*,[ \t]*)?(?:pan|card|card_?number|card_?no|cc_?number)[ \t]*[,)][^()\n]*\)[ \t]*values[ \t]*)"
    r"\((?:[^()\n]*,[ \t]*)?'\Z"
)
LONG_CARD_SCORE = 0.85
# what a card printed six and thirteen may hold already: a card read in its last group, a phone in its thirteen
# (`银联卡 622874 0563397939367`)
_GROUP_READINGS = frozenset(["CREDIT_CARD", "PHONE_NUMBER"])
_CARD_READING = frozenset(["CREDIT_CARD"])
# a card's record, its number under a plain key: `- holder: "Liu Yang"` / `number: "6283..."` / `brand: unionpay`
_NUMBER_KEY = re.compile(r"(?i)\b(?:number|num|no|pan)[\"']?[ \t]*[=:][ \t]*[\"']?\Z")
_CARD_RECORD = re.compile(
    r"(?i)\b(?:brand|network|scheme)[\"']?[ \t]*[=:][ \t]*[\"']?(?:unionpay|union[ \t]pay|visa|mastercard|maestro|"
    r"verve|mir|rupay|discover|jcb|amex|elo|troy|dankort|diners)\b|\b(?:card_?)?holder[\"']?[ \t]*[=:]|"
    r"\bcards[\"']?[ \t]*:|\b(?:expiry|exp_?date|cvv|cvc)[\"']?[ \t]*[=:]"
)
_CARD_RECORD_REACH = 120
_CURRENCY_AFTER = re.compile(r"[\"'][ \t]*,[ \t]*[\"'][A-Z]{3}[\"']")


# RuPay's own range, which presidio's card pattern does not read: `मेरे रुपे कार्ड 8171 5532 9795 7163`
_RUPAY = re.compile(r"(?<![\d.\-])8[12]\d\d(?P<sep>[ \-]?)\d{4}(?P=sep)\d{4}(?P=sep)\d{4}(?![\d.\-])")


# a card's expiry or its security code right after the number
_EXPIRY_AFTER = re.compile(r"(?i)[ \t,;]*(?:exp(?:iry|ires)?|valid[ \t]+thru|cvv2?|cvc2?)\b")


_PERSONAL_VALUES = frozenset(["PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN"])


# an operator's number, not a person's: `NOC hotline +1 ...`, `pipeline notifies +1 ...`, `TWILIO_NUMBER=+1...`
_OPERATORS_PHONE_BEFORE = re.compile(
    r"(?i:\b(?:noc|on-?call|pager(?:duty)?|paged|hotline|escalations?|help-?desk|support[ \t]+(?:line|number|phone)|"
    r"notif(?:y|ies|ied|ications?)|alert(?:s|ing)?|twilio_\w+|smpp|sip|trunk|ivr|dial(?:s|ed|ing|led|ling)?|"
    r"call[ \t]+cent(?:er|re)s?|desk[ \t]+phones?|remote[ \t]+hands|sender[ \t]+id)\b)"
)
_OPERATORS_REACH = 50


def _valued(text: str, found: list[Finding]) -> bool:
    """A person's number among `found`: not a value published for tests (`4111 1111 1111 1111`), nor a phone an
    operator's word comes before on its line (`NOC hotline +1 (212) ...`, `notifies +1 312 ...`)."""
    return any(
        f.entity in _PERSONAL_VALUES and not published(f.entity, text[f.start : f.end]) and not _operators(text, f)
        for f in found
    )


def _operators(text: str, finding: Finding) -> bool:
    if finding.entity != "PHONE_NUMBER":
        return False
    start = max(text.rfind("\n", 0, finding.start) + 1, finding.start - _OPERATORS_REACH)
    return _OPERATORS_PHONE_BEFORE.search(text, start, finding.start) is not None


# the ranges of the brands whose cards run to 19 digits: UnionPay's, Verve's, Maestro's
_BRAND_RANGES = {
    "unionpay": ("62", "81"),
    "verve": ("5060", "5061", "6500"),
    "maestro": ("50", "56", "57", "58", "63", "67"),
    "rupay": ("60", "65", "81", "82", "508", "353", "356"),
}


def _branded(brand: str, cue: str, digits: str) -> bool:
    """A card's number in its brand's range, after the brand's name with no `#` (not a run's or a batch's)."""
    key = "".join(brand.lower().split())
    return "#" not in cue and digits.startswith(_BRAND_RANGES[key])


def _cued_long_cards(text: str, found: list[Finding]) -> list[Finding]:
    """Cards of 17 to 19 digits without separators or in 6-13 groups, and RuPay's of its own range, after a card's
    word, Luhn-valid, of a network that issues them so long, where no finding is yet."""
    out = []
    taken: Overlaps | None = None
    longs = _LONG_CARD.finditer(text) if len(text) >= 17 else ()
    grouped = _CARD_6_13.finditer(text) if len(text) >= 20 else ()
    for m in itertools.chain(longs, grouped, _RUPAY.finditer(text) if "8" in text else ()):
        a, b = m.span()
        digits = "".join(c for c in m.group() if c.isdigit())
        cued = _CARD_WORD.search(text, max(0, a - 32), a) or _CARD_COLUMN.search(text, max(0, a - 200), a)
        if m.re is _RUPAY and not cued:
            cued = _EXPIRY_AFTER.match(text, b)  # `8253 7824 4425 2068 exp 09/27 CVV 412`
        strict = cued is not None  # a card's word right before it, not only somewhere on its line
        if m.re is _CARD_6_13 and not cued:
            cued = _CARD_ON_LINE.search(text, text.rfind("\n", 0, a) + 1, a)
        if not cued and _NUMBER_KEY.search(text, max(0, a - 12), a):
            cued = _CARD_RECORD.search(text[max(0, a - _CARD_RECORD_REACH) : b + _CARD_RECORD_REACH])
        if (len(digits) < 17 and digits[0] != "8") or not cued:
            continue
        if _ID_CARD_AFTER.match(text, b):
            continue  # `（身份证号）`: a national id's number, not a card's
        if cued.re is _CARD_WORD and cued.group("call") and not _CURRENCY_AFTER.match(text, b):
            continue  # a payment's constructor: the card, then its currency (not a payment's id)
        if cued.re is _CARD_WORD and cued.group("brand") and not _branded(cued.group("brand"), cued.group(), digits):
            continue  # `Maestro #5612...`, `UnionPay 6123... is the batch id`: a brand's cue needs its own range
        if not issued_length(digits) or not _cards().validate_result(digits):  # Luhn
            continue
        taken = taken or Overlaps((f.entity, f.start, f.end) for f in found)
        inside = taken.over(a, b)
        # (its thirteen read as a phone's number give way only to a card's word right before it: `银联卡 622874
        # 0563397939367`, not `SIM card ICCID 622202 ...`, `Card shipped, tracking 601100 ...`)
        readings = _GROUP_READINGS if strict else _CARD_READING
        if m.re is _CARD_6_13 and all(k in readings and a <= s and e <= b for k, s, e in inside):
            # the whole card, not its last group read as one
            out.append(Finding("CREDIT_CARD", a, b, 1.0))
        elif not taken.over(a, b):
            out.append(Finding("CREDIT_CARD", a, b, LONG_CARD_SCORE))
    return out


# an IBAN written in one run that letters run on from, its field's filler or a typo: `IE41BOFI00...3583XX` in a
# database's error (the run fails its checksum; its first part is the IBAN, of its country's length)
_OVERRUN_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}[A-Z0-9]{11,30}[A-Z]{1,4}(?![A-Za-z0-9])")
_OVERRUN = 4  # the most letters run on


@functools.cache
def _ibans() -> ChecksumIbanRecognizer:
    return ChecksumIbanRecognizer()


def _overrun_ibans(text: str, found: list[Finding]) -> list[Finding]:
    """IBANs of one run with up to four letters run on after them (`IE41BOFI00126285603583XX`), where no finding
    is: the longest part before the letters that is a valid IBAN of its country's format."""
    out = []
    for m in _OVERRUN_IBAN.finditer(text):
        a, b = m.span()
        if any(f.start < b and a < f.end for f in found):
            continue
        run = m.group()
        tail = len(run) - len(run.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        for cut in range(1, min(tail, _OVERRUN) + 1):
            if _ibans().validate_result(run[:-cut]):
                out.append(Finding("IBAN_CODE", a, b - cut, 0.8))
                break
    return out


# a W-9's or the IRS's taxpayer number, which for a person is the SSN: `tin=329474896`, `TIN 257453862 failed`;
# an SSN's own key before nine bare digits (`"ssn":"551796212"`)
# (presidio's context words match inside longer words, so `tin` cannot be one: `setting`, `Martin`)
_TIN = re.compile(
    # (and a record's `TaxID`, `tax_id`; an HTML table's `TIN</th><td>`)
    # (an SSN's key with a word or two after it too: `"ssn_on_file":`)
    r"(?<![\w\-])(?:(?i:tin|taxpayer_id|taxpayer id|ssn(?:_[a-z]{1,12}){0,2}|social_security_number)"
    r"|(?i:tax_?id)(?=[\"']?[ \t]*[=:][ \t]*[\"'])|"
    r"(?:TIN|(?i:taxpayer[ _]id))(?:[ \t]+(?:field|number|no|nr|on|"
    r"file|is|was|just|says|said|reads|shows|value|given|entered|listed|as)){1,3})"
    r"(?:(?<=TIN)</th>[ \t]*<td[^<>\n]{0,40}>)?[\"']?[ \t]*[=:]?[ \t]*[\"']?(?P<n>\d{9})"
    r"(?![\d\-])"
)  # and a few words between: `TIN field just says 176539923`
TIN_SCORE = 0.6
# a W-2's or a W-4's number, which is its employee's SSN: `Her W-2 shows 055076880` (the form's name as the IRS
# writes it, a few words, then the number; not an EIN, wages or a layer's `w2 = 412345678`)
_W_FORM = re.compile(
    r"(?<![\w\-])W-[24](?:[ \t]+(?:form|shows|says|lists|reads)){0,2}[ \t]+(?P<n>\d{9})(?![\d\-]|\.\d)"
)
_NOT_THE_EMPLOYEES = re.compile(r"(?i)\b(?:ein|employer|wages?|control)\b")
_A_BUSINESS = re.compile(
    r"(?i)(?:\b|_)(?:ein|employer|company|corp|inc|llc|llp|ltd|gmbh|plc|business|vat|vendor|supplier|holdings|"
    r"partnership|entity|studio)(?:\b|_)"
)
# the SSN's name in words, in English and other languages, a few words, then nine bare digits: `số an sinh xã hội
# của tôi là 681450337`, `número de seguro social es 681450337`, `social security number is 681450337`
# the SSN's name in Korean, Japanese and Chinese (simplified and traditional)
_ASIAN_SOCIAL = "사회보장번호|社会保障番号|社会安全号码|社會安全號碼"
_SOCIAL_SECURITY = re.compile(
    r"(?i:social[ \t]+security(?:[ \t]+(?:number|no\.?|#))?|seguro[ \t]+social|securit[ée][ \t]+sociale|"
    r"an[ \t]+sinh[ \t]+x[ãa][ \t]+h[ộo]i|segurança[ \t]+social|seguridad[ \t]+social)"
    r"(?:[ \t]+[^\W\d]{1,10}){0,4}?[ \t]*[:=#]?[ \t]*[\"']?(?P<n>\d{9})(?![\d\-])"
    # and in Korean, Japanese and Chinese, a particle or a copula written onto it: `사회보장번호는 774922125입니다`
    rf"|(?:{_ASIAN_SOCIAL})(?:은|는|이|가|의|は|が|の|是|为|為)?[ \t]*[:：=]?[ \t]*"
    r"(?P<m>\d{9})(?![\d\-]|[个件건명円元号人])"
)
_WIDE_SOCIAL = re.compile(_ASIAN_SOCIAL)


def _tins(text: str, found: list[Finding]) -> list[Finding]:
    """Nine digits after a taxpayer number's word, an SSN's area, group and serial, where no finding is yet."""
    out = []
    lower = text.lower()
    tins = _TIN.finditer(text) if "tin" in lower or "tax" in lower or "ssn" in lower else iter(())
    said = "soci" in lower or "an sinh" in lower or _WIDE_SOCIAL.search(text) is not None
    social = _SOCIAL_SECURITY.finditer(text) if said else iter(())
    forms = _W_FORM.finditer(text) if "W-" in text else iter(())
    for m in itertools.chain(tins, social, forms):
        n = "n" if m.group("n") is not None else "m"  # (the CJK words' digits are their own group)
        a, b = m.span(n)
        if m.re is _W_FORM and _NOT_THE_EMPLOYEES.search(text, max(0, m.start() - 40), b + 40):
            continue  # `Employer EIN from the W-2: ...`, `the W-2 has ... in wages`
        keyed = m.re is _TIN and ("tax" in m.group().lower() or "</th>" in m.group())
        if keyed and _A_BUSINESS.search(text, max(0, m.start() - 80), b + 80):
            continue  # a business's tax id is its EIN: `Company EIN / TaxID: 412345678`, `Employer TIN</th>`
        taken = any(f.start < b and a < f.end and f.entity != "PHONE_NUMBER" for f in found)  # the word says which
        if not taken and not _ssns().invalidate_result(m.group(n)):
            out.append(Finding("US_SSN", a, b, TIN_SCORE))
    return out


@functools.cache
def _ssns() -> IssuedSsnRecognizer:
    return IssuedSsnRecognizer()


def _written_again(text: str, found: list[Finding], entity: str) -> list[Finding]:
    """The digits of a value found, written again elsewhere in the text with other separators or none: `assert
    normalise("719-73-3653") == "719733653"`; one pass over the text's nine-digit runs."""
    values = {"".join(c for c in text[f.start : f.end] if c.isdigit()): f.score for f in found if f.entity == entity}
    if not values:
        return []
    # a phone's reading of the same digits gives way, as it does to the value's first writing
    taken = Overlaps((f.entity, f.start, f.end) for f in found if f.entity != "PHONE_NUMBER")
    out = []
    for m in _NINE_DIGITS.finditer(text):
        score = values.get(re.sub(r"\D", "", m.group()))
        if score is not None and not taken.over(*m.span()):
            out.append(Finding(entity, *m.span(), score))
    return out


# what a sentence says between an SSN and another one it offers instead: `SSN 618-47-8604, one with 540991211`,
# `(825-17-801), the right one is 825178017`; no other number's word between (`order`, `ticket`, `phone`)
_ANOTHER_SSN = re.compile(r"[^\d\n]{1,60}?(?<![\w\-.])(?P<n>\d{9})(?![\w\-]|\.\d)")
_OTHER_NUMBERS = re.compile(
    r"(?i)\b(?:order|invoice|ticket|id|ref|reference|account|acct|case|phone|tel|mobile|zip|postcode|routing|"
    r"ein|tracking|iban|card|employee|emp|badge|member|po|sku|item|tenant|user|uid|pid|customer|"
    r"applicant|student|patient|record|file|request|claim|policy|loan|contract|passport|licen[cs]e|dl|aba|rtn|"
    r"cell|whatsapp|fax|call|npi|mrn|confirmation|transaction|txn|receipt|serial|medicaid|medicare|insurance|"
    r"session|row|bank|checking|savings|notice|permit|docket|inmate|visa|alien)\b|#|\w[=:]"
)
ANOTHER_SSN_SCORE = 0.5
# the words that offer another SSN right before it: `one with`, `the corrected one is`, `her husband's is`
_OFFERED = re.compile(
    r"(?i)\b(?:one|another|other|second|correct(?:ed)?|right|real|actual|new|instead|ssn|spouse|husband'?s?|"
    r"wife'?s?|partner'?s?|his|hers?|theirs?)\b[^.;\n]{0,20}\Z"
)
_SENTENCE_BREAK = re.compile(r"[.;!?][ \t]")
# the next quoted item of a list of SSNs an SSN is in, named so: `SSN_SAMPLES = ["376-96-1061", "547660295"]` (not
# a row's next cell, `row = ["Mendez", "218-13-0571", "593261147"]`, `fields = [...]  # ssn, account`)
_LISTED = re.compile(r"[\"'][ \t]*,[ \t]*[\"']")
# the next of SSNs each tagged with whose it is: `156-29-2288 (Chavis), 062920717 (Beaumont)`
_TAGGED = re.compile(r"[ \t]*\([^()\n\d]{1,40}\)[ \t]*,[ \t]*")
_TAG_AFTER = re.compile(r"[ \t]*\([^()\n\d]{1,40}\)")
_LIST_OPEN = re.compile(r"(?i)\b[\w.]*(?:ssn|social_?security)[\w.]*[\"']?[ \t]*(?:=|:|=>)[ \t]*\[[^\]\n]*\Z")


def _list_opened(text: str, at: int) -> bool:
    """A list named for SSNs opens before text[at] on its line: `SSN_SAMPLES = [`."""
    return _LIST_OPEN.search(text, max(0, at - 200), at) is not None


def _another_ssn(text: str, found: list[Finding]) -> list[Finding]:
    """Nine bare digits a line offers after an SSN found in its groups, as another SSN (`SSN 618-47-8604, one with
    540991211`): valid as one, no digit and no other number's word between."""
    ssns = [f for f in found if f.entity == "US_SSN" and f.score >= ANOTHER_SSN_SCORE]
    # (a weaker SSN's reading of the same digits is raised: the sentence offers them as one)
    weak = ("PHONE_NUMBER", "US_SSN")
    taken = Overlaps((f.entity, f.start, f.end) for f in found if f.entity not in weak or f.score >= ANOTHER_SSN_SCORE)
    out = []
    for f in ssns:
        m = _ANOTHER_SSN.match(text, f.end)
        if m is None or _OTHER_NUMBERS.search(text, f.end, m.start("n")):
            continue
        between = text[f.end : m.start("n")]
        tagged = _TAGGED.fullmatch(between) is not None and _TAG_AFTER.match(text, m.end("n")) is not None
        # (in a list of SSNs tagged with whose, nine digits that some country's phone number also is are an SSN)
        if any(k != "PHONE_NUMBER" or not tagged for k, _, _ in taken.over(*m.span("n"))):
            continue
        listed = tagged or (
            _LISTED.fullmatch(between) is not None and _list_opened(text, f.start)
        )  # (the list's name searched for only where the next item is a listed one)
        if not listed and (not _OFFERED.search(between) or _SENTENCE_BREAK.search(between)):
            continue  # words that offer another SSN, in the same sentence (not `, passport 5123...`, a row's cell)
        if not _ssns().invalidate_result(m.group("n")):
            out.append(Finding("US_SSN", *m.span("n"), ANOTHER_SSN_SCORE))
            taken.add(("US_SSN", *m.span("n")))
    return out


_DELIMITERS = ",;\t|"
_ROW = 1_000  # the farthest a row's line ends from its SSN
SAME_COLUMN_SCORE = 0.5


def _same_column(text: str, found: list[Finding]) -> list[Finding]:
    """Nine digits alone in a delimited row's cell, in the block of rows of the same shape around a row whose SSN
    was found in that column (`Mendez, Carla,218-13-0571,...` then `Mendez, Rafael,593261147,...`): an SSN's area,
    group and serial, written bare. Only SSNs found at SAME_COLUMN_SCORE or more set a column, a row with a quote
    is not counted, and each line is read once per column."""
    ssns = [f for f in found if f.entity == "US_SSN" and f.score >= SAME_COLUMN_SCORE]
    if not ssns or "\n" not in text:
        return []
    taken = Overlaps((f.entity, f.start, f.end) for f in found if f.entity != "PHONE_NUMBER")
    seen: set[tuple[int, str, int]] = set()
    out = []
    for f in ssns:
        row = _row(text, f.start)
        if row is None:
            continue
        start, end = row
        line = text[start:end]
        delimiter = max(_DELIMITERS, key=line.count)
        shape = line.count(delimiter)
        if shape < 2 or '"' in line:
            continue
        index = text.count(delimiter, start, f.start)
        for step in (-1, 1):  # the rows above, then below, while they have the row's shape
            at = start if step < 0 else end + 1
            while 0 < at <= len(text) if step < 0 else at < len(text):
                other = _row(text, at - 1 if step < 0 else at)
                if other is None or (other[0], delimiter, index) in seen:
                    break
                seen.add((other[0], delimiter, index))
                cells = text[other[0] : other[1]].split(delimiter)
                if len(cells) - 1 != shape or '"' in text[other[0] : other[1]]:
                    break
                a = other[0] + sum(len(c) + 1 for c in cells[:index])
                a += len(cells[index]) - len(cells[index].lstrip())
                bare = _BARE_SSN.fullmatch(cells[index].strip()) is not None and not taken.over(a, a + 9)
                if bare and not _ssns().invalidate_result(text[a : a + 9]):
                    out.append(Finding("US_SSN", a, a + 9, SAME_COLUMN_SCORE))
                at = other[0] if step < 0 else other[1] + 1
    return out


_CELL = re.compile(r"\s*('(?:''|[^'])*'|[^,]*)\s*(?:,|\Z)")
_INSERT_REACH = 20  # rows read after an INSERT's columns


def _inserted_ssns(text: str, found: list[Finding]) -> list[Finding]:
    """Nine bare digits under an INSERT's `ssn` column, in its rows."""
    taken = Overlaps((f.entity, f.start, f.end) for f in found if f.entity not in ("US_SSN", "PHONE_NUMBER"))
    out = []
    for m in INSERT.finditer(text):  # `INSERT INTO t (id, full_name, ssn) VALUES (1, 'A', '037889593')`
        columns = [c.strip().strip('"`').lower() for c in m.group("columns").split(",")]
        index = columns.index("ssn") if "ssn" in columns else -1
        at = m.end()
        for _ in range(_INSERT_REACH if index >= 0 else 0):
            row = ROW.match(text, at)
            if row is None:
                break
            at = row.end()
            cells = list(_CELL.finditer(text, row.start("row"), row.end("row")))
            if index >= len(cells):
                continue
            cell = cells[index]
            a, b = cell.span(1)
            a, b = (a + 1, b - 1) if text[a : a + 1] == "'" else (a, b)
            if _BARE_SSN.fullmatch(text[a:b]) and not taken.over(a, b) and not _ssns().invalidate_result(text[a:b]):
                out.append(Finding("US_SSN", a, b, TIN_SCORE))
    return out


# (no `[ \t]*` before the header's class, which holds a space too: two ways to read a run of spaces made a long
# line of them quadratic)
_HEADER = re.compile(r"(?im)^(?P<header>[\w \-\"]*(?P<d>[,;|\t])[^\n]*)$")
_RULE = re.compile(r"[\-=+|: \t]*$", re.MULTILINE)  # psql's line under its header, if it holds a `-`
_HEADED_ROWS = 50  # rows read under a header with an `ssn` or a card's column


def _headed(text: str, columns_named: frozenset[str]) -> Iterator[tuple[int, str]]:
    """The values under a delimited table's column of one of `columns_named` (`name;ssn;state` / `Nakamura,
    Ken;359250387;HI`), with where each starts, in the rows of as many cells under its header."""
    for m in _HEADER.finditer(text):
        d = m.group("d")
        columns = [c.strip().strip('"').lower() for c in m.group("header").split(d)]
        named = [i for i, c in enumerate(columns) if c in columns_named]
        if not named or not all(re.fullmatch(r"[a-z][\w \-]*", c) for c in columns if c):
            continue
        index, at = named[0], m.end() + 1
        if (rule := _RULE.match(text, at)) is not None and "-" in rule.group():
            at = rule.end() + 1  # psql's line under its header: `----+------+-----`
        for _ in range(_HEADED_ROWS):
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            cells = text[at:end].split(d)
            if len(cells) != len(columns):
                break
            a = at + sum(len(c) + 1 for c in cells[:index])
            value = cells[index].strip()
            a += cells[index].index(value) if value else 0
            yield a, value
            if end >= len(text):
                break
            at = end + 1


def _headed_ssns(text: str, found: list[Finding]) -> list[Finding]:
    """Nine bare digits under a delimited table's `ssn` column."""
    taken = Overlaps((f.entity, f.start, f.end) for f in found if f.entity not in ("US_SSN", "PHONE_NUMBER"))
    out = []
    for a, value in _headed(text, _SSN_COLUMNS):
        if _BARE_SSN.fullmatch(value) and not taken.over(a, a + 9) and not _ssns().invalidate_result(value):
            out.append(Finding("US_SSN", a, a + 9, TIN_SCORE))
    return out


_SSN_COLUMNS = frozenset(["ssn"])
_CARD_COLUMNS = frozenset(["card", "pan", "card_number", "cardnumber", "card number", "cc", "cc_number"])
_CARD_HEADER_WORD = re.compile(r"(?i)\b(?:card|pan|cc)")  # a text that may hold a card column's header


def _headed_cards(text: str, found: list[Finding]) -> list[Finding]:
    """A card of 17 to 19 bare digits under a delimited table's card column (`name,iban,card,city` / `Andria
    Savva,,6230819947119197465,Limassol`), Luhn-valid, of a network that issues them so long."""
    taken = Overlaps((f.entity, f.start, f.end) for f in found)
    out = []
    for a, value in _headed(text, _CARD_COLUMNS):
        b = a + len(value)
        if len(value) < 17 or not _LONG_CARD.fullmatch(value) or not issued_length(value) or taken.over(a, b):
            continue
        if _cards().validate_result(value):  # Luhn
            out.append(Finding("CREDIT_CARD", a, b, LONG_CARD_SCORE))
    return out


_BRACKETED_NINE = re.compile(r"[ \t]*\((?P<n>\d{9})\)")
_NINE_BEFORE_NAME = re.compile(r"(?<![\w\-.])(?P<n>\d{9})[ \t]*\(\Z")  # `015582268 (`, then the name and `)`


def _ssns_beside_names(text: str, found: list[Finding]) -> list[Finding]:
    """Nine bare digits in brackets right after a person's name, or before the name in brackets, in a text that
    speaks of SSNs or holds one: `Kyle Brennan (134 31 9209), Nia Jackson (496410025)`, `820-61-3458 (Ty
    Beauchamp) and 015582268 (Rosalind Achebe)`."""
    if not any(f.entity == "US_SSN" for f in found) and "ssn" not in text.lower():
        return []
    # a bare reading of the same digits a context word raised gives way: the name beside them says whose
    taken = Overlaps((f.entity, f.start, f.end) for f in found if f.entity not in ("PERSON", "US_SSN"))
    out = []
    for f in found:
        if f.entity != "PERSON":
            continue
        m = _BRACKETED_NINE.match(text, f.end)
        if m is None and text[f.end : f.end + 1] == ")":
            m = _NINE_BEFORE_NAME.search(text, max(0, f.start - 12), f.start)
        if m is None:
            continue
        a, b = m.span("n")
        if not taken.over(a, b) and not _ssns().invalidate_result(m.group("n")):
            out.append(Finding("US_SSN", a, b, TIN_SCORE))
    return out


# an SSN masked but for its last four (`***-**-5273`, `XXX-XX-5273`), and nine bare digits that end so
_MASKED_SSN = re.compile(r"(?<![\w*•])[*Xx•]{3}-[*Xx•]{2}-(?P<last>\d{4})(?![\w\-])")
_BARE_NINE = re.compile(r"(?<![\w\-.])\d{9}(?![\w\-]|\.\d)")


def _masked_again(text: str, found: list[Finding]) -> list[Finding]:
    """Nine bare digits whose last four an SSN masked but for them repeats (`the field shows 422835273
    unmasked. Expected: ***-**-5273`): the same SSN, written whole."""
    lasts = {m.group("last") for m in _MASKED_SSN.finditer(text)}
    if not lasts:
        return []
    taken = Overlaps((f.entity, f.start, f.end) for f in found if f.entity != "PHONE_NUMBER")
    return [
        Finding("US_SSN", m.start(), m.end(), TIN_SCORE)
        for m in _BARE_NINE.finditer(text)
        if m.group()[-4:] in lasts
        and not taken.over(m.start(), m.end())
        and not _ssns().invalidate_result(m.group())
        and not _ID_BEFORE.search(text, max(0, m.start() - 16), m.start())
    ]


_ID_BEFORE = re.compile(r"(?i)\b(?:order|invoice|id|ticket|ref|account|member|employee)[\s#:=\-]{0,3}\Z")


def _row(text: str, at: int) -> tuple[int, int] | None:
    """The line around text[at], if it is no longer than a row is (_ROW either side)."""
    start = text.rfind("\n", max(0, at - _ROW), at) + 1
    if not start and at > _ROW:
        return None
    end = text.find("\n", at, at + _ROW)
    if end < 0:
        end = len(text) if len(text) - at <= _ROW else -1
    return (start, end) if end >= 0 else None


_BARE_SSN = re.compile(r"\d{9}")
_NINE_DIGITS = re.compile(r"(?<![\w\-.])\d{3}[ \-.]?\d{2}[ \-.]?\d{4}(?![\w\-])")  # not `ref A719733653`


@functools.cache
def _cards() -> CreditCardRecognizer:
    return card_recognizer()


_IBAN_HEAD = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}[ ]?\Z")  # a country's letters and check digits


def _fixed(text: str, found: list[Finding]) -> list[Finding]:
    """What the recognizers take too much of: an email finding cut to the address (`ALERT_EMAIL=` off) and a
    URL's user part (`https://key@host`) dropped (mailboxes.py); a phone number of fewer than 7 digits (an id:
    `order=382061`) or in a log number's shape (phones.py: `"ts":1717000112.41`, `0.2214530 secs`); a bare
    number taken for an SSN by a context word that an SSN before it answered (`ssn=044-35-2683 tenant=382192373`)."""
    out = []
    ssn_end = -1
    ssns = {(f.start, f.end) for f in found if f.entity == "US_SSN"}
    phones_at = {(f.start, f.end) for f in found if f.entity == "PHONE_NUMBER"}
    said: set[str] = set()  # the digits of the SSNs kept so far
    for f in sorted(found, key=lambda f: f.start):
        kept: Finding | None = f
        if f.entity == "EMAIL_ADDRESS" and f.via == "":
            kept = mailboxes.trim(text, f)
        elif f.entity == "PHONE_NUMBER" and (
            sum(c.isdigit() for c in text[f.start : f.end]) < MIN_PHONE_DIGITS
            or phones.implausible(text, f.start, f.end)
            or (
                (f.start, f.end) in ssns
                and _SSN_GROUPED.fullmatch(text, f.start, f.end)
                and not _PHONE_WORD.search(text, max(0, f.start - _PHONE_WORD_REACH), f.start)
            )
        ):
            # `mi número es 450 11 2975`: in an SSN's groups and read as one too (not after `phone`, `call`)
            kept = None
        elif f.entity == "CREDIT_CARD" and (
            _IBAN_HEAD.search(text, max(0, f.start - 6), f.start)
            or ((f.start - 1, f.end) in phones_at and f.end - f.start <= _E164_DIGITS)
        ):
            # `DE12 5001 0517 5407 3249 31`: an IBAN's body (one that fails its check); `+4915645935870`: a phone
            # in E.164, read as one from its plus (a 16-digit card after a URL's `+` is no phone)
            kept = None
        elif f.entity == "US_SSN" and f.via == "":
            digits = re.sub(r"\D", "", text[f.start : f.end])
            if (
                f.score < SSN_MEDIUM
                and 0 <= ssn_end <= f.start
                and digits not in said  # `Parse("598 52 6367")` then `"598526367"`: the same SSN written again
                and not _SSN_CONTEXT.search(text, ssn_end, f.start)
            ):
                kept = None
            else:
                ssn_end = f.end
                said.add(digits)
        if kept is not None:
            out.append(kept)
    return out


# a number right after a person's name, in a phone's groups: `Kim Ji-woo (010-7759-2544)`, `Petra Lindberg — 070-106
# 77 53`; a national number presidio's phone recognizer reads in a few regions only
_AFTER_NAME = re.compile(r"(?:[ \t]*\(|[ \t]*[—–:,][ \t]*|[ \t]+-[ \t]+)(?P<number>\d[\d \-.]{6,14}\d)(?![\d\-.])")
BESIDE_NAME_SCORE = 0.75
BESIDE_NAME_DIGITS = 9  # a national mobile's digits at least (8: a year's range, a date)
# a range of years (`(1999-2004)`), an SSN's shape (`666-12-0034`, one that is no valid SSN): no phone
_NOT_PHONES = re.compile(r"(?:1[89]|20)\d\d[ \t]*[\-–.][ \t]*(?:1[89]|20)\d\d|\d{3}([ \-])\d\d\1\d{4}")


def _phones_beside_names(text: str, found: list[Finding]) -> list[Finding]:
    """Phone numbers in a country's own format right after a person the names found, valid in one of the
    countries the cued phone recognizer reads (guards/presidio.py), where no finding is yet."""
    out = []
    for f in found:
        if f.entity != "PERSON" or (m := _AFTER_NAME.match(text, f.end)) is None:
            continue
        a, b = m.span("number")
        number = m.group("number")
        taken = any(g.start < b and a < g.end for g in found if g.entity != "PERSON")
        if taken or sum(c.isdigit() for c in number) < BESIDE_NAME_DIGITS or _NOT_PHONES.fullmatch(number):
            continue
        if not not_a_phone(text, number, b) and valid_somewhere(number):
            out.append(Finding("PHONE_NUMBER", a, b, BESIDE_NAME_SCORE))
    return out


# the next number of a quoted list after a phone written with its country's code: `"ტელ": ["+995 555 63 60 94",
# "555 42 33 00"]`, read as that country's number in its own groups
_NEXT_LISTED = re.compile(r"[\"'][ \t]*,[ \t]*[\"'](?P<number>\(?\d[\d \-.()]{5,15}\d)[\"']")


def _listed_phones(text: str, found: list[Finding]) -> list[Finding]:
    """The numbers listed after an international phone found, valid in its country, where no finding is yet."""
    out = []
    for f in found:
        if f.entity != "PHONE_NUMBER" or text[f.start] != "+" or _NEXT_LISTED.match(text, f.end) is None:
            continue
        regions, end = regions_of(text[f.start : f.end]), f.end
        while regions and (m := _NEXT_LISTED.match(text, end)) is not None:
            a, b = m.span("number")
            if any(g.start < b and a < g.end for g in found) or not_a_phone(text, m.group("number"), b):
                break
            if not valid_somewhere(m.group("number"), regions):
                break
            out.append(Finding("PHONE_NUMBER", a, b, BESIDE_NAME_SCORE))
            end = b
    return out


# a mail map's second address, in angle brackets after one found, on a host of the machine it was committed from
# (`Siobhán Ní Bhriain <siobhan@tambourine-works.ie> <sio@old-laptop.local>`), which no public suffix ends: a host
# with a hyphen or a dot in its name (not a key's `<sha256@abc123def>`, `<job@cron>`), on a line a name opens
_SECOND_ADDRESS = re.compile(r">[ \t]+<(?P<address>[\w.+\-]+@(?:[A-Za-z0-9]+-[\w\-]*|[\w\-]+\.[\w\-]+(?:\.[\w\-]+)*))>")
_MAP_LINE = re.compile(r"[ \t]*[^\W\d_][^<>:\n]*<[^<>\n]+>\Z")
SECOND_ADDRESS_SCORE = 0.75


def _second_addresses(text: str, found: list[Finding]) -> list[Finding]:
    """A mail map's second address after a person's address found in angle brackets, where no finding is yet."""
    out = []
    for f in found:
        if f.entity != "EMAIL_ADDRESS" or (m := _SECOND_ADDRESS.match(text, f.end)) is None:
            continue
        if published(f.entity, text[f.start : f.end]):
            continue  # `Jane Doe <jane@example.com> <jane@old-laptop.local>`: a sample's line
        a, b = m.span("address")
        if not _same_person(text[f.start : f.end], m.group("address")):
            continue  # `<eva.mala@firma.cz> <ssh-rsa@key-01>`: no address of hers
        mapped = _MAP_LINE.fullmatch(text, text.rfind("\n", 0, f.start) + 1, f.end + 1) is not None
        if mapped and text[f.start - 1 : f.start] == "<" and not any(g.start < b and a < g.end for g in found):
            out.append(Finding("EMAIL_ADDRESS", a, b, SECOND_ADDRESS_SCORE))
    return out


def _same_person(first: str, second: str) -> bool:
    """The second address's local part shares a piece with the first's, three letters at least, one beginning the
    other (`siobhan.nibhriain` / `sio`, `ingrid.solberg` / `ingrid`; not `eva.mala` / `ssh-rsa`)."""
    mine = [p for p in re.split(r"[._+\-]", first.split("@", 1)[0].lower()) if len(p) >= 3]
    theirs = [p for p in re.split(r"[._+\-]", second.split("@", 1)[0].lower()) if len(p) >= 3]
    return any(a.startswith(b) or b.startswith(a) for a in mine for b in theirs)


# a delimited row's cell, bounded by its delimiter or the line's ends; then what wraps a value in it: quotes, a
# tuple's or a list's brackets (`('Øystein Lie', 'Trondheim', '21 82 75 40')`)
_ROW_DELIMITERS = ",;|\t"
_WRAPPING = " \t\"'`[]{}"
_ROW_PHONE = re.compile(r"\+?\(?\d[\d \-.()]{5,16}\d")
# the groups a person's number is written in with no word beside it: with its country's code, an area code's
# bracket or a trunk's zero first; or Norway's and Denmark's twos, China's mobiles, Spain's threes and twos,
# Norway's 3-2-3 (not an amount's thousands, `23 456 789`, an account's or a bank code's, `100 500 00`, a date's,
# `12 05 2024`, a badge's fours, `4471 2290`)
_ROW_PHONE_SHAPE = re.compile(
    r"[+(0].*|\d[ \t]?\(\d+\).*|\d\d(?:[ .\-]\d\d){3}|1\d\d[ \-]\d{4}[ \-]\d{4}|[6-9]\d\d(?:[ .]\d\d){3}"
    r"|\d{3}[ ]\d\d[ ]\d{3}"
)
# a date's or a day's hours in a cell (`01-05-1987`, `01 05 1987`, `0900-1730`, `0800 1600`): no phone's
_DAY_CELL = re.compile(r"\d\d[ .\-/]\d\d[ .\-/](?:19|20)\d\d|[0-2]\d[0-5]\d[ \-–][0-2]\d[0-5]\d")
# a card's word as a word or a key's (`card`, `card_number`, `tarjeta`; not `scorecard`, `card_game`, `wildcard`)
_CARD_WORD_ANYWHERE = re.compile(
    r"(?i)(?<![a-z])(?:cards?|card_?(?:number|no|num|holder)|tarjetas?|cart[ãa]o|unionpay|maestro|verve|rupay)"
    r"(?![a-z_])|卡|カード|카드"
)
# a column's name that says its values are an id (`employee_id`, `member_no`, `Order #`, `sku`): no SSN's (not
# `SSN #`, `ssn_no`, `Social Security No`)
_ID_COLUMN = re.compile(
    r"(?i)^(?!.*(?:ssn|social|tin\b))(?:.*(?:^|[\s_\-])(?:id|no|nr|num|number|#|uid|ref|key|code|sku)$"
    r"|(?:member|order|account|customer|badge|sku|uid|ref))"
)
_STATE_CODE = re.compile(places.STATES)
# the words of a text about SSNs and taxes on people (not an invoice's `tax` column, `Taxonomy`, `Tin cans`)
_TAXES = re.compile(
    r"(?i)\bssns?\b|social security|(?<![a-z])w-?[249](?![a-z0-9])|\btin\b|payroll|taxpayer|\btax[ _-]?id"
)
# a column's name that says its values are phone numbers (`phone`, `mobile_no`, `Telefon`, `tel.`)
_PHONE_COLUMN = re.compile(
    r"(?i)(?:\w+[ _\-])?(?:phone|telephone|tel\.?|mobile|mobil|cell|handy|telefon|tel[ée]fono|telefone|"
    r"t[ée]l[ée]phone|portable|gsm|whatsapp)(?:[ _\-](?:no\.?|nr\.?|number|num|#))?"
)
# a code comment after a row's last value, closed by its quote or bracket: `"633959049")]  # payroll fixture`
_TRAILING_COMMENT = re.compile(r"(?<=[\]\)\"'])[ \t]+(?:#|//|--)[ \t]")
ROW_VALUE_SCORE = 0.6


def _row_values(text: str, found: list[Finding], entities: Sequence[str]) -> list[Finding]:
    """A person's values in cells of their own in the row of a delimited table that holds the person's name
    (`Thomas Peeters;Leuven;012 66 31 46`, `| Dirk Peeters | 012 71 63 95 |`, `('Rocío', 'Montoya Heredia',
    '658 88 41 45', ...)`), which no recognizer reads without a cue: a phone number in its country's own groups,
    valid there; a card of 17 to 19 bare digits, Luhn-valid, of a network that issues them so long; nine bare
    digits that are a valid SSN, in a row with a US state's code or a text that speaks of SSNs or taxes. The row is
    the name's line, with two delimiters at least; the value fills its cell whole."""
    people = [f for f in found if f.entity == "PERSON"]
    if not people or not any(d in text for d in _ROW_DELIMITERS):
        return []
    states = [f for f in found if f.entity == "LOCATION" and _STATE_CODE.fullmatch(text, f.start, f.end)]
    # (a phone read inside a cell, `03058178` of `010 03058178`, gives way to the cell's whole number)
    taken = Overlaps((f.entity, f.start, f.end) for f in found if f.entity != "PHONE_NUMBER")
    phones_at = {(f.start, f.end) for f in found if f.entity == "PHONE_NUMBER"}
    rows: set[tuple[int, int]] = set()
    # what the whole text says, asked once: a card's word in it, a word of SSNs and taxes
    carded = _CARD_WORD_ANYWHERE.search(text) is not None
    taxed = _TAXES.search(text) is not None
    out = []
    for person in people:
        row = _row(text, person.start)
        if row is None or row in rows:
            continue
        rows.add(row)
        start, end = row
        if (comment := _TRAILING_COMMENT.search(text, person.end, end)) is not None:
            end = comment.start()  # `("Ama Owusu", "633959049")]  # payroll fixture`: the code's row ends there
        line = text[start:end]
        delimiter = max(_ROW_DELIMITERS, key=line.count)
        if line.count(delimiter) < 1 or (line.count(delimiter) < 2 and not _phone_pair(text, end)):
            continue  # (two cells only under a header whose second is a phone's: `name;tel` / `Kristjan Tamm;5140...`)
        stated = any(start <= f.start < end for f in states)
        at = start
        for cell in line.split(delimiter):
            a, b = _unwrapped(text, at, at + len(cell))
            at += len(cell) + 1
            # (`taken` holds the people found: a name's cell is never read as a value)
            if b - a < 7 or (not text[a].isdigit() and text[a] not in "+(") or taken.over(a, b):
                continue
            kind = _row_value(text, text[a:b], b, stated=stated or taxed, carded=carded)
            if kind is not None and kind != "PHONE_NUMBER" and any(s < b and a < e for s, e in phones_at):
                continue  # a card's or an SSN's digits a phone's reading already holds: the recognizers decide
            if kind is not None and kind in entities:
                out.append(Finding(kind, a, b, ROW_VALUE_SCORE))
                taken.add((kind, a, b))
    return out


def _phone_pair(text: str, end: int) -> bool:
    """The two-cell row ending at text[end] is under a header whose last column is a phone's (`name;tel`)."""
    return end > 0 and _PHONE_COLUMN.fullmatch(_column(text, end - 1) or "") is not None


def _id_column(text: str, a: int) -> bool:
    """The cell at text[a] is under a header's column that names an id (`name,city,state,employee_id`)."""
    header = _column(text, a)
    return header is not None and _ID_COLUMN.search(header) is not None


def _column(text: str, a: int) -> str | None:
    """The name of the header's column the cell at text[a] is under, if the table has a header."""
    start = text.rfind("\n", 0, a) + 1
    end = text.find("\n", a)
    line = text[start : end if end >= 0 else len(text)]
    delimiter = max(_ROW_DELIMITERS, key=line.count)
    index = text.count(delimiter, start, a)
    for header in text[:start].split("\n", 3)[:3]:  # the table's header is one of its first lines
        cells = header.split(delimiter)
        if len(cells) == line.count(delimiter) + 1 and not any(c.isdigit() for c in header):
            return cells[index].strip().strip("\"'")
    return None


def _unwrapped(text: str, a: int, b: int) -> tuple[int, int]:
    """text[a:b] without the spaces, quotes and brackets around a cell's value; a bracket that opens or closes
    nothing inside the value (a tuple's) goes too, not a phone's area code's (`(2) 2289 7622`)."""
    while True:
        while a < b and text[a] in _WRAPPING:
            a += 1
        while b > a and text[b - 1] in _WRAPPING:
            b -= 1
        if a < b and text[a] == "(" and ")" not in text[a:b]:
            a += 1
        elif a < b and text[b - 1] == ")" and "(" not in text[a:b]:
            b -= 1
        else:
            return a, b


def _row_value(text: str, value: str, b: int, *, stated: bool, carded: bool) -> str | None:
    """What a value alone in a person's row's cell, ending at text[b], is, if it is a phone number, a long card,
    RuPay's card or an SSN. `stated`: the row holds a US state's code after a town (`"Yuma", "AZ"`) or the text
    speaks of SSNs or taxes; `carded`: the text holds a card's word."""
    if _BARE_SSN.fullmatch(value):
        said = stated and not _id_column(text, b - len(value))
        return "US_SSN" if said and not _ssns().invalidate_result(value) else None
    if value.isdigit():
        long_card = _LONG_CARD.fullmatch(value) and issued_length(value) and _cards().validate_result(value)
        return "CREDIT_CARD" if long_card and carded else None
    if _RUPAY.fullmatch(value):  # RuPay's own range, in a card's printed groups (a bare run returned above)
        return "CREDIT_CARD" if _cards().validate_result("".join(c for c in value if c.isdigit())) else None
    if not _ROW_PHONE.fullmatch(value):
        return None
    if not _ROW_PHONE_SHAPE.fullmatch(value) and not _PHONE_COLUMN.fullmatch(_column(text, b - len(value)) or ""):
        return None  # (under a header's phone column, any grouping: `Tereza Svobodová,Ostrava,601 577 269`)
    if _NOT_PHONES.fullmatch(value) or _DAY_CELL.fullmatch(value):
        return None
    return "PHONE_NUMBER" if not not_a_phone(text, value, b) and valid_somewhere(value) else None


def _touching(regions: Regions, start: int, end: int) -> str | None:
    """How the region a span touches was read, or None if it touches none."""
    return next((how for a, b, how in regions if a < end and start < b), None)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


_SENTENCE_END = re.compile(r"[.!?\n]\s")
_WORD = re.compile(r"\w+")


def name_parts(text: str) -> list[Part]:
    """The stretches of `text` that could hold a name, for NER to read: runs of sentences with a capitalised
    word that is not a stop word ("Priya", "Revenue", "NASA"; not "The" or "It"), or a letter of a script
    without case. NER finds no name in the other sentences of this model's but a few false ones ("replica")."""
    parts: list[Part] = []
    start = 0
    for end in [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]:
        if start < end and _may_name(text, start, end):
            if parts and parts[-1][1] == start:
                parts[-1] = (parts[-1][0], end)  # neighbours read together: a name keeps its context
            else:
                parts.append((start, end))
        start = end
    return parts


def sentences_around(text: str, spans: Sequence[Part]) -> list[Part]:
    """The sentences (ended by `.`, `!`, `?` and a space, or a line break) holding `spans`, merged, in order."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    out: list[Part] = []
    for a, b in sorted(spans):
        start = max([0, *(e for e in ends if e <= a)])
        end = min(e for e in ends if e >= b)
        if out and out[-1][1] >= start:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _parts_view(plain: Mapped, parts: list[Part]) -> tuple[Mapped, list[Part]]:
    """The parts of `plain` as one text, a line break between them, mapped to the original; and each part's
    span in the original."""
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    spans: list[Part] = []
    for a, b in parts:
        if pieces:
            pieces.append("\n")
            starts.append(ends[-1])
            ends.append(ends[-1])
        pieces.append(plain.text[a:b])
        for i in range(a, b):
            start, end = plain.span(i, i + 1)
            starts.append(start)
            ends.append(end)
        spans.append(plain.span(a, b))
    return Mapped("".join(pieces), starts, ends), spans


def _within(found: list[Finding], spans: list[Part]) -> list[Finding]:
    """Each finding cut to the part it starts in (NER may run one over the line break between two)."""
    out = []
    for f in found:
        end = next((min(f.end, b) for a, b in spans if a <= f.start < b), None)
        if end is not None and end > f.start:
            out.append(f if end == f.end else dataclasses.replace(f, end=end))
    return out


def _may_name(text: str, start: int, end: int) -> bool:
    for m in _WORD.finditer(text, start, end):
        word = m.group()
        head = word[0]
        if head.isupper() and word.lower() not in STOP_WORDS:
            return True
        if not word.isascii() and any(c.isalpha() and not c.isupper() and not c.islower() for c in word):
            return True
    return False


def _chunks(text: str, size: int) -> Iterator[tuple[int, str]]:
    """Overlapping chunks cut at a sentence's end (else a space); findings in an overlap are found twice and
    merged by resolve_overlaps."""
    start = 0
    while len(text) - start > size:
        ends = [m.end() for m in _SENTENCE_END.finditer(text, start + size // 2, start + size)]
        cut = ends[-1] - 1 if ends else text.rfind(" ", start + size // 2, start + size)
        cut = cut if cut > start else start + size
        yield start, text[start:cut]
        back = text.find(" ", cut - OVERLAP_CHARS, cut)
        start = back + 1 if back != -1 else cut - OVERLAP_CHARS
    yield start, text[start:]
