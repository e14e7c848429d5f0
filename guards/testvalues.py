"""Values published for testing, that belong to no one: with `allow_test_values`, not personal data.

Code, fixtures and tickets are full of them, and redacting them changes what
an agent does with a test. They are treated as personal data unless the
operator says otherwise (`allow_test_values: true`), so a demo or a test that
sends `4111 1111 1111 1111` sees it acted on:

- payment cards the processors publish for their test modes (Stripe's testing
  page, Braintree's and Adyen's test card numbers): `4242 4242 4242 4242`,
  `4111 1111 1111 1111`, `5555 5555 5555 4444`, `3782 822463 10005`;
- the example IBANs of the IBAN registry and its standard's documents
  (`DE89 3704 0044 0532 0130 00`, `GB82 WEST 1234 5698 7654 32`);
- SSNs the Social Security Administration voided after they were printed
  (`078-05-1120`, `219-09-9999`) and the advertising example `123-45-6789`;
- addresses at the domains reserved for documentation and tests (RFC 2606
  and 6761: `example.com`, `.org`, `.net`, and `.example`, `.test`,
  `.invalid`, `.localhost`): no one's mailbox is there;
- phone numbers reserved for fiction: in North America `555-0100` to
  `555-0199` in every area code (NANPA), and Twilio's test numbers
  (`+1 500 555 0006`), in the United Kingdom Ofcom's drama
  ranges (`020 7946 0000` to `0999`, `0161 496 0xxx`, `07700 900xxx`, ...),
  in Australia ACMA's (`02 5550 xxxx`, `0491 570 156`, ...).

Every listed card passes Luhn and every IBAN mod 97 (a test says so): a value
that fails its checksum is never found as one anyway.
"""

from __future__ import annotations

import re

import phonenumbers

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
        "4111111111111111",
        "4012888888881881",
        "4222222222222",
        "378734493671000",
        "30569309025904",
        "38520000023237",
        "3530111333300000",
        "5431111111111111",
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
        "NO9386011117947",
        "SE4550000000058398257466",
        "PL61109010140000071219812874",
        "PT50000201231234567890154",
        "IE29AIBK93115212345678",
        "LU280019400644750000",
        "CZ6508000000192000145399",
        "GR1601101250000000012300695",
    ]
)
VOIDED_SSNS = frozenset({"078051120", "219099999", "123456789"})
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
# the domains reserved for documentation and testing (RFC 2606, RFC 6761): no one's mailbox is there
_EXAMPLE_DOMAIN = re.compile(
    r"@(?:[\w\-]+\.)*(?:example\.(?:com|net|org)|example|test|invalid|localhost)$", re.IGNORECASE
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
            _SSN_SHAPE.fullmatch(value) is not None and _NOT_DIGIT.sub("", value) in VOIDED_SSNS
        )
    return False


def _fictional(value: str) -> bool:
    """Reserved for fiction in the country the number is written for: with its `+` code, or in a national form
    (a leading 0: the UK's or Australia's; ten digits, or eleven after a 1: North America's)."""
    digits = _NOT_DIGIT.sub("", value)
    written = value.strip()
    if written.startswith(("+", "00")):
        regions: tuple[str | None, ...] = (None,)
    elif digits.startswith("0"):
        regions = ("GB", "AU")
    else:
        regions = ("US",)
    for region in regions:
        try:
            number = phonenumbers.parse(written.replace("00", "+", 1) if written.startswith("00") else written, region)
        except phonenumbers.NumberParseException:
            continue
        national, country = str(number.national_number), number.country_code or 0
        if region is not None and not phonenumbers.is_possible_number(number):
            continue
        if country == 1:
            return _nanp_fiction(national)
        if country == 61 and national in _AU_MOBILE:
            return True
        if national.startswith(_FICTION.get(country, ())):
            return True
    return False


def _nanp_fiction(digits: str) -> bool:
    """`555-0100` to `555-0199` after any area code (`(212) 555-0147`, `+1 800 555 0199`), and Twilio's test
    numbers (`+1 500 555 0006`)."""
    national = digits[-10:] if len(digits) >= 10 else ""
    return len(national) == 10 and national[3:6] == "555" and (national[6:8] == "01" or national[:7] == "5005550")
