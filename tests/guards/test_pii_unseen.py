"""Rules of shape and context meant for sets the step has not seen: numbers grouped unlike the phone number they
would be, a clock's seconds before a number, service identities' mailboxes, a word the text also writes as an
identifier, a place the NER model calls a person; and the real ones beside them, still found."""

from __future__ import annotations

import pytest

from taskgate.guards.lexicons import lexicons
from taskgate.guards.mailboxes import is_role
from taskgate.guards.names import Names
from taskgate.guards.phones import misgrouped
from taskgate.guards.pii_params import PiiParams, Precision
from taskgate.guards.presidio import entities_of
from taskgate.guards.scan import Scanner

from .test_pii_names import scanned
from .test_pii_systems import found


@pytest.mark.parametrize(
    "text",
    [
        'expect(formatOrderRef("442079460018")).toBe("44-2079-460018");',
        "the placeholder from the form is 1-800-000-0000, nobody dials it",
        "order references look like 1-800-000-0042",
        "Date:   Tue Nov 12 14:03:51 2024 -0300",
    ],
)
def test_numbers_grouped_unlike_a_phone_number_or_a_clocks_tail_are_not_phones(text: str) -> None:
    assert [f for f in scanned(text) if f[0] == "PHONE_NUMBER"] == [], text


@pytest.mark.parametrize(
    ("value", "misgrouped_"),
    [
        ("44-2079-460018", True),  # +44 20 7946 0018: no separator where the UK writes one
        ("1-800-000-0000", True),  # an exchange of zeros
        ("1-800-000-0042", True),
        ("+44 20 7946 0958", False),  # with its `+`: as written
        ("1-415-555-0134", False),
        ("20 7946 0958", False),  # London without its trunk 0, though 20 is Egypt's code
        ("44 7700 900123", False),
        ("0712 128452", False),  # national: Kenya's, which presidio does not read
        ("0207 946 0958", False),
        ("(312) 847-2290", False),
    ],
)
def test_a_number_led_by_a_countrys_code_is_grouped_as_that_country_writes_it(value: str, misgrouped_: bool) -> None:
    assert misgrouped(value) is misgrouped_


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("call me on 1-415-555-0134 after 6", "1-415-555-0134"),
        ("my UK mobile: 44 7911 123456", "44 7911 123456"),
        ("his number is 0712 128452", "0712 128452"),
        ("at 14:05 call +44 20 7946 0958", "+44 20 7946 0958"),
    ],
)
def test_phone_numbers_grouped_as_their_country_writes_them_are_still_found(text: str, phone: str) -> None:
    assert ("PHONE_NUMBER", phone) in scanned(text), text


@pytest.mark.parametrize(
    ("address", "role"),
    [
        ("deployer@prod-infra-3321.iam.gserviceaccount.com", True),  # a cloud's service identity
        ("svc-terraform@proj.iam.gserviceaccount.com", True),
        ("grafana@monitoring.svc.cluster.local", True),
        ("alertmanager@acme.io", True),  # a product's name that is no one's
        ("grafana-alerts@acme.io", True),
        ("renovate-bot@acme.io", True),
        ("jenkins@acme.io", False),  # a surname too
        ("grace.alertmanager@acme.io", False),
        ("jane.doe@acme.io", False),
        ("mateus.o@old-laptop.lan", False),
    ],
)
def test_service_identities_and_programs_mailboxes_are_not_personal(address: str, role: bool) -> None:
    program = Names(lexicons()).program
    assert is_role(address, program) is role


def test_the_steps_filter_reads_a_products_mailbox_as_a_program_with_the_name_lexicons() -> None:
    params = PiiParams()
    assert not is_role("alertmanager@acme.io")  # without the lexicons, as before
    assert Precision(params).keeps("EMAIL_ADDRESS", "grafana-alerts@acme.io", 1.0)
    precision = Precision(params, Names(lexicons()).program)
    assert not precision.keeps("EMAIL_ADDRESS", "grafana-alerts@acme.io", 1.0)
    assert precision.keeps("EMAIL_ADDRESS", "dana.ruiz@acme.io", 1.0)


