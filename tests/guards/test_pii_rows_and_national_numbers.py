"""A person's values in their row of a table, and national phone numbers that presidio's regions do not read:
the structured types' recall where no recognizer's cue stands right before the value.

Read with the step's own name reader (the shipped lexicons, rules, vetter and language identifier's model).
"""

from __future__ import annotations

import pytest

from .test_pii_fields_streets_and_prose import scan


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # a phone number in its country's groups, in the row of a CSV, a Markdown table, an SQL tuple
        ("Margot Claes;Gent;012 45 71 93;koor", ("PHONE_NUMBER", "012 45 71 93")),
        ("| Bassist | Henrik Solberg | 41 52 63 74 |", ("PHONE_NUMBER", "41 52 63 74")),
        ("  ('Inés', 'Carrasco Ruiz', '678 12 34 56', 'Cádiz'),", ("PHONE_NUMBER", "678 12 34 56")),
        ("Camila Rojas,(2) 2417 6389,Santiago,socia", ("PHONE_NUMBER", "(2) 2417 6389")),
        # a long card, Luhn-valid, in its holder's row, in a text that speaks of cards
        (
            "date,name,card,status\n2025-01-14,Hendrik van Leeuwen,4578631807025997202,declined",
            ("CREDIT_CARD", "4578631807025997202"),
        ),
        # nine digits that are a valid SSN, in a row with a US state's code, or in a text about taxes
        ('    ("Marisol Quintero", "521447803", "Tucson", "AZ"),', ("US_SSN", "521447803")),
        ("payroll export: Okafor, Chidi|521447803|Houston", ("US_SSN", "521447803")),
    ],
)
def test_a_persons_value_in_their_row_is_read(text: str, value: tuple[str, str]) -> None:
    assert value in scan(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a row with no person: a build's, a sensor's, a price list's
        ("build-441;linux-arm64;09 233 45 67;ok", "PHONE_NUMBER"),
        ("| sensor-7 | 41 52 63 74 | 21.5 |", "PHONE_NUMBER"),
        # nine digits in a person's row with no state and no word of taxes: an order's, a member's number
        ("Hendrik van Leeuwen,521447803,Utrecht,paid", "US_SSN"),
        # a long run that fails Luhn's check in a person's row: an id
        ("2025-01-14,Hendrik van Leeuwen,4578631807025997203,declined", "CREDIT_CARD"),
        # a date and a range of years in a person's row
        ("Hendrik van Leeuwen;2024 03 15;Utrecht", "PHONE_NUMBER"),
        ("Hendrik van Leeuwen;1999-2004;Utrecht", "PHONE_NUMBER"),
    ],
)
def test_a_rows_other_numbers_are_no_ones(text: str, kind: str) -> None:
    assert [f for f in scan(text) if f[0] == kind] == []


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        # Portugal's after its word
        ("A Rita disse que o número novo é 913 572 846.", "913 572 846"),
        # a phone's word in more languages: Spanish's plural `call` and landline, Italian's `call back`, Czech's
        # `call`, Indonesian's number, Swahili's number, Mongolian's phone, Arabic's `and his number`
        ("Para reservas llamad a Nerea al 634 21 87 90", "634 21 87 90"),
        ("el fijo es 915 23 45 67", "915 23 45 67"),
        ("Potete richiamarmi al 320 714 5932?", "320 714 5932"),
        ("Volejte prosím na 602 123 456.", "602 123 456"),
        ("Pesanan atas nama Dewi, nomor 0857 4739 2651.", "0857 4739 2651"),
        ("Mteja analipa kwa M-Pesa, namba yake 0745 918372", "0745 918372"),
        ("Түүний утас 8811 2233.", "8811 2233"),
        ("الطلبية جاهزة، ورقمه 010 47283916.", "010 47283916"),
        # Portuguese's `I call` before `to`, with its pronoun written on; a comma between the call and the number
        ("ok, ligo-lhe antes para o 913 572 846", "913 572 846"),
        ("llama a Nerea, 634 21 87 90, ella lleva la agenda", "634 21 87 90"),
        # Iceland's numbers of seven digits, after Icelandic's phone or call
        ("Síminn minn er 581 2345.", "581 2345"),
        ("Hringdu í 661 2345 ef eitthvað kemur upp.", "661 2345"),
        # a Nguni language's prefix and hyphen before a number with its `+`
        ("angangishayela ku-+27 71 234 5678.", "+27 71 234 5678"),
    ],
)
def test_national_numbers_are_read(text: str, phone: str) -> None:
    assert ("PHONE_NUMBER", phone) in scan(text)


