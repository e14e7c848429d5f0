"""What technical text names that is not a person's: role mailboxes, URL users, ids, listed products, codenames,
weekdays, cloud regions. And the people and places beside them, still found.

The mailbox tests go through the real proxy under the example config's guards.pii params, in front of a real
upstream that records what it was sent; the rest read text with the step's own scanner and name reader (real
presidio, the shipped lexicons).
"""

from __future__ import annotations

from typing import Any

import pytest

from taskgate.guards.lexicons import lexicons
from taskgate.guards.mailboxes import is_role
from taskgate.guards.names import Names

from .conftest import Scripted, pii_config
from .test_pii_names import example_params, forwarded_under_example, scanned, user


def found(text: str) -> list[tuple[str, str]]:
    return [(e, text[a:b]) for e, a, b in Names(lexicons()).find(text)]


SERVICE = [
    "2024-03-03T03:03:03Z INFO mailer: delivered 1 message from noreply@acme.io to bounce-handler@acme.io",
    "ALERT_EMAIL=alerts@platform.example.com",
    "the support address is help@acme.io, not a person's inbox",
    '[remote "origin"]\n\turl = git@github.com:acme/kafka-tools.git',
    "Set SMTP_FROM=no-reply@shop.example.com and cc security-team+prod@acme.io on failures.",
    "SENTRY_DSN=https://abc123@o4504.ingest.sentry.io/4505",
]


@pytest.mark.parametrize("text", SERVICE)
async def test_service_and_role_addresses_pass_unredacted_under_the_example_config(
    proxy: Any, scripted: tuple[Scripted, str], text: str
) -> None:
    assert await forwarded_under_example(proxy, scripted, text) == text


async def test_a_persons_address_beside_a_role_address_is_still_redacted_and_the_param_turns_roles_off(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    text = "Reply from noreply@acme.io; forward it to jane.doe@acme.io and ALERT_EMAIL=priya.raman@acme.io."
    client = await proxy(pii_config(url, example_params()))
    assert (await client.post("/v1/chat/completions", json=user(text))).status == 200
    sent = upstream.bodies[-1]["messages"][0]["content"]
    assert sent == "Reply from noreply@acme.io; forward it to <EMAIL_ADDRESS> and ALERT_EMAIL=<EMAIL_ADDRESS>."
    strict = await proxy(pii_config(url, {**example_params(), "role_addresses": False}))
    assert (await strict.post("/v1/chat/completions", json=user(text))).status == 200
    sent = upstream.bodies[-1]["messages"][0]["content"]
    assert sent == "Reply from <EMAIL_ADDRESS>; forward it to <EMAIL_ADDRESS> and ALERT_EMAIL=<EMAIL_ADDRESS>."


@pytest.mark.parametrize(
    ("address", "role"),
    [
        ("noreply@acme.io", True),
        ("no-reply@acme.io", True),
        ("platform-alerts+prod@acme.io", True),
        ("postmaster@mail.example.org", True),
        ("jane.doe@acme.io", False),
        ("devon@acme.io", False),
        ("support.jane@acme.io", False),
        ("kavyaiyer@proton.me", False),
    ],
)
def test_a_role_mailbox_is_one_whose_every_part_names_a_function(address: str, role: bool) -> None:
    assert is_role(address) is role


@pytest.mark.parametrize(
    ("address", "role"),
    [
        # an office's ordinary words, a role word beside words no lexicon knows
        ("elections@county17.gov", True),
        ("shows@podhost.io", True),
        ("bookings@hostelhub.eu", True),
        ("hse-incidents@buildright.ie", True),
        ("svc-cva-batch@aidops.org", True),
        # a name beside a role word, a word that is a name or a surname, ordinary words at a personal host
        ("felix.baumgartner.dev@gmail.com", False),
        ("rose@florist.io", False),
        ("brown@acme.io", False),
        ("lucky.star@gmail.com", False),
        ("k.nakamura@tsubame-space.jp", False),
        # given names that are words, words that are surnames, an initial and a surname beside a role's word,
        # another personal host
        ("will.young@acme.com", False),
        ("park.young@acme.com", False),
        ("hr-mnowak@acme.com", False),
        ("summer.rain@fastmail.com", False),
    ],
)
def test_with_the_lexicons_an_offices_ordinary_words_make_a_role_mailbox(address: str, role: bool) -> None:
    assert is_role(address, Names(lexicons()).mailbox_part) is role


def test_ids_are_not_phone_numbers_or_ssns_and_a_2_series_mastercard_is_a_card() -> None:
    assert scanned("INFO order=382061 shipped carrier=dhl") == []
    log = 'msg="duplicate account" ssn=044-35-2683 tenant=382192373'
    assert scanned(log) == [("US_SSN", "044-35-2683")]
    assert scanned("ssn=044-35-2683, spouse ssn 536221234") == [("US_SSN", "044-35-2683"), ("US_SSN", "536221234")]
    assert scanned("his card number is 2223390863801520.") == [("CREDIT_CARD", "2223390863801520")]
    assert scanned("the id is 2223390863801521.") == []  # the same shape, failing Luhn


@pytest.mark.parametrize(
    "text",
    [
        "Jenkins, Hudson, Travis, Drone: all CI servers named like people",
        "Bump Grafana and Loki together, the datasource plugin breaks if they drift",
        "Migrate nightly ETL from Luigi to Airflow 2.9",
        "Victoria, Wallaby and Xena clouds are all EOL now",
        "Grafana Mimir needs its own object storage bucket per tenant.",
        "Victoria Metrics handled the cardinality spike better than Prometheus did",
        "Claude wrote most of that migration, but double-check the down() method",
        "Thanks Claude, that regex works.",
        "Add Sonoma and Sequoia to the macOS test matrix; drop Monterey",
        "We still have two hosts on Debian Buster and one on Bullseye.",
        "Gemma keeps hallucinating the column names, maybe try another model.",
        "Tuesday works for the Cassandra maintenance window.",
        "Maxwell and Pascal cards are no longer supported by the driver.",
    ],
)
def test_products_codenames_and_weekdays_are_not_people(text: str) -> None:
    assert [f for f in found(text) if f[0] == "PERSON"] == [], text


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Thanks Cassandra, she fixed the compaction", ["Cassandra"]),
        ("Ask Ruby to review the Julia notebook, she wrote the original model.", ["Ruby"]),
        ("Grace and Will are pairing on the Rust rewrite this week.", ["Grace", "Will"]),
        ("Hey Santiago, the Airflow DAG you wrote is failing.", ["Santiago"]),
        ("Mark's PR bumps Helm to 3.18.1 and fixes the flaky test.", ["Mark"]),
        ("Jake and Emily moved the Cassandra keyspaces and Priya approved it.", ["Jake", "Emily", "Priya"]),
        ("Sierra said she would cover the Ubuntu upgrade on Monday.", ["Sierra"]),
    ],
)
def test_people_beside_products_and_codenames_are_still_people(text: str, names: list[str]) -> None:
    assert [v for e, v in found(text) if e == "PERSON"] == names, text


