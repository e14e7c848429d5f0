"""The readers whose cues belong to one language, asking the language identifier which language a line is in.

Read with the step's own name reader (the shipped lexicons, rules, vetter and language identifier's model).
"""

from __future__ import annotations

import pytest

from taskgate.guards import languages

from .test_pii_unusual_case import read


def test_the_identifier_names_the_language_of_a_line_and_is_unsure_of_a_short_one() -> None:
    assert languages.language_at("Aminu Bello Danjuma yana zaune a Kano, amma yana aiki a Kaduna.", 30) == "ha"
    assert languages.language_at("Ana Horvat živi u Zagrebu, ali radi u Rijeci.", 20) == "hr"
    assert languages.language_at("Tuan tinggal di Bandung dan bekerja di sebuah klinik.", 20) == "ms"
    assert languages.language_at("have fun marco", 3) is None  # three words: no language it is sure of
    text = "line one is English and says so plainly enough\nMart Kask elab Tallinnas, aga tema vanemad elavad Pärnus"
    assert languages.language_at(text, 5) == "en"
    assert languages.language_at(text, text.index("Tallinnas")) == "et"  # each line its own


LOWER_CASE_WORDS_OF_OTHER_LANGUAGES = [
    # Hausa and Tagalog lines have an `a` or a `from`, and words that are given names somewhere
    "Aminu Bello Danjuma yana zaune a Kano, amma yana aiki a Kaduna a matsayin manomi.",
    "Sabon tsarin biyan kuɗin wutar lantarki zai fara aiki a watan Yuni.",
    "pasabi kay Kuya Ramil na tumawag ulit yung customer from Cebu, 0975 161 4730 daw yung number niya",
    # an English cue's words in Portuguese and Tagalog: `email dela` is `her email`, `refund ko` `my refund`
    "bom dia! a Joana pediu pra gente reenviar o certificado do curso pro email dela, joana.ferreira88@gmail.com",
    "Maricel Dizon po ito, di pa dumating yung refund ko sa ticket",
]


@pytest.mark.parametrize("text", LOWER_CASE_WORDS_OF_OTHER_LANGUAGES)
def test_lower_case_words_of_a_line_in_another_language_are_no_ones_names(text: str) -> None:
    lower = [(e, v) for e, v in read(text) if e == "PERSON" and v.islower()]
    assert lower == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("kwabena i owe you a beer for the migration", "kwabena"),
        ("ravi shreya — retro at 4", "ravi"),
        ("ping marco about the payout", "marco"),
        ("oye carlos, ya está el deploy?", "carlos"),  # another language's greeting is its own cue
    ],
)
def test_lower_case_names_in_english_chat_are_still_read(text: str, person: str) -> None:
    assert ("PERSON", person) in read(text)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Dzień dobry, pociąg z Krakowa do Warszawy był opóźniony o 95 minut.", "Krakowa"),
        ("Dzień dobry, pociąg z Krakowa do Warszawy był opóźniony o 95 minut.", "Warszawy"),
        ("dzięki Ola! wysłałam fakturę do klienta z Poznania", "Poznania"),
        ("a studiowała w Krakowie; dziś mieszka nad Wisłą w Toruniu.", "Toruniu"),  # Toruń is a given name too
        ("Dobrý den, jmenuji se Jiří Novotný a bydlím v Brně.", "Brně"),
        ("Zuzana býva v Bratislave a pracuje v Košiciach.", "Bratislave"),
        ("Zuzana býva v Bratislave a pracuje v Košiciach.", "Košiciach"),
        ("Matej Kovačič živi v Mariboru, poleti pa dela kot vodnik.", "Mariboru"),
        ("Ana Horvat živi u Zagrebu, ali radi u Rijeci.", "Rijeci"),
        ("Mart Kask elab Tallinnas, aga tema vanemad elavad Pärnus ja suviti käib ta Saaremaal.", "Tallinnas"),
        ("Mart Kask elab Tallinnas, aga tema vanemad elavad Pärnus ja suviti käib ta Saaremaal.", "Pärnus"),
        ("Ilze Kalniņa strādā Rīgā, bet dzīvo Jūrmalā un brīvdienās brauc uz Siguldu.", "Siguldu"),
        ("Rūta Petrauskaitė gyvena Vilniuje, o jos brolis Mindaugas dirba Klaipėdoje.", "Vilniuje"),
        ("Rūta Petrauskaitė gyvena Vilniuje, o jos brolis Mindaugas dirba Klaipėdoje.", "Klaipėdoje"),
        ("Jó napot! Kovács Eszter vagyok, Debrecenben lakom.", "Debrecenben"),
        ("Juha Lehtonen muutti Helsingistä Rovaniemelle ja työskentelee nyt", "Rovaniemelle"),
        ("Hei, olen Aino Virtanen Oulusta. Sähkölasku on väärä", "Oulusta"),
        ("Tuan Hidayat tinggal di Yogyakarta dan bekerja di sebuah klinik di Sleman.", "Sleman"),
    ],
)
def test_a_place_with_its_case_ending_is_read_where_the_line_is_in_its_language(text: str, place: str) -> None:
    assert ("LOCATION", place) in read(text)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        # the same words with an ending, in English: not Polish, so no place
        ("we shipped the Warszawy build to staging", "Warszawy"),
        ("the Tallinnas theme is broken on mobile", "Tallinnas"),
        # a given name with the ending, in Polish: a person's, not a small place's
        ("Dzień dobry, przekaż to do Anny, ona zna sprawę.", "Anny"),
    ],
)
def test_an_ending_is_read_only_in_its_language_and_not_on_a_persons_name(text: str, word: str) -> None:
    assert ("LOCATION", word) not in read(text)