@pytest.mark.parametrize(
    "text",
    [
        # seven digits after no Icelandic word, and a symbol's Spanish word
        ("call 581 2345 now"),
        ("el símbolo 581 2345 no se muestra"),
        # Portuguese's `I link`, not `I call`; a count in threes; Spain's shape that is no valid mobile
        ("ligo o serviço 214 735 912 ao balanceador"),
        ("processed 913 572 846 rows"),
        ("ratio 790 12 34 56 held"),
        # an identifier glued to a number with its `+`
        ("build-+27 71 234 5678"),
    ],
)
def test_what_looks_like_a_national_number_is_not(text: str) -> None:
    assert [f for f in scan(text) if f[0] == "PHONE_NUMBER"] == []


@pytest.mark.parametrize(
    ("text", "ssn"),
    [
        ("Members typed SSNs, e.g. 587-22-1943 (Noor Haddad) and 521447803 (Priscilla Dunmore).", "521447803"),
        ("SSNs on file: Priscilla Dunmore (521447803)", "521447803"),
    ],
)
def test_nine_digits_beside_a_name_in_brackets_are_an_ssn(text: str, ssn: str) -> None:
    assert ("US_SSN", ssn) in scan(text)


@pytest.mark.parametrize(
    ("text", "card"),
    [
        # China's `payment card` as a key, and a card in its holder's row of an INSERT with a card's column
        ('{"顾客":"刘晓梅","支付卡":"6253693417287941949"}', "6253693417287941949"),
        (
            "INSERT INTO orders (customer, card_number, amount)\nVALUES ('陳嘉欣', '6253693417287941949', 88.00);",
            "6253693417287941949",
        ),
        # RuPay's after its brand, after Hindi's card and number, and with its expiry after it
        ("Paid with RuPay 8253 7824 4425 2068 at the counter.", "8253 7824 4425 2068"),
        ("कार्ड नंबर 8253 7824 4425 2068", "8253 7824 4425 2068"),
        ("Please charge 8253 7824 4425 2068 exp 09/27 CVV 412", "8253 7824 4425 2068"),
    ],
)
def test_a_long_card_under_its_key_is_read(text: str, card: str) -> None:
    assert ("CREDIT_CARD", card) in scan(text)


@pytest.mark.parametrize(
    "text",
    [
        # ports, references and keys in RuPay's range, with no card's word and no holder
        "EXPOSE 8200 8201 8300 8301",
        "Invoice no. 8211 0042 7789 3350 is overdue",
        # a transaction's code, a top-up card's serial and a tag, after Vietnamese's `thẻ`
        "Mã giao dịch thẻ 6217740612345678909 — hoàn tiền 250.000đ",
        "seri thẻ 6217740612345678909 mệnh giá 100.000đ",
        "Gắn thẻ 6401234567890123458 cho bài viết này",
    ],
)
def test_numbers_in_a_cards_range_with_no_card_or_holder_are_none(text: str) -> None:
    assert [f for f in scan(text) if f[0] == "CREDIT_CARD"] == []


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("Shreya Iyer;Chennai;+91 761 361 3718;8253 7824 4425 2068", "8253 7824 4425 2068"),
        ("Số thẻ tín dụng: 6218839445064084060", "6218839445064084060"),
        ("Thẻ ghi nợ 6218839445064084060 bị khóa", "6218839445064084060"),
    ],
)
def test_rupay_in_its_holders_row_and_vietnamese_cards_are_read(text: str, card: str) -> None:
    assert ("CREDIT_CARD", card) in scan(text)


@pytest.mark.parametrize(
    ("text", "person"),
    [
        # a kin word in capitals right before a name, and a kin word ending the sentence before one
        ("¡FELIZ CUMPLEAÑOS TÍA Rosa! Te queremos mucho.", "Rosa"),
        ("Querida tía... Rosa ya llegó al aeropuerto.", "Rosa"),
        ("Sono passato da mio zio. Rosa era già uscita.", "Rosa"),
    ],
)
def test_a_kin_word_that_is_no_acronym_stays_a_cue(text: str, person: str) -> None:
    assert ("PERSON", person) in scan(text)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("exit code 137 = OOM.\nFlower shows the task as STARTED forever.", "Flower"),
        ("## Incident: OOM\nGrace period for the SLA expired at 04:00.", "Grace"),
    ],
)
def test_an_acronym_ending_its_line_is_no_kin_word(text: str, word: str) -> None:
    assert ("PERSON", word) not in scan(text)


