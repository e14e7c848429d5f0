"""Values published for testing, that belong to no one: with `allow_test_values` (the default), not personal data.

Code, fixtures and tickets are full of them, and redacting them changes what
an agent does with a test. They are not personal data unless the operator
says otherwise: with `allow_test_values: false` they are personal data like
any other value, so every card-shaped value is acted on. They are:

- payment cards the processors publish for their test modes (Stripe's testing
  page, Braintree's and Adyen's test card numbers): `4242 4242 4242 4242`,
  `4111 1111 1111 1111`, `5555 5555 5555 4444`, `3782 822463 10005`;
- the example IBANs of the IBAN registry and its standard's documents
  (`DE89 3704 0044 0532 0130 00`, `GB82 WEST 1234 5698 7654 32`);
- SSNs the Social Security Administration voided after they were printed
  (`078-05-1120`, `219-09-9999`), the advertising example `123-45-6789`,
  and `457-55-5462`, which a company's adverts printed nationwide;
- addresses at the domains reserved for documentation and tests (RFC 2606
  and 6761: `example.com`, `.org`, `.net`, and `.example`, `.test`,
  `.invalid`, `.localhost`), and a country's `example` as documentation
  writes it (`example.de`): no one's mailbox is there;
- the people a fixture's row names beside an address at one of those
  domains that spells them (`"name": "Camille Martin", "email":
  "camille.martin@example.com"`), and the places in the same row;
- the example numbers libphonenumber gives for every region and type of
  line, which its users' documentation and tests copy (`+31 6 12345678`,
  `020 1234 5678`): read from the pinned `phonenumbers`, whole numbers only;
- phone numbers reserved for fiction: in North America `555-0100` to
  `555-0199` in every area code (NANPA), and Twilio's test numbers
  (`+1 500 555 0006`), in the United Kingdom Ofcom's drama
  ranges (`020 7946 0000` to `0999`, `0161 496 0xxx`, `07700 900xxx`, ...),
  in Australia ACMA's (`02 5550 xxxx`, `0491 570 156`, ...).

Every listed card passes Luhn and every IBAN mod 97 (a test says so): a value
that fails its checksum is never found as one anyway.
"""

from __future__ import annotations

import bisect
import functools
import re

import phonenumbers

from . import mailboxes