@pytest.mark.parametrize(
    "text",
    [
        'title: "Florence Nightingale Nursing Scholarship"',
        "El concierto en el Estadio Santiago Bernabéu se ha trasladado al sábado",
        "La rose « Pierre de Ronsard » et le camembert Président sont en promotion",
        "Der IC „Theodor Heuss“ fällt heute aus.",
        "j'ai acheté deux billets pour l'expo Monet mais je n'ai reçu aucun e-mail",
    ],
)
def test_a_stadium_a_train_a_rose_an_exhibition_and_a_prize_named_after_someone_are_no_one(text: str) -> None:
    assert [v for e, v in read(text) if e == "PERSON"] == []


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ('Kund: Gunilla Ekström, Luleå "Jag har betalat till fel konto, kan ni återbetala?"', "Jag"),
        ("odpověz prosím na tento e-mail: „Dobrý den, jmenuji se Jiří Novotný a bydlím v Brně.", "Dobrý"),
        ("fordítsd le angolra: „Jó napot! Kovács Eszter vagyok, Debrecenben lakom.", "Jó"),
    ],
)
def test_a_common_word_of_the_lines_language_opening_a_sentence_is_no_ones_name(text: str, word: str) -> None:
    assert ("PERSON", word) not in read(text)


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("buenas tardes, soy Marisol Castellanos, mamá de Mía (7º grado). Nos mudamos a Valencia.", "Mía"),
        ("Ella vive en Sevilla con su madre y trabaja en el puerto.", "Ella"),  # many people are called Ella
    ],
)
def test_a_name_that_is_also_a_common_word_stays_a_name_mid_sentence_or_when_many_carry_it(
    text: str, person: str
) -> None:
    assert ("PERSON", person) in read(text)


# the eighteenth set's run, seen after it: more of the same readers
@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Jānis Bērziņš dzīvo Rīgā un ziemā strādā par slēpošanas instruktoru Siguldā.", ("LOCATION", "Rīgā")),
        ("Rūta Kazlauskienė gyvena Kaune ir savanoriauja maisto banke.", ("LOCATION", "Kaune")),  # Kaune: a surname
        ("Mette Andersen fra Aarhus har støttet fødevarebanken med et fast beløb.", ("LOCATION", "Aarhus")),
        (
            "Agnieszka Wróbel przeprowadziła się z Gdańska do Wrocławia i od marca prowadzi gabinet",
            ("LOCATION", "Wrocławia"),
        ),
        ("staff_id,surname,given,ward\n4410,Eze,Ngozi,ICU\n4411,Olawale,Temitope,A&E", ("PERSON", "Temitope")),
        ('{"patient": {"given": "Fatou", "family": "Sow"}}', ("PERSON", "Fatou")),
        ("hey can you fix the rota export? it's putting dr okafor on nights twice", ("PERSON", "okafor")),
        ("ask ms ferreira first, she owns the strings roster", ("PERSON", "ferreira")),
        ("hi, i'm aroha from the ski school, our booking page shows USD", ("PERSON", "aroha")),
        ("> hi its soraya at the isfahan clinic, we marked the cat as deceased", ("PERSON", "soraya")),
        ("he said baraka's sister can drive the van saturday", ("PERSON", "baraka")),
        ("can you check why park ji-hoon's tournament payout went to the wrong account", ("PERSON", "park ji-hoon")),
        ("our jungler is lee min-jae, sub is on the bench", ("PERSON", "lee min-jae")),
    ],
)
def test_more_places_with_endings_and_people_in_lower_case(text: str, found: tuple[str, str]) -> None:
    assert found in read(text)


@pytest.mark.parametrize(
    "text",
    [
        "p99 is 200 ms latency on the ledger",
        "city names confuse the DR runbook.",  # disaster recovery's, in capitals without a dot
        "can someone with admin on Sentry bump the rate limit",
        "i'm sorry, it's broken again",
        "the go-live is on monday, re-run the job, ping-pong and bye-bye",
        "given: a user with two carts",
    ],
)
def test_what_only_looks_like_those_cues_finds_no_one(text: str) -> None:
    assert [v for e, v in read(text) if e == "PERSON"] == []


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Von: Katharina Oberhuber <k.oberhuber@aon.at>", "Von"),
        ("Subject: Kan ikke logge inn\nFra: Håkon Aasheim <hakon.aasheim@online.no>", "Fra"),
        (
            "Sehr geehrte Damen und Herren, bitte überweisen Sie die Kaution. Mit freundlichen Grüßen, Katharina Huber",
            "Sie",
        ),
        (
            "Sehr geehrte Damen und Herren, bitte überweisen Sie die Kaution. Mit freundlichen Grüßen, Katharina Huber",
            "Damen",
        ),
        ("and married Bridget Hurley at St. Augustine's the following spring", "Augustine"),
    ],
)
def test_a_header_key_a_german_pronoun_and_a_saint_are_no_one(text: str, word: str) -> None:
    assert ("PERSON", word) not in read(text)
    assert any(e == "PERSON" for e, _ in read(text))  # the person beside them still is


def test_a_name_like_the_german_pronoun_outside_german_is_still_read() -> None:
    assert ("PERSON", "Sie Chen") in read("Ask Sie Chen about the rota")


def test_a_place_in_an_institutions_name_is_no_ones_place_but_the_place_beside_it_is() -> None:
    found = read('{"name": "Oluwaseun Bamidele", "institution": "University of Ibadan", "city": "Ibadan"}')
    assert [v for e, v in found if e == "LOCATION"] == ["Ibadan"]
    assert read("She studied at the University of Ghana and now lives in Accra.") == [("LOCATION", "Accra")]