@pytest.mark.parametrize("text", ["Till: kundecenter@vaskeri.dk", "To: asiakastuki@pesula.fi"])
def test_more_customer_services_mailboxes_are_no_ones(text: str) -> None:
    assert [f for f in scan(text) if f[0] == "EMAIL_ADDRESS"] == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # amounts, counts, accounts, bank codes, dates and national ids in a person's row
        ("Joe Biden;81 283 501;51.3", "PHONE_NUMBER"),
        ("1042,Hendrik van Leeuwen,Finance,23 456 789", "PHONE_NUMBER"),
        ("Lukas Schneider;22 500 000;Kunde", "PHONE_NUMBER"),
        ("Hendrik van Leeuwen;100 500 00;Berlin", "PHONE_NUMBER"),
        ("Hendrik van Leeuwen;31-12-1987;Berlin", "PHONE_NUMBER"),
        ("Jón Jónsson;120174-3399;Reykjavík", "PHONE_NUMBER"),
        # an id that passes Luhn's check in a text about no card
        ("653846999434047632,gracehopper,Grace Hopper,admin", "CREDIT_CARD"),
        # a member's number beside a country's code, or in a text with an invoice's tax
        ("Hendrik Müller,DE,521447803", "US_SSN"),
        ("invoice,customer,amount,tax\n2024-001,Hendrik Müller,521447803,21.00", "US_SSN"),
        # after a phone's word, a column's next value and an amount in thousands
        ("event,count\ncalls,23 456 789\nsms_sent,34 567 890", "PHONE_NUMBER"),
        ("mobile, 87 654 321, desktop, 12 345 678", "PHONE_NUMBER"),
        ("Telefon, 56 789 123 Stück verkauft (2023)", "PHONE_NUMBER"),
        # Indonesian's number before a receipt's or a transaction's word, Spanish's fixed price, Icelandic prices
        ("Nomor resi JNE: 0123 4567 8910", "PHONE_NUMBER"),
        ("Nomor transaksi 2211 3344 556 berhasil.", "PHONE_NUMBER"),
        ("Precio fijo: 915 23 45 67 unidades", "PHONE_NUMBER"),
        ("Verð á síma: 5 990 000 kr", "PHONE_NUMBER"),
        ("Síminn hf. skilaði hagnaði 4 581 2345 kr.", "PHONE_NUMBER"),
        ("Modem sima 693 2291 status ok", "PHONE_NUMBER"),
        # Spain's shape after an order's, an invoice's, an id's word; Egypt's in a log with no Arabic
        ("El pedido 648 29 17 53 se envió ayer.", "PHONE_NUMBER"),
        ("Factura 648 29 17 53", "PHONE_NUMBER"),
        ("DNI: 648 29 17 53", "PHONE_NUMBER"),
        ("ERROR 010 47283916 retry=3", "PHONE_NUMBER"),
        # a code's prefix and a hyphen before a number with its `+`
        ("sku TSHIRT-+27 71 234 5678", "PHONE_NUMBER"),
    ],
)
def test_the_reviews_lookalikes_are_not_read(text: str, kind: str) -> None:
    assert [f for f in scan(text) if f[0] == kind] == []