TEST_CARDS = frozenset(
    [
        "4242424242424242",
        "4000056655665556",
        "5555555555554444",
        "2223003122003222",
        "5200828282828210",
        "5105105105105100",
        "378282246310005",
        "371449635398431",
        "6011111111111117",
        "6011000990139424",
        "3056930009020004",
        "36227206271667",
        "3566002020360505",
        "6200000000000005",
        "4000000000000002",
        "4000000000009995",
        "4000000000000069",
        "4000000000000127",
        "4000000000000119",
        "4000000000000077",
        "4000002500003155",
        "4000000000003220",
        "4000002760003184",  # Stripe's 3-D Secure cards
        "4000003800000446",
        "4000008260003178",
        "4000000000003063",
        "4000008400001629",
        "4000000000000341",
        "4000000000009987",
        "4000000000009979",
        "4100000000000019",
        "4000000000000101",
        "4111111111111111",
        "4012888888881881",
        "4222222222222",
        "378734493671000",
        "30569309025904",
        "38520000023237",
        "3530111333300000",
        "5431111111111111",
        # Adyen's, Braintree's and Checkout.com's test card pages
        "5555341244441115",
        "370000000000002",
        "4111111145551142",
        "4166676667666746",
        "2222400070000005",
        "5101180000000007",
        "4988438843884305",
        "6703444444444449",
        "4005519200000004",
        "4009348888881881",
        "4543474002249996",
        "5436031030606378",
        # Stripe's UnionPay debit and 19-digit cards, Discover debit, BC card; Braintree's UnionPay cards
        "6200000000000047",
        "6205500000000000004",
        "6011981111111113",
        "6555900000604105",
        "6212345678901265",
        "6212345678901232",
        "6212345678900000003",
    ]
)
EXAMPLE_IBANS = frozenset(
    [
        "DE89370400440532013000",
        "GB29NWBK60161331926819",
        "GB82WEST12345698765432",
        "NL91ABNA0417164300",
        "FR1420041010050500013M02606",
        "ES9121000418450200051332",
        "IT60X0542811101000000123456",
        "AT611904300234573201",
        "BE68539007547034",
        "CH9300762011623852957",
        "DK5000400440116243",
        "FI2112345600000785",
        "GB33BUKB20201555555555",  # the example of IBAN checkers' documentation (iban.com)
        "NO9386011117947",
        "SE4550000000058398257466",
        "PL61109010140000071219812874",
        "PT50000201231234567890154",
        "IE29AIBK93115212345678",
        "LU280019400644750000",
        "CZ6508000000192000145399",
        "GR1601101250000000012300695",
        # the registry's examples for more countries
        "HU42117730161111101800000000",
        "SK3112000000198742637541",
        "SI56263300012039086",
        "HR1210010051863000160",
        "RO49AAAA1B31007593840000",
        "BG80BNBG96611020345678",
        "LT121000011101001000",
        "LV80BANK0000435195001",
        "EE382200221020145685",
        "IS140159260076545510730339",
        "MT84MALT011000012345MTLCAST001S",
        "CY17002001280000001200527600",
        "TR330006100519786457841326",
        "SA0380000000608010167519",
        "AE070331234567890123456",
        "IL620108000000099999999",
        "LI21088100002324013AA",
        "AD1200012030200359100100",
        "MC5811222000010123456789030",
        # the examples of encyclopaedias' and banks' pages: France's and Germany's (Wikipedia's IBAN articles)
        "FR7630006000011234567890189",
        "DE02120300000000202051",
    ]
)
# voided by the SSA after they were printed, the advertising example, and the number a company's adverts printed
VOIDED_SSNS = frozenset({"078051120", "219099999", "123456789", "457555462"})
# national significant numbers reserved for fiction, as prefixes: the UK's drama ranges (Ofcom) and Australia's
# (ACMA's geographic blocks); and ACMA's mobile numbers for drama, whole
_FICTION = {
    44: ("2079460", "1134960", "1144960", "1154960", "1164960", "1174960", "1184960", "1214960", "1314960",
         "1414960", "1514960", "1614960", "1914980", "2896496", "2920180", "1632960", "7700900", "8081570",
         "9098790", "3069990"),
    61: ("25550", "37010", "75550", "87010"),
}  # fmt: skip
_AU_MOBILE = frozenset(
    [
        "491570006",
        "491570156",
        "491570157",
        "491570158",
        "491570159",
        "491570110",
        "491570313",
        "491570737",
        "491571266",
        "491571491",
        "491571804",
        "491572549",
        "491572665",
        "491572983",
        "491573770",
        "491573087",
        "491574118",
        "491574632",
        "491575254",
        "491575789",
        "491576398",
        "491576801",
        "491577426",
        "491577644",
        "491578957",
        "491578148",
        "491578888",
        "491579212",
        "491579760",
        "491579455",
    ]
)
_NOT_DIGIT = re.compile(r"\D")
_SPACE = re.compile(r"[\s\-]")
# the domains reserved for documentation and testing (RFC 2606, RFC 6761), and the `example` of a country's
# domain as documentation writes it (`example.de`, and in the country's language: `beispiel.de`, `exemple.fr`): no
# one's mailbox is there
_EXAMPLE_DOMAIN = re.compile(
    r"@(?:[\w\-]+\.)*(?:(?:example|beispiel|exemple|ejemplo|esempio|exemplo|voorbeeld|exempel|eksempel|esimerkki|"
    r"przyklad|priklad|primer|pelda|ornek)\.(?:com|net|org|(?:co\.|com\.)?[a-z]{2})|example|test|invalid|localhost)$",
    re.IGNORECASE,
)
_SSN_SHAPE = re.compile(r"\d{3}[- ]\d\d[- ]\d{4}")


