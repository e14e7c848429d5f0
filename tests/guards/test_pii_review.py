"""Personal data that rules written for technical text must not lose: a phone number with its extension or
after `Tel.`, a person's address on a host that only looks like a service's, a person a sentence goes on to
deny something else of, a common given name after a system's noun. Each through the patterns backend's
scanner or the step's own name reader, as the step runs them (real presidio, the shipped lexicons)."""

from __future__ import annotations

import pytest

from taskgate.guards.mailboxes import is_role

from .test_pii_names import scanned
from .test_pii_systems import found


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("call +1 (312) 847-2290 x12 after nine", "+1 (312) 847-2290"),
        ("her desk line is +1 312 847 2290 ext. 12", "+1 312 847 2290"),
        ("phone: 0161 496 0032 ext 4", "0161 496 0032"),
        ("Tel.0161 496 0032", "0161 496 0032"),
        ("Mob.07700 900123 (after six)", "07700 900123"),
    ],
)
def test_a_phone_number_with_its_extension_or_after_tel_dot_is_found(text: str, phone: str) -> None:
    phones = [value for entity, value in scanned(text) if entity == "PHONE_NUMBER"]
    assert any(phone in value for value in phones), scanned(text)


@pytest.mark.parametrize(
    ("address", "role"),
    [
        ("jane.doe@iam.example.org", False),
        ("maria.lopez@svc.acme.com", False),
        ("grafana@monitoring.svc", True),
        ("deployer@prod-infra-3321.iam.gserviceaccount.com", True),
        ("exporter@metrics.svc.cluster.local", True),
    ],
)
def test_only_a_service_identity_host_makes_an_address_a_service_s(address: str, role: bool) -> None:
    assert is_role(address) is role


def test_a_person_is_found_when_the_sentence_denies_something_else_is_a_person() -> None:
    assert ("PERSON", "Priya") in found("Priya said the ticket was opened by a script, not a person.")
    assert ("PERSON", "Marlowe") not in found("// Marlowe is the internal name of the routing service, not a person")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I finished the migration for Sarah yesterday.", "Sarah"),
        ("Can you set up the client for John tomorrow?", "John"),
    ],
)
def test_a_common_given_name_after_a_system_s_noun_is_a_person(text: str, name: str) -> None:
    assert ("PERSON", name) in found(text)