def test_a_spanish_mobile_with_its_code_is_read_whole() -> None:
    assert ("PHONE_NUMBER", "+34 658 88 41 45") in scan("Llámame al +34 658 88 41 45 mañana")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a date's and a day's hours in a person's row, with a trunk's zero first
        ("Lukas Schneider;01-05-1987;München", "PHONE_NUMBER"),
        ("Ingrid Nilsen,0900-1730,Mon-Fri", "PHONE_NUMBER"),
        # a badge's number in fours
        ("Ingrid Nilsen|4471 2290|3", "PHONE_NUMBER"),
        # a card's word only inside another word: a scorecard's, a game's
        ("scorecard,player,id\nq3,Grace Hopper,653846999434047632", "CREDIT_CARD"),
        # nine digits under an id's column, beside a town and its state
        ("name,city,state,employee_id\nGrace Hopper,Arlington,VA,521447803", "US_SSN"),
        # Spain's threes and twos, and Egypt's shape, after a file's, a lot's, a transaction's word
        ("Expediente 648 29 17 53 en trámite", "PHONE_NUMBER"),
        ("Lote 648 29 17 53, caducidad 2026", "PHONE_NUMBER"),
        ("تم الدفع، رقم العملية 011 93847261", "PHONE_NUMBER"),
        # Mongolian's phone's model and count
        ("Утасны загвар: 8811 2233 үнэ", "PHONE_NUMBER"),
    ],
)
def test_the_second_reviews_lookalikes_are_not_read(text: str, kind: str) -> None:
    assert [f for f in scan(text) if f[0] == kind] == []


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        # a phone's word in another language beside an order's word
        ("طلب أحمد، هاتف 010 4728 3916", "010 4728 3916"),
        ("Ordine di Giulia, cellulare 347 218 9035", "347 218 9035"),
        ("Bestellung 4711 — Rückruf unter 0172 4839 215", "0172 4839 215"),
        # a list of ways to reach someone, then the number
        ("Call, text or WhatsApp 0412 783 915", "0412 783 915"),
    ],
)
def test_a_phone_beside_an_orders_word_in_another_language_is_read(text: str, phone: str) -> None:
    assert ("PHONE_NUMBER", phone) in scan(text)


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        # an order's or an invoice's word in another language before a phone's word of that language
        ("Pedido de Ana, contacto 658 88 41 45", "658 88 41 45"),
        ("Rechnung Schmidt, Kontakt 0172 4839 215", "0172 4839 215"),
        ("Zamówienie Anny, zadzwoń 604 871 239", "604 871 239"),
        ('WARNING django.request: Doğrulama hatası: telefon "0540 023 71 82" zaten kayıtlı', "0540 023 71 82"),
    ],
)
def test_a_phone_after_an_orders_word_and_a_phones_word_is_read(text: str, phone: str) -> None:
    assert ("PHONE_NUMBER", phone) in scan(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a card's word that is another word too (`Pan`), and an id's column beside a town and its state
        ("id,name,tag\n653846999434047632,Peter Pan,neverland", "CREDIT_CARD"),
        ("name,city,state,sku\nGrace Hopper,Arlington,VA,521447803", "US_SSN"),
    ],
)
def test_the_third_reviews_lookalikes_are_not_read(text: str, kind: str) -> None:
    assert [f for f in scan(text) if f[0] == kind] == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # nine digits whose last four an SSN masked but for them repeats
        ("Jolene Harper's field shows 422835273 unmasked. Expected: ***-**-5273.", ("US_SSN", "422835273")),
        # an SSN's key with words after it, a card's brand as a key's first word
        ('{"ssn_on_file":"269847396","city":"Iași"}', ("US_SSN", "269847396")),
        ("unionpay_backup = 6217413169009603240", ("CREDIT_CARD", "6217413169009603240")),
        # a national number in a person's row, a part of which a recognizer read alone
        ("2024-05-01;Ali Hassan Mahmoud;Giza;010 03058178;AE230334259879378538413", ("PHONE_NUMBER", "010 03058178")),
    ],
)
def test_the_eightieth_sets_missed_values_are_read(text: str, value: tuple[str, str]) -> None:
    assert value in scan(text)


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        # a placeholder's number: seven zeros or more last
        ('{<<"Fulano de Tal">>, <<"+5511900000000">>}', ("PHONE_NUMBER", "+5511900000000")),
        ("1043,Israel,Israeli,Tel Aviv,03-0000000", ("PHONE_NUMBER", "03-0000000")),
        # a rota's days
        ("- Tue–Thu: ridge work (weather permitting)", ("PERSON", "Tue–Thu")),
        # a Discord copy's speakers shown with two names
        (
            "Zainab Hussain — Today at 20:01\nanyone booked the sauna?\ntapio — Today at 20:05\nI did",
            ("PERSON", "Zainab Hussain"),
        ),
    ],
)
def test_the_eightieth_sets_lookalikes_are_not_read(text: str, wrong: tuple[str, str]) -> None:
    assert wrong not in scan(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # an agenda's and a rota's names before a dash and a time, with no Discord's day: people
        ("Agenda\nPriya Raman — Opening remarks 09:30\nTomás Herrera — Keynote 10:15", ("PERSON", "Priya Raman")),
        ("Anna Berg — Sales lead 10:30", ("PERSON", "Anna Berg")),
    ],
)
def test_a_name_a_dash_and_a_time_with_no_day_are_a_persons(text: str, value: tuple[str, str]) -> None:
    assert value in scan(text)


def test_an_orders_number_ending_as_a_masked_ssn_is_no_ssn() -> None:
    assert [f for f in scan("Order 100045273 shipped. Card on file ***-**-5273") if f[0] == "US_SSN"] == []