def published(entity: str, value: str) -> bool:
    """Whether `value`, found as `entity`, is a value published for testing or reserved for fiction."""
    if entity == "CREDIT_CARD":
        return _NOT_DIGIT.sub("", value) in TEST_CARDS
    if entity == "IBAN_CODE":
        return _SPACE.sub("", value).upper() in EXAMPLE_IBANS
    if entity == "US_SSN":
        return _NOT_DIGIT.sub("", value) in VOIDED_SSNS
    if entity == "EMAIL_ADDRESS":
        return _EXAMPLE_DOMAIN.search(value) is not None
    if entity == "PHONE_NUMBER":  # a voided SSN is found as a phone number too: `078-05-1120`
        return _fictional(value) or (
            _SSN_SHAPE.fullmatch(value.strip("() ")) is not None and _NOT_DIGIT.sub("", value) in VOIDED_SSNS
        )
    return False


_COUNTED = re.compile(r"(?:1234[ \-.]?5678|2345[ \-.]?6789)\Z")


def _fictional(value: str) -> bool:
    """Reserved for fiction in the country the number is written for: with its `+` code, or in a national form
    (a leading 0: the UK's or Australia's; ten digits, or eleven after a 1: North America's)."""
    digits = _NOT_DIGIT.sub("", value)
    if _COUNTED.search(value.strip()):
        return True  # `03-1234-5678`, `+49 30 12345678`: a dummy's digits counted out, in any country
    written = value.strip()
    if written.startswith(("+", "00")):
        regions: tuple[str | None, ...] = (None,)
    elif digits.startswith("0"):
        regions = ("GB", "AU")
    else:
        regions = ("US",)
    example, valid = False, False
    for region in regions:
        try:
            number = phonenumbers.parse(written.replace("00", "+", 1) if written.startswith("00") else written, region)
        except phonenumbers.NumberParseException:
            continue
        national, country = str(number.national_number), number.country_code or 0
        if (country, national) in _examples():
            return True  # `+31612345678`: libphonenumber's example for the Netherlands' mobiles
        example = example or (region is not None and national in _example_nationals())
        valid = valid or phonenumbers.is_valid_number(number)
        if region is not None and not phonenumbers.is_possible_number(number):
            continue
        if country == 1:
            return _nanp_fiction(national)
        if country == 61 and national in _AU_MOBILE:
            return True
        if national.startswith(_FICTION.get(country, ())):
            return True
    # `06 12345678`, no number in the regions it was read in: another country's example
    return example and not valid


def warm_examples() -> None:
    """List libphonenumber's example numbers now (about 50 ms), not on the first request that asks."""
    _example_nationals()


_EXAMPLE_DIGITS = 7  # shorter examples (short codes, some regions' local numbers) could be anyone's number


@functools.cache
def _examples() -> frozenset[tuple[int, str]]:
    """libphonenumber's example number of every region and type, as (country code, national number)."""
    out = set()
    for region in phonenumbers.SUPPORTED_REGIONS:
        for kind in _EXAMPLE_TYPES:
            number = phonenumbers.example_number_for_type(region, kind)
            if number is not None and len(str(number.national_number)) >= _EXAMPLE_DIGITS:
                out.add((number.country_code or 0, str(number.national_number)))
    return frozenset(out)


@functools.cache
def _example_nationals() -> frozenset[str]:
    """The national numbers of `_examples()`: a number written nationally (`06 12345678`) that is no valid number
    in the regions it was read in matches another country's example (`(02) 9491 1911` is Sydney's, not
    Belarus's)."""
    return frozenset(national for _, national in _examples())


