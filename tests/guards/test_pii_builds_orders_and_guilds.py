"""Words that name no one in ops text: a CI server named alone before its build or how long the build took, a thing
ordered under an order's number, and an ensemble's, a guild's or a society's name with the place inside it; and
the people those readings must still find (a full name, a titled surname, a customer's surname before an order); and
values a key or a list gives away: a card under a key in capitals ending in `_CARD`, a phone after
Arabic's phone with its article or its contact, a list's next number after an international one.

Read with the step's own name reader (the shipped lexicons, rules, vetter and language identifier's model).
"""

from __future__ import annotations

import pytest

from .test_pii_fields_streets_and_prose import scan


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        # a CI server, then how long it took or its build, job, pipeline
        ("[10:02] priya.n: merge of tagine-api is green, Jenkins took 9m this time", "Jenkins"),
        ("[08:40] ops_bot: Jenkins build #3310 failed on main, see the console log", "Jenkins"),
        ("standup: Travis took 12 min on the docs branch, Bamboo job is red again", "Travis"),
        # what was ordered, numbered: no one's name
        ('POST /hooks/slack 200 payload={"text":"Tagine order #7710 shipped"}', "Tagine"),
        ('queue=notify msg={"text":"Samovar invoice No. 4471 overdue"}', "Samovar"),
        # a guild's, a society's, an orchestra's name with a place in it
        ("maker(oud, 'Aleppo Oud Guild').", "Aleppo"),
        ("maker(oud, 'Aleppo Oud Guild').", "Oud Guild"),
        ('ensembles = ["Tbilisi Chamber Orchestra", "Kraków Brass Society"]', "Tbilisi"),
        ('ensembles = ["Tbilisi Chamber Orchestra", "Kraków Brass Society"]', "Kraków"),
    ],
)
def test_what_names_no_one_is_not_read(text: str, surface: str) -> None:
    assert [f for f in scan(text) if surface in f[1] or f[1] in surface] == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a surname with a given name or a title before the build's words: a person
        ("[10:02] priya.n: Sarah Jenkins took 9m to review the patch", ("PERSON", "Sarah Jenkins")),
        ("[10:02] priya.n: merge is green, Mr Jenkins took 9m this time", ("PERSON", "Jenkins")),
        # a customer's surname before an order's number
        ('POST /hooks/slack 200 payload={"text":"Müller order #7710 shipped"}', ("PERSON", "Müller")),
        # a person's name after a guild's
        ("maker(oud, 'Aleppo Oud Guild', contact: 'Rami Haddad').", ("PERSON", "Rami Haddad")),
        # a CI server's name in a line about no build, and before `took N to` or `off`
        ("Emma Watson: Travis took 9m on lunch break again", ("PERSON", "Travis")),
        ("[18:20] kim: Travis took 5m to drive over, the deploy is green", ("PERSON", "Travis")),
        ("[18:20] kim: Jenkins took 3 hrs off, so the release waits", ("PERSON", "Jenkins")),
        # a surname before an order's number, written in a line rather than opening a payload's text
        ("Oyelaran order #99 - call the customer back on his mobile", ("PERSON", "Oyelaran")),
        # a titled name before a choir's word; a full name before a guild's role
        ("Ms Dupont Choir rehearsal at 7pm", ("PERSON", "Dupont")),
        ("Send the invoice to Ruth Akande Guild treasurer", ("PERSON", "Ruth Akande Guild")),
        # a place before a choir's or an association's word with no word between: where someone is
        ("Our office is in Leeds Choir rehearsal rooms are next door", ("LOCATION", "Leeds")),
    ],
)
def test_the_people_beside_them_are_still_read(text: str, found: tuple[str, str]) -> None:
    assert found in scan(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # a 19-digit card under an environment's key that ends in a card's
        (
            "# .env.local\nPILOT_CARD=5061524438736889631\nPILOT_OWNER=Chidi Eze",
            ("CREDIT_CARD", "5061524438736889631"),
        ),
        ('TEST_PAYMENT_CARD_PAN="5061524438736889631"', ("CREDIT_CARD", "5061524438736889631")),
        # Arabic's phone with its article, and its contact
        ("الهاتف: 010 0267 2840", ("PHONE_NUMBER", "010 0267 2840")),
        ("يرجى التواصل مع سارة على 011 45213398 بعد الظهر", ("PHONE_NUMBER", "011 45213398")),
        # a list's next number after a phone with its country's code, in that country's groups
        ('contacts = {"tel": ["+995 555 12 34 56", "577 98 76 54"]}', ("PHONE_NUMBER", "577 98 76 54")),
    ],
)
def test_a_value_its_key_or_list_gives_away_is_read(text: str, value: tuple[str, str]) -> None:
    assert value in scan(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a SIM's, a gift's, a board's, a transit's, a GPU's card under such a key
        ("SIM_CARD=5061524438736889631", "CREDIT_CARD"),
        ("GIFT_CARD=5061524438736889631", "CREDIT_CARD"),
        ("KANBAN_CARD=5061524438736889631", "CREDIT_CARD"),
        ("NFC_CARD=5061524438736889631", "CREDIT_CARD"),
        ("GPU_CARD=5061524438736889631", "CREDIT_CARD"),
        # Arabic's contact or call before a date's, a shipment's, an order's number
        ("اتصل بنا قبل 15 03 2024", "PHONE_NUMBER"),
        ("التواصل مع العميل بخصوص الشحنة 7741 2200 9931", "PHONE_NUMBER"),
        ("تواصلوا: رقم الطلب 89 12 34 56", "PHONE_NUMBER"),
        # a list's next value that is no phone of that country
        ('ports = ["+995 555 12 34 56", "8080", "2024 11 05"]', "PHONE_NUMBER:8080"),
    ],
)
def test_what_those_keys_and_lists_do_not_say_is_not_read(text: str, kind: str) -> None:
    kind, _, surface = kind.partition(":")
    assert [f for f in scan(text) if f[0] == kind and surface in f[1]] == []
