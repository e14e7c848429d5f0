"""Values and places a record gives away that were missed: a card printed six and thirteen whose thirteen read as
a phone, a US state's code under an owner's key whose name field holds a person, a state's or a province's code in
an HTML row's next cell, and a person's shop, shed, workshop or locality; an address glued to a word of Korean, a
phone after Czech's `we call`, a mail map's second address on a machine's host, a state's code before a lower-case word
with diacritics.

Read with the step's own name reader (the shipped lexicons, rules, vetter and language identifier's model).
"""

from __future__ import annotations

import pytest

from .test_pii_fields_streets_and_prose import scan


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # a UnionPay card printed six and thirteen after its word
        ("请用银联卡 621483 0912647503120 支付余款。", ("CREDIT_CARD", "621483 0912647503120")),
        ("card 621483 0912647503120 declined", ("CREDIT_CARD", "621483 0912647503120")),
        # an owner's state, whose name field holds a person
        ('env:\n  OWNER_SSN: "527208196"\n  OWNER_NAME: "Luz Carrillo"\n  OWNER_STATE: "NM"\n', ("LOCATION", "NM")),
        # a province's or a state's code in a person's HTML row
        (
            "<tr><td>Gabrielle Roy</td><td>(506) 281-4470</td><td>Fredericton</td><td>NB</td></tr>",
            ("LOCATION", "NB"),
        ),
        # a person's shop, shed, workshop, locality
        ('PATRON = { name: "Morag Lindsay", tel: "+44 7700 183 442", shop: "Peebles" }', ("LOCATION", "Peebles")),
        ('let picker = (name: "Aroha Ngata", shed: "Ōpōtiki", ssn: "")', ("LOCATION", "Ōpōtiki")),
        ('annotations: { owner: "Valentina Sosa", workshop: "Paraná" }', ("LOCATION", "Paraná")),
        (
            'grower_name: "Bindi Carroll"\ngrower_mobile: "0412 558 903"\nfarm_locality: "Gympie"',
            ("LOCATION", "Gympie"),
        ),
    ],
)
def test_a_value_or_place_its_record_gives_away_is_read(text: str, value: tuple[str, str]) -> None:
    assert value in scan(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a number printed six and thirteen with no card's word: a phone's reading, if any
        ("order 621483 0912647503120 shipped", "CREDIT_CARD"),
        # a job's or a pod's state, a status's `OK` under an owner with a person's name
        ('JOB_NAME: "nightly"\nJOB_STATE: "NM"', "LOCATION"),
        ('OWNER_NAME: "Tammy Reyes"\nOWNER_STATE: "OK"', "LOCATION"),
        # an HTML row with no person's value in it
        ("<tr><td>Moncton</td><td>NB</td></tr>", "LOCATION:NB"),
        # a shop's, a shed's word, a site's, with no person in the record
        ('deploy: { shop: "Storefront", shed: "Build" }', "LOCATION"),
        ('{"site":"Frontend","owner":"Anselm Huber"}', "LOCATION"),
        ('{"shop":"Kelso","sku":"TR-2201"}', "LOCATION"),
        # a brand's or an event's name as a shop's or a workshop's, a farm's paddock, beside a person's name only
        ('shop=Webstore customer="Alice Johnson"', "LOCATION"),
        ("- {workshop: Gearbox, mechanic: Tomasz Wiśniewski}", "LOCATION"),
        ("farmer: Clem Baxter\nfarm_locality: Paddock North", "LOCATION"),
        # a card's word elsewhere on the line, a phone's reading of the thirteen
        ("SIM card ICCID 622202 0563397939361", "CREDIT_CARD"),
        # a state's code that is a word or a status too, under an owner's key or in an HTML row's cell
        ('DRIVER_NAME: "Tammy Reyes"\nDRIVER_STATE: "IN"\nDRIVER_SSN: "123-45-6789"', "LOCATION:IN"),
        ("<tr><td>Ann Lee</td><td>Berlin</td><td>IN</td><td>604-555-0100</td></tr>", "LOCATION:IN"),
    ],
)
def test_what_no_person_s_record_says_is_not_read(text: str, kind: str) -> None:
    kind, _, surface = kind.partition(":")
    assert [f for f in scan(text) if f[0] == kind and surface in f[1]] == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # an address right before a word of Korean, a phone after Czech's `we call`
        ("주문 확인 메일은 minji.park@hanok-tea.kr로 보내 주세요.", ("EMAIL_ADDRESS", "minji.park@hanok-tea.kr")),
        ("Napište mu, že zásilka dorazí ve středu a ať mu zavoláme na 731 482 915.", ("PHONE_NUMBER", "731 482 915")),
        ("请联系zhang.wei@kumquat-shop.cn谢谢", ("EMAIL_ADDRESS", "zhang.wei@kumquat-shop.cn")),
        # a mail map's second address, on a machine's host
        ("Tamar Kvaratskhelia <tamar.k@bells.ge> <tamar@build-box.local>", ("EMAIL_ADDRESS", "tamar@build-box.local")),
        # a US state's code before a lower-case word of a Latin script with diacritics
        ("Viết thư cho ông Trần Văn Nam ở Houston, TX để báo đơn hàng đã gửi.", ("LOCATION", "TX")),
    ],
)
def test_a_value_glued_to_its_script_or_after_its_verb_is_read(text: str, value: tuple[str, str]) -> None:
    assert value in scan(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a second address with no first one found before it, on a host of one word, after a sample's address,
        # on a header's line
        ("build <a> <runner@ci-box.local>", "EMAIL_ADDRESS"),
        ("Reviewed-by: Li Wei <li.wei@kefir-dairy.cn> <sha256@abc123def>", "EMAIL_ADDRESS:sha256"),
        ("Jane Doe <jane@example.com> <jane@old-laptop.local>", "EMAIL_ADDRESS"),
        ("From: Li Wei <li.wei@kefir-dairy.cn> <li@box-2.lan>", "EMAIL_ADDRESS:li@box"),
        ("Eva Malá <eva.mala@firma.cz> <ssh-rsa@key-01>", "EMAIL_ADDRESS:ssh-rsa"),
        # Czech's `we call` with no number to call on; a state's code that is a word, before a word with diacritics
        ("Objednávka 1 250 000 Kč, zavoláme zítra v 12 05 2024", "PHONE_NUMBER"),
        ("Kunde aus Berlin, IN überprüft", "LOCATION:IN"),
    ],
)
def test_what_no_mail_map_verb_or_state_says_is_not_read(text: str, kind: str) -> None:
    kind, _, surface = kind.partition(":")
    assert [f for f in scan(text) if f[0] == kind and surface in f[1]] == []