_EXAMPLE_TYPES = (
    phonenumbers.PhoneNumberType.FIXED_LINE,
    phonenumbers.PhoneNumberType.MOBILE,
    phonenumbers.PhoneNumberType.TOLL_FREE,
    phonenumbers.PhoneNumberType.PREMIUM_RATE,
    phonenumbers.PhoneNumberType.SHARED_COST,
    phonenumbers.PhoneNumberType.VOIP,
    phonenumbers.PhoneNumberType.PERSONAL_NUMBER,
    phonenumbers.PhoneNumberType.PAGER,
    phonenumbers.PhoneNumberType.UAN,
    phonenumbers.PhoneNumberType.VOICEMAIL,
)


def _nanp_fiction(digits: str) -> bool:
    """`555-0100` to `555-0199` after any area code (`(212) 555-0147`, `+1 800 555 0199`), and Twilio's test
    numbers (`+1 500 555 0006`)."""
    national = digits[-10:] if len(digits) >= 10 else ""
    return len(national) == 10 and national[3:6] == "555" and (national[6:8] == "01" or national[:7] == "5005550")


Span = tuple[str, int, int]
# an address at a domain reserved for examples (RFC 2606, 6761): `camille.martin@example.com`, `jd@shop.test`
_EXAMPLE_ADDRESS = re.compile(
    r"(?<![\w.+\-])([\w.+\-]+)@(?:[\w\-]+\.)*(?:example\.(?:com|org|net)|example|test|invalid|localhost)"
    r"(?![\w\-]|\.[\w\-])",  # the domain ends there: not `test.com`, `example.co.uk`
    re.IGNORECASE,
)
_EXAMPLE_REACH = 200


# a record's value: in quotes, or after a field's key (`name: `, `full_name=`, `"name": "`)
_RECORDED = re.compile(r"(?:[\"'“]|[\w\-]+[\"']?[ \t]*[:=][ \t]*[\"']?)[ \t]*\Z")


def example_people(text: str, found: list[Span]) -> list[Span]:
    """`found` (in order of their start) less the people an example's address beside them spells (`"name":
    "Camille Martin", "email": "camille.martin@example.com"`), and the places in the same record: a fixture's
    row, no one's."""
    rows: list[tuple[int, int]] = []
    starts = [a for _, a, _ in found]
    for m in _EXAMPLE_ADDRESS.finditer(text):
        parts = mailboxes.local_parts(m.group(1))
        near = found[
            bisect.bisect_left(starts, m.start() - _EXAMPLE_REACH) : bisect.bisect_right(
                starts, m.end() + _EXAMPLE_REACH
            )
        ]
        for kind, a, b in near:
            if kind != "PERSON" or not (words := mailboxes.name_words(text[a:b])):
                continue
            if not _RECORDED.search(text, max(0, a - 40), a):
                continue  # a record's value (`"name": "Camille Martin"`), not a person in prose beside an address
            if mailboxes.spells(words, parts) or {words[0][0], words[-1]} <= parts:  # `camille.martin`, `n.varga`
                rows.append((a, b))
                first, last = min(a, m.start()), max(b, m.end())
                # the row: the brackets around both, `{...}` or `User(...)`
                start = max(text.rfind(c, max(0, first - _EXAMPLE_REACH), first) for c in "{(")
                ends = [e for c in "})" if (e := text.find(c, last, last + _EXAMPLE_REACH)) >= 0]
                end = min(ends) if ends else -1
                if start >= 0 and end >= 0 and not any(c in text[start:first] for c in "})"):
                    rows.append((start, end))
    if not rows:
        return found
    rows.sort()
    firsts = [s for s, _ in rows]
    longest = max(e - s for s, e in rows)
    return [
        x
        for x in found
        if not any(
            s <= x[1] and x[2] <= e
            for s, e in rows[bisect.bisect_left(firsts, x[1] - longest) : bisect.bisect_right(firsts, x[1])]
        )
    ]