def test_a_place_named_as_where_a_system_runs_is_not_a_location_but_a_place_a_person_is_in_is() -> None:
    for text in (
        'region = "eu-west-1"  # Ireland; keep in sync with the DR runbook',
        'locations = ["us-east-2", "eu-central-1", "ap-south-1"]  # Ohio, Frankfurt, Mumbai',
        "us-east-2 (Ohio) is fine, only N. Virginia is seeing the elevated S3 errors",
        "Replicate the bucket to São Paulo and Mumbai for latency.",
        "Move the Postgres primary to Zurich before the audit.",
    ):
        assert [f for f in found(text) if f[0] == "LOCATION"] == [], text
    text = "Thiago is the only one in São Paulo with VPN access to the sa-east-1 bastion"
    assert ("LOCATION", "São Paulo") in found(text)
    text = "Elena moved to Berlin last year and still maintains the Terraform modules."
    assert found(text) == [("PERSON", "Elena"), ("LOCATION", "Berlin")]


def test_an_address_in_a_urls_query_is_found_without_the_query() -> None:
    """The recognizer's match takes the query's key along (`lookup?email=`); the domain alone is validated and
    the key trimmed, so the address is found, as it is anywhere else."""
    log = '"GET /api/parents/lookup?email=ewa.nowak85@wp.pl HTTP/1.1" 200'
    assert scanned(log) == [("EMAIL_ADDRESS", "ewa.nowak85@wp.pl")]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a country's national format after a phone's word, in a field or a sentence, a particle on the number
        ("she wants a call back on 612 447 903", [("PHONE_NUMBER", "612 447 903")]),
        ('contact = {"phone": "010-3381-2274", "city": "Busan"}', [("PHONE_NUMBER", "010-3381-2274")]),
        ("captain_phone=28 14 63 07 handle=mads", [("PHONE_NUMBER", "28 14 63 07")]),
        ("연락처는 010-5521-0487입니다", [("PHONE_NUMBER", "010-5521-0487")]),
        # no phone's word, a word inside another (`Bestellnummer`), too few digits, a bare run of digits
        ("the batch moved 612 447 903 rows", []),
        ("Bestellnummer 1234 5678 ist da", []),
        ('phone: str = "555-0142"', []),
        ("call_id=612447903", []),
        # a unit after it, a date or a version in it, a word that only starts like a phone's
        ("the function call took 12 345 678 ns", []),
        ("callback_id=1718 2349 0012 was retried", []),
        ("tell 600 700 800 people", []),
        ("mobile build 2024.05.11.1234 is live", []),
    ],
)
def test_a_national_number_after_a_phones_word_is_a_phone_number(text: str, found: list[tuple[str, str]]) -> None:
    assert [f for f in scanned(text) if f[0] == "PHONE_NUMBER"] == found