@pytest.mark.parametrize(
    "text",
    [
        "package atlas\n\n// Shard picks one of 64 Atlas shards using a jump hash of the tenant key.",
        'enum Codename { Athena = "athena", Atlas = "atlas" }',
        'The alert says "Athena p99 > 2s"; the query is rate(athena_query_duration_seconds_bucket[5m])',
        "12:07:55.830 [main] INFO  com.acme.Atlas - Started Atlas in 6.218 seconds",
        "Known issue: ATLAS-1201, Atlas rebalancing can stall above 10k tenants",
    ],
)
def test_a_name_the_text_also_writes_as_an_identifier_is_the_systems(text: str) -> None:
    assert [f for f in found(text) if f[0] == "PERSON"] == [], text


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("package atlas\n// Thanks Atlas for the review", "Atlas"),  # what is said of a person alone
        ("Atlas said she would rerun the atlas_export job", "Atlas"),
        ("ping Priya about priya.s@acme.io and the @priya handle", "Priya"),  # an address or a handle: no identifier
        ('user = "grace"  # Grace Hopper wrote the first compiler', "Grace Hopper"),
    ],
)
def test_a_person_beside_an_identifier_of_the_same_word_is_still_found(text: str, name: str) -> None:
    assert ("PERSON", name) in found(text), text


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("Mateo Fernández spent a year teaching English in Ulaanbaatar before returning to finish his degree.",
         "Ulaanbaatar"),
        ("Yui has never left Hokkaido, and says she has no reason to.", "Hokkaido"),
        ("Erik Lindholm keeps a small cabin on Gotland, and every midsummer his friends join him.", "Gotland"),
    ],
)  # fmt: skip
def test_a_pronoun_after_a_place_refers_back_to_the_person_already_named(text: str, wrong: str) -> None:
    names = Scanner("ner", entities_of("ner"), 0.4, 0, names=Names(lexicons()))
    got = [(f.entity, text[f.start : f.end]) for f in names.analyze(text)]
    assert ("PERSON", wrong) not in got, got
    assert got[0][0] == "PERSON", got  # the person named first is still one


@pytest.mark.parametrize(
    "text",
    [
        "AMD's EPYC generations carry Italian city codenames: Naples, Rome, Milan, Genoa and Bergamo.",
        "Fonts named Geneva, Monaco, Chicago and New York ship with macOS.",
        "Microsoft used city codenames for Windows releases — Chicago, Memphis, Cairo — and later others.",
    ],
)
def test_a_list_after_a_naming_noun_names_things(text: str) -> None:
    assert found(text) == [], text


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("The interview panel is Rohan, Oluwaseun and Violet.", "Rohan"),
        ("She kept the fonts; Rohan, Oluwaseun and Violet kept the rest.", "Rohan"),  # no list after the noun
        ("Our codenames were picked by Rohan, Oluwaseun and Violet.", "Rohan"),  # a person's cue of its own
    ],
)
def test_people_listed_without_a_naming_noun_are_still_people(text: str, name: str) -> None:
    assert ("PERSON", name) in found(text), text


def test_a_rare_word_opening_a_line_before_a_colon_is_a_fields_label() -> None:
    text = "SUP-9102 callback requested\nName: Mr. Abdullah Al-Qahtani\nPhone: see the ticket"
    assert found(text) == [("PERSON", "Abdullah Al-Qahtani")]
    assert ("PERSON", "Hannah") in found("standup\nHannah: leaving early, dentist")  # a given name's line


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Gustavo swears the best view of Rio de Janeiro is from the top of the hill.", "Rio de Janeiro"),
        ("The glaciers around El Chaltén draw climbers from all over the world.", "El Chaltén"),
        ("Professor Hyun-woo Jang divides his time between a lab in Daejeon and a field station on Jeju, where he "
         "studies volcanic soil.", "Jeju"),
    ],
)  # fmt: skip
def test_places_of_several_words_or_after_on_are_places_not_people(text: str, place: str) -> None:
    names = Scanner("ner", entities_of("ner"), 0.4, 0, names=Names(lexicons()))
    got = [(f.entity, text[f.start : f.end]) for f in names.analyze(text)]
    assert ("LOCATION", place) in got, got
    assert not any(e == "PERSON" and place in v for e, v in got), got
