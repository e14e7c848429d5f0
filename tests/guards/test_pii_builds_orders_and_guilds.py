"""Words that name no one in ops text: a CI server named alone before its build or how long the build took, a thing
ordered under an order's number, and an ensemble's, a guild's or a society's name with the place inside it; and
the people those readings must still find (a full name, a titled surname, a customer's surname before an order).

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
