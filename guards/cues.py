"""What the text around a capitalised word says it is: runs of such words outside code, and the cues around them.

Used by guards/names.py. A cue is a word next to a run: before a person
(`Thanks`, `ask`, `her brother`, `Assignee:`, `name=`), after one (`said`,
`asked`, `'s mother`, `is on leave`), before a place (`in`, `from`, `city:`),
or after a system (`cluster`, `upgrade`, a version number) or before one
(`bump`, `deploy`, `the`).
"""

from __future__ import annotations

import bisect
import re
import sys
from dataclasses import dataclass

from . import languages
from .lexicons import fold
from .lexicons import words as _words

_TOKEN = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
# French's and Catalan's elided `de`, `la`, `que` (`d'Inès`, `l'Arnau`); not Italian's `dell'`, `all'`, before
# institutions' names as often (`dell'Unione Europea`)
_ELIDED = re.compile(r"(?:d|l|qu)['’](?=[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ])")
_GLUE_BEFORE = frozenset("_./\\@#$%&*+~<>[{|`")
_GLUE_AFTER = frozenset("_/\\@#$%&*+~<>[{(=|`")
CODE_SPANS = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)  # fenced and inline code
# a fenced block of data, not code: no language's tag (or a tag for data) and no line of code in it (a CSV export,
# a bank file, a log pasted as it is): read as the text around it is
_DATA_FENCE = re.compile(r"```[ \t]*(?:csv|tsv|text|txt|log|logs|plaintext|plain|output|console)?[ \t]*\n")
_CODE_LINE = re.compile(
    r"^[ \t]*(?:def |class |import |from [\w.]+ import|function |return |const |let |var |public |private |"
    r"#include|SELECT |INSERT |UPDATE |DELETE |CREATE |@\w)|[{};][ \t]*$|=>|\)[ \t]*:[ \t]*$|^[ \t]*[$>] ",
    re.MULTILINE,
)
_SENTENCE_START = re.compile(r"(?:\A|[.!?:]\s+|\n)[\s\-*#>\"'(\[•]*\Z")
_WORD_BEFORE = re.compile(r"([\w'’\-]+)[\s:,=\"'({\[\-.!]*\Z")
_SENTENCE_END = re.compile(r"[.!?](?:\s|\Z)|\n")
_PAIR_BEFORE = re.compile(r"([^\W\d_]+)\s*(?:,\s*|\s+)(?:and|&)\s+\Z")
_PAIR_AFTER = re.compile(r"\s*(?:,\s*|\s+)(?:and|&)\s+([^\W\d_]+)")


PARTICLES = _words("van von der den de da di del la le du dos das bin ibn al el ter ten af")
_PEOPLE_NOUNS = (
    "man|woman|girl|boy|guy|lady|gentleman|person|someone|fellow|kid|baby|child|son|daughter|guide|driver|friend|"
    "teacher|doctor|nurse|neighbou?r|host|chef|owner|cousin|student|grandson|granddaughter"
)
_NAMED_BEFORE = re.compile(r"\b(?:" + _PEOPLE_NOUNS + r")\s+(?:named|called)\s+\Z", re.IGNORECASE)
TITLES = _words(
    "dr mr mrs ms mx prof sir dame aunt uncle auntie grandma grandpa lord lady herr frau mme mlle pani sra "
    "signora signor capt dottor dottoressa dott doutor doutora señor señora monsieur madame fam adv dhr mevr "
    "mgr judr mudr srta doña paní herrn"
    # other languages' `Mr` and `Mrs`: `Pan Wiśniewski`, `doamna Stan`, `mevrouw J. de Wit`, `familie de Vries`
    " domnul doamna dl dna meneer mevrouw familie senhor senhora sig gospodin gospođa gospa"
    # the Nordic languages', Finnish's and Turkish's: `frk. Holm`, `rouva Virtanen`
    " frk fröken rouva herra neiti sayın"
    # Indonesian's `miss`: `Mbak Sari`
    " mbak"
)
# a family's or a customer's word before a name, `familjen Håkansson`, `la familia Quintana Ruiz`, `Klientka Magdalena
# Kamińska`: a title only before a name the lexicons know (not `Kunde Nummer 48213`, `asiakas: Nokia`, `famille
# Produit`), and never part of the name (not `cliente`: `Dim cliente As New`)
SOFT_TITLES = _words(
    "familia famiglia família familjen famille klient klientka kunde kundin klant klantin kund asiakas"
    # an account's holder, and Portuguese's and Catalan's `Dona`: `Kontoinhaberin Sabine Wörle`, `a Dona Graça`
    " kontoinhaber kontoinhaberin inhaber inhaberin titular titulaire dona"
)
# a German compound's noun endings, an association's, a trade's: no one's name ends so (`Überweisungsdaten`)
# a club's, an association's and a trade's endings (Dutch's, German's): `Korfbalvereniging De Zwaluwen`, `Slagerij
# Peeters`, `Schuhmacherei Huber`
BUSINESS_ENDINGS = ("verein", "vereniging", "club", "klub", "erij", "erei")
NOUN_ENDINGS = ("ung", "ungen", "heit", "keit", "schaft", "daten", "gesellschaft", "zentrum", *BUSINESS_ENDINGS)
# a shop's, a workshop's or an inn's word opening a name: the business's name, no one's (`Orologeria Ferri`,
# `Zapatería Martínez`, `Livraria Bertrand`, `Boucherie Lefèvre`), folded
TRADES = _words(
    "tabaccheria libreria cartoleria coltelleria ferramenta salumeria macelleria pasticceria panetteria gelateria "
    "pizzeria trattoria osteria orologeria gioielleria calzoleria pelletteria profumeria merceria drogheria enoteca "
    "bottega sartoria tipografia legatoria falegnameria erboristeria pescheria rosticceria latteria cremeria "
    "polleria torrefazione farmacia ottica "
    "zapateria ferreteria papeleria tabaqueria estanco panaderia carniceria pasteleria joyeria relojeria "
    "cuchilleria charcuteria taberna cerveceria marisqueria pescaderia fruteria heladeria churreria sidreria "
    "drogueria peluqueria barberia lavanderia tintoreria imprenta "
    "livraria papelaria sapataria tabacaria padaria pastelaria relojoaria cutelaria charcutaria ourivesaria "
    "talho tasca cervejaria drogaria barbearia churrasqueira "
    "boucherie boulangerie patisserie librairie papeterie quincaillerie coutellerie horlogerie bijouterie "
    "cordonnerie fromagerie brasserie bistrot epicerie cremerie volaillerie poissonnerie droguerie mercerie "
    "parfumerie maroquinerie chocolaterie confiserie "
    "buchhandlung schreibwaren eisenwaren tabakwaren gasthaus gasthof wirtshaus weinhandlung goldschmiede "
    "boekhandel kapsalon ijzerhandel sigarenwinkel sporthal"
)
MONTHS = _words("january february march april may june july august september october november december")
WEEKDAYS = _words("monday tuesday wednesday thursday friday saturday sunday")  # never a person, nor a place
HOLIDAYS = _words("eid diwali christmas easter hanukkah ramadan thanksgiving passover halloween navratri nowruz")
CALENDAR = MONTHS | WEEKDAYS
# before a person: greetings, family and work roles, record fields; IMPERATIVE: verbs said to people and,
# as often, to assistants and tools ("ask Gemini"); WEAK: words as often before a system ("migrate to")
# SOCIAL: said to or of people only, never to an assistant or a tool ("her brother", "Dear"); the rest of
# _GREETING as often names a bot or a model ("Thanks Claude", "Co-authored-by: Claude", "Reviewer: Renovate")
_SOCIAL = _words(
    "hi hey hello yo dear congrats congratulations welcome bye birthday brother sister mother father mom mum "
    "dad son daughter wife husband partner friend colleague coworker neighbour neighbor boss manager teammate "
    "intern customer client twin cousin nephew niece fiance fiancee boyfriend girlfriend grandmother grandfather "
    "guide landlord landlady roommate flatmate housemate classmate mentor "
    # the same in German, French, Spanish, Portuguese and Italian: `Mein Mann Herbert`, `ma sœur Claire`
    "mann ehemann sohn tochter bruder schwester mutter vater kollege kollegin "
    "mari femme fils fille frère sœur mère père "
    "esposo esposa marido hijo hija hermano hermana madre padre "
    "mulher filho filha irmão irmã mãe pai "
    "moglie figlio figlia fratello sorella"
)
# a letter's closing in other languages, before the given name that signs it: `Mvh Henrike`, `Pozdrawiam Ewa` (not
# `Terveisin Asiakaspalvelu`, `Saludos Equipo`: a desk's)
CLOSINGS = _words("mvh hilsen hälsningar terveisin pozdrawiam saludos groeten groetjes cordialement")
# grandparents, aunts, uncles and cousins in other languages, before a name in the sentence (`mi abuela Dolores`):
# not split off a run of capitals as greetings are (`Nonna Rosetta` stays one name)
KIN = _words(
    "abuela abuelo tía tío prima primo nieta nieto grand-mère grand-père mamie papi tante oncle cousine "
    "oma opa onkel enkel enkelin nonna nonno zia zio cugino cugina avó avô neta neto oom zus broer "
    "babcia dziadek ciocia wujek mormor farmor morfar farfar syster bror"
    # a daughter, a son: `Mijn dochter Lotte`, `meine Tochter Mia`, `mi hija Lucía`
    " dochter zoon tochter sohn fille fils hija hijo figlia figlio filha filho datter søn dotter córka syn dcera"
)
_FIELDS = _words(
    "assignee reporter reviewer author owner maintainer approver signed-off-by co-authored-by name first_name "
    "last_name full_name user_name display_name contact requester requested first last firstname lastname "
    "given_name family_name surname holder account_holder cardholder beneficiary payee recipient employee patient "
    "applicant"
)
_GREETING = _SOCIAL | _FIELDS | _words("thanks thank thx ty cc cheers sorry")
# a capitalised word next, after the spaces: a name that may follow a greeting's or an initial's words
CAPITAL_AFTER = re.compile(r"[ \t]+[A-ZÀ-ÖØ-Þ]")
# a sentence's start before a word: the text's, a line's, or after a sentence's end
SENTENCE_START = re.compile(r"(?:\A|\n|[.!?][ \t]+)[ \t]*\Z")
# greetings and thanks alone, in several languages, before whom they greet: `Bonjour M. Lindström`, `Danke S. Kraus`
GREETINGS = _words(
    "hi hello hey dear thanks hola olá bonjour bonsoir salut hallo moin servus hej hei ciao buongiorno merhaba ahoj "
    "cześć czesc szia obrigado obrigada gracias merci danke grazie tack takk kiitos dziękuję bienvenue bienvenido "
    "bienvenida benvenuto benvenuta willkommen welkom välkommen velkommen asante karibu"
)
_IMPERATIVE = _words(
    "ask tell ping page call text email message dm remind invite introduce meet pay refund thank loop sync "
    "check talk reach escalate assign hand pairing can could would should did does"
)
_WEAK = _words("from with and to per via for by")
_PLACE_BEFORE = _words(
    "in from to near at across around outside via visiting visit visited toward towards into between of on along "
    "city town country location hometown address moved flying flew drove trip above below beyond left leaving "
    "toured explored"
)
# after a person: SOCIAL, what only people do or are ("'s mother", "is on leave", "lives in", "from the
# billing team"); SHARED, what models, bots and tools are said to do too ("said", "wrote", "suggested")
# what a language or a product has, after its possessive: `Ada's tooling`, `Ruby's GC` (not a person's cue)
_OWNED_BY_SYSTEMS = sorted(
    _words(
        "tooling toolchain compiler compilers runtime runtimes syntax docs documentation stdlib gc ecosystem bindings "
        "binding interpreter types generics macros scheduler parser linter formatter repl package packages module "
        "modules plugin plugins api apis sdk sdks cli client clients driver drivers cluster clusters node nodes "
        "broker brokers server servers instance instances chart charts release releases version versions config "
        "configs default defaults changelog license codebase maintainers community skill skills tokenizer "
        "tokenizers optimizer allocator executor planner renderer bundler loader resolver serializer indexer crawler "
        "backend frontend engine kernel storage cache index queue pipeline repo repository tracker internals"
    )
)
_OWNED = re.compile(r"['’]s\s+(?:(?:" + "|".join(_OWNED_BY_SYSTEMS) + r")\b)")


_POSSESSIVE = re.compile(r"['’]s?\s")


def possessive(text: str, b: int) -> bool:
    """A possessive right after text[:b]: `Madrid's heat`."""
    return _POSSESSIVE.match(text, b) is not None


def owned_by_system(text: str, b: int) -> bool:
    """A possessive after text[:b] before what a system has: `Quickwit's tokenizer`, `Ruby's GC`."""
    return _OWNED.match(text, b) is not None


_AFTER_SOCIAL = re.compile(
    r"['’]s?\s+(?!\w+\s+(?:cluster|node|broker|server|instance|api|sdk|plugin|chart|release|version|job|build|"
    r"pipeline|config|dashboard|repo|image|container|pod|service|worker|queue|index|metric|alert)s?\b)"
    r"(?!(?:" + "|".join(_OWNED_BY_SYSTEMS) + r")\b)"
    r"(?-i:(?=[a-z]|(?:PR|MR|CL)\b))"
    r"|\s+(?:just\s+|also\s+|already\s+|still\s+)?(?:agreed|promised|approved|took|moved|spent|cycled|drove|"
    r"turned|lives|lived|left|joined|called|texted|emailed|messaged|grew|presented|will\s+(?:chair|join|cover)|"
    r"is\s+(?:on\s+(?:leave|call|holiday|vacation|pto)|out|off|away|back|moving|applying|presenting|joining|"
    r"walking|sick|travell?ing|flying)|from\s+(?:the\s+\w+\s+(?:team|office)|accounts|legal|support|finance|sales|"
    r"marketing|hr|it|ops|security|billing|facilities|payroll|procurement|reception|dispatch)|"
    r"and\s+(?:her|his|their|I)\s)\b",
    re.IGNORECASE,
)
_AFTER_SHARED = re.compile(
    r"\s*<[\w.+\-]+@|\s+here[,.!:;]|\s+(?:just\s+|also\s+|already\s+|still\s+)?(?:said|says|asked|asks|wrote|writes|thinks|thought|suggested|"
    r"suggests|mentioned|replied|confirmed|pinged|sent|works|worked|reviewed|rotated|reported|noticed|wants|needs|"
    r"runs|can't|cannot|won't|will\s+(?:pick|be|take|run|demo|send|review)|takes|is\s+(?:working|migrating|"
    r"rewriting|pairing|stuck))\b",
    re.IGNORECASE,
)
_VOCATIVE = re.compile(r",\s*(?:can|could|would|will|please|the|thanks|are|do|did|is)\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:he|she|him|her|his|hers|himself|herself)\b", re.IGNORECASE)
PRONOUN_REACH = 300  # characters after a name in which its sentence's pronoun is looked for


# capitalised at a sentence's start, never a name's first word: `The Marseille PoP`, `If Priya`
LEADING = _words(
    "the a an this that these those our my your his her their its some any every each all no both another if "
    "when while after before since as at by for from in into of on to with and but or so then also not please"
)
PRONOUNS = _words("i he she it we they you me him us them")  # never a name, capitalised or not
# never a name either, alone: question words, and greetings in other languages (`Olá, I changed my number`)
NO_ONE = _words("unassigned nobody tbd tba vacant")  # what a field with no one in it says: `Assignee: Unassigned`
NEVER_ALONE = (
    _words(
        "how what why where when which whom whose hola olá bonjour bonsoir salut hallo moin servus hej hei moi "
        "ciao buongiorno merhaba sawubona jambo habari namaste konnichiwa annyeong ahoj cześć "
        "czesc szia xin chào obrigado obrigada gracias merci danke grazie tack takk kiitos dziękuję bienvenue "
        "bienvenido bienvenida benvenuto benvenuta willkommen welkom välkommen velkommen bon bonne iban bic swift lön "
        "guten dzień dzien buenos buenas goedemorgen goedemiddag "  # a transcript's `Kunde: Guten Tag`
        "asante karibu sawa bitte tēnā tena kia "  # Swahili `thanks`, `welcome`, `ok`; `please`; Māori `Tēnā koa`
        "mbak iya oke "  # Indonesian's `miss`, said to someone, `yes`, `ok`: `Terima kasih Mbak`, `Iya Mbak`
        "kérem prosím prosim proszę prosze lūdzu ludzu prašau prasau palun "  # other languages' `please`
        "tienda negozio loja sklep "  # a shop: `# Tienda de novias - configuración del TPV`
        "тема "  # `Тема:`, a mail's subject
        "dobrý dobry daemon "  # Slovak and Czech `good` (`Dobrý deň`), `Cron Daemon <root@...>`
        "sender recipient receiver addressee "  # `Returned to Sender`
        "boss "  # said to someone: `Boss, the removals are confirmed`
        "манай бид миний таны бидний энэ тэр "  # Mongolian's `our`, `we`, `my`, `your`, `this`, `that`
        "후에 "  # Korean's `after`, a city's name in GeoNames too
        "možeš možete můžeš můžete "  # Croatian's, Serbian's and Czech's `can you` opening a request (`Možeš li`)
        "bygget "  # Swedish's `the build`
        "poți puteți puteti "  # Romanian's `can you` opening a request (`Poți să-mi scrii`; not `Poti`, a port)
    )
    | NO_ONE
)
# other languages' days (the lexicons hold `Jumat`, `Jeudi`, `Mañana` as given names; not `Domingo`, `Domenica`):
# no one alone, but surnames after a title (`Herr Montag`, `Mr. Freitag`)
DAYS_ELSEWHERE = _words(
    "lundi mardi mercredi jeudi vendredi samedi dimanche montag dienstag mittwoch donnerstag freitag samstag "
    "sonntag lunes martes miércoles jueves viernes sábado lunedì martedì mercoledì giovedì venerdì sabato "
    "maandag dinsdag woensdag donderdag vrijdag zaterdag zondag segunda-feira terça-feira quarta-feira "
    "quinta-feira sexta-feira poniedziałek wtorek środa czwartek piątek sobota niedziela senin selasa rabu kamis "
    "jumat jumaat sabtu minggu jumamosi jumapili jumatatu jumanne jumatano alhamisi ijumaa "
    "δευτέρα τρίτη τετάρτη πέμπτη παρασκευή σάββατο mañana ayer heute gestern demain domani oggi ieri amanhã hoje "
    "ontem"
)


@dataclass(frozen=True, slots=True)
class Token:
    start: int
    end: int
    key: str  # folded
    initial: bool  # the first word of its sentence


def runs(text: str) -> list[list[Token]]:
    """Runs of capitalised words joined by one space (or a name particle), outside code and identifiers."""
    code = code_spans(text)
    out: list[list[Token]] = []
    last_end = -1
    for m in _TOKEN.finditer(text):
        a, b = m.span()
        word = m.group()
        if word[-2:] in ("'s", "’s"):  # a possessive is not part of the name
            word, b = word[:-2], b - 2
        if (elided := _ELIDED.match(word)) is not None:  # `le compte d'Inès`
            word, a = word[elided.end() :], a + elided.end()
        leading = word.lower() in LEADING and bool(_SENTENCE_START.search(text, max(0, a - 64), a))
        if not word or leading or not capitalised(word) or glued(text, a, b) or within(code, a):
            if not (word.lower() in PARTICLES and out and last_end == a - 1):
                last_end = -1
            continue
        token = Token(a, b, fold(word), bool(_SENTENCE_START.search(text, max(0, a - 64), a)))
        if out and last_end >= 0 and _joins(text[last_end:a]):
            out[-1].append(token)
        else:
            out.append([token])
        last_end = b
    return out


def code_spans(text: str) -> list[tuple[int, int]]:
    """The spans of code in `text`, in order: inline code, and fenced blocks but those of data (_DATA_FENCE)."""
    if "`" not in text:
        return []
    out = []
    for m in CODE_SPANS.finditer(text):
        block = m.group()
        if block.startswith("```") and _DATA_FENCE.match(block) and not _CODE_LINE.search(block, 3):
            continue
        out.append(m.span())
    return out


def within(spans: list[tuple[int, int]], a: int) -> bool:
    """Whether `a` is inside one of `spans` (sorted, apart): a word in code, in one bisection."""
    i = bisect.bisect_right(spans, (a, sys.maxsize)) - 1  # the last span starting at or before `a`
    return i >= 0 and a < spans[i][1]


def _joins(gap: str) -> bool:
    """One space, or a name's particles between single spaces: not a column's gap (`Dorota Maj   Assignee`)."""
    return gap.startswith(" ") and gap.endswith(" ") and "  " not in gap and all(w in PARTICLES for w in gap.split())


# written onto a name: `DeLand`, `LaSalle`, `LeBlanc` (not `Du`, `Di`, `Da`: `DuPont`, `DaVinci`, companies')
_JOINED_PARTICLES = ("Mc", "De", "La", "Le")


def capitalised(word: str) -> bool:
    """`Priya`, `O'Brien`, `McAllister`, `Jean-Baptiste`, `Seo-yeon`; not `JSON`, `iPhone`, `GitHub`, `eu`."""
    if len(word) < 2 or not word[0].isupper():
        return False
    for i, part in enumerate(re.split(r"['’\-]", word)):
        if not part or (i == 0 and not part[0].isupper()):
            return False
        if i == 0 and len(part) == 1 and word[1] in "'’" and word[2:3].isupper():
            continue  # `O'Brien`, `D'Angelo`: a capital and an apostrophe before the name's own capital
        skip = 3 if part.startswith("Mac") else 2 if part.startswith(_JOINED_PARTICLES) else 1
        # `McAllister`, `MacArthur`, `DeLand`, `LaSalle`
        skip += 1 if skip > 1 and part[skip : skip + 1].isupper() else 0
        if any(c.isupper() for c in part[skip:]) or not any(c.islower() for c in part):
            return False
    return True


def glued(text: str, a: int, b: int) -> bool:
    """Part of an identifier, path, handle or call: `query_db`, `kafka.Message`, `@mwebb`, `PathPrefix(`."""
    before = text[a - 1] if a > 0 else " "
    after = text[b] if b < len(text) else " "
    following = text[b + 1] if b + 1 < len(text) else " "
    # `[` before a word that a space or a comma follows opens a list (`[Olamide Fashola, ...]`), not an index
    opens_list = before == "[" and after in " ,"
    if "|" in (before, after) and _row_of_pipes(text, a, b):
        before, after = (" " if c == "|" else c for c in (before, after))  # a cell: `E-0610|Brandon Kowalski|...`
    if before == ">" and _TEXT_TAG_BEFORE.search(text, max(0, a - 80), a):
        before = " "  # an element's text: `<td>Ahmed Al-Farsi</td>`, `<strong>Juan Pablo Restrepo</strong>`
    if after == "<" and text.startswith("</", b) and _TEXT_TAG_AFTER.match(text, b):
        after = " "
    if before == "*" and _EMPHASIS_OPENS.search(text, max(0, a - 3), a) and _EMPHASIS_CLOSES.match(text, b):
        before = " "  # Markdown's emphasis: `**Harriet Lowe**`, `*Ingrid*` (not a pointer's `*Name`)
    if after == "*" and _EMPHASIS_CLOSED.match(text, b) and _EMPHASIS_OPENED.search(text, max(0, a - 80), a):
        after = " "
    if (before in _GLUE_BEFORE and not opens_list) or before.isdigit() or after in _GLUE_AFTER or after.isdigit():
        return True
    # (a sentence's end before a closing quote of any language: `Split.“`, `Bitonto.»`)
    return after in ".:" and not (following.isspace() or following in "\"')]},;.»“”’" or text.startswith("..", b))


# Markdown's emphasis around a word or a run of them, on one line: opened after a space, a line's start or a bracket,
# closed before a space, a line's end or a sentence's mark
_EMPHASIS_OPENS = re.compile(r"(?:^|(?<=[\s(\[]))\*{1,2}\Z")
_EMPHASIS_CLOSES = re.compile(r"[^\n*]{0,80}?[^\s*]\*{1,2}(?=[\s.,;:!?)\]]|\Z)")
_EMPHASIS_CLOSED = re.compile(r"\*{1,2}(?=[\s.,;:!?)\]]|\Z)")
_EMPHASIS_OPENED = re.compile(r"(?:^|(?<=[\s(\[]))\*{1,2}[^\s*][^\n*]*\Z")
# HTML's elements of text, opened right before a word or closed right after it (not `List<Order>`, `a->b`)
_TEXT_TAGS = r"(?:td|th|li|p|b|i|u|em|strong|span|div|h[1-6]|a|label|dt|dd|caption|title|option|button|small|cite)"
_TEXT_TAG_BEFORE = re.compile(rf"<{_TEXT_TAGS}(?:\s[^<>]*)?>\Z", re.IGNORECASE)
_TEXT_TAG_AFTER = re.compile(rf"</{_TEXT_TAGS}>", re.IGNORECASE)


def _row_of_pipes(text: str, a: int, b: int) -> bool:
    """A line of cells between `|`, three at least: a table's row, not a shell's pipe or a bitwise or."""
    start = text.rfind("\n", max(0, a - 200), a) + 1 or max(0, a - 200)
    end = text.find("\n", b, b + 200)
    return text.count("|", start, end if end >= 0 else b + 200) >= 2


def greeting(key: str) -> bool:
    """`hi`, `hey`, `thanks`, `dear`, `tell`, `ask`: said before a name, never part of it."""
    return (key in _GREETING and key not in _FIELDS) or key in _IMPERATIVE or key in SOFT_TITLES or key in CLOSINGS


def word_before(text: str, a: int) -> str:
    """The word before text[a:], across punctuation and a flag's dashes (`--author="`, `Assignee: `)."""
    match = _WORD_BEFORE.search(text, max(0, a - 40), a)
    return match.group(1).lower().lstrip("-") if match else ""


_INITIAL_BEFORE = re.compile(r"\b[A-Z]\.\s*\Z")


def field_before(text: str, a: int) -> bool:
    """A record's field for a person's name right before text[a:]: `name: "`, `last_name="`, `--author="`, and
    before an initial (`"holder":"K. Rostami"`)."""
    initial = _INITIAL_BEFORE.search(text, max(0, a - 4), a)
    at = initial.start() if initial else a
    match = _WORD_BEFORE.search(text, max(0, at - 40), at)
    if match is None or match.group(1).lower().lstrip("-") not in _FIELDS:
        return False
    gap = text[match.end(1) : at]
    return not (("," in gap or "." in gap) and not any(c in gap for c in ":=\"'>"))  # not `first, Lagos`


_OFFICER_BEFORE = re.compile(r"(?<![\w/])(?i:[fs]/o)[ \t]+\Z")  # a first or second officer: `F/O lindqvist`


def officer_before(text: str, a: int) -> bool:
    return _OFFICER_BEFORE.search(text, max(0, a - 6), a) is not None


def title_before(text: str, a: int) -> bool:
    word = word_before(text, a)
    return word in TITLES or officer_before(text, a) or language_title(text, a, word)


# `Mr` in some languages only: `pan` on a Polish, Czech or Slovak line (`Pan Wiśniewski`, `pan Dvořák`), not
# `Pan Tilt Zoom` nor `Mr Pan`
_LANGUAGE_TITLES = {"pan": frozenset({"pl", "cs", "sk"})}
# titles as they are written only: `fru` (Mrs) in the Nordic languages, not in capitals (`Kære fru Lehmann`; not
# `FRU Inventory`, a field-replaceable unit); Swahili's `Bi.` and `Bw.` with their dots (`Mpendwa Bi. Zawadi`;
# not `BI tools`)
_CASED_TITLES = {
    "fru": (re.compile(r"(?:fru|Fru)[\s.,:]*\Z"), re.compile(r"(?:fru|Fru)\b")),
    "bi": (re.compile(r"Bi\.[ \t]*\Z"), re.compile(r"Bi\.")),
    "bw": (re.compile(r"Bw\.[ \t]*\Z"), re.compile(r"Bw\.")),
    # German's `Hr.` with its dot (not `HR`), Greek's `κ.` and `κα` (`Ο κ. Παπαδόπουλος`)
    "hr": (re.compile(r"Hr\.[ \t]*\Z"), re.compile(r"Hr\.")),
    "κ": (re.compile(r"(?<![\w.])κ\.[ \t]*\Z"), re.compile(r"κ\.")),
    "κα": (re.compile(r"(?<![\w.])κα\.?[ \t]*\Z"), re.compile(r"κα\b")),
}


def language_title(text: str, at: int, word: str) -> bool:
    """`word` is a title in the language of the line at text[at], or as it is written there."""
    word = word.lstrip("'’")  # `'Hr. Schäfer, ...'`: a string's quote is no part of the title
    if word in _CASED_TITLES:
        before, written = _CASED_TITLES[word]  # before text[at], or the word at it
        return before.search(text, max(0, at - 8), at) is not None or written.match(text, at) is not None
    return word in _LANGUAGE_TITLES and languages.language_at(text, at) in _LANGUAGE_TITLES[word]


def social_before(text: str, a: int) -> bool:
    """Said only to or of a person right before text[a:]: `her brother`, `Dear`, `a man called`, `TÍA Rosa`; not
    an acronym that ends its sentence or its line (`OOM. Flower shows`, `Incident: OOM` then `Grace period`: no
    Dutch uncle)."""
    before = word_before(text, a)
    if before in _SOCIAL or before in KIN:
        raw = _RAW_WORD_BEFORE.search(text, max(0, a - 40), a)
        acronym = raw is not None and raw.group(1).isupper() and len(raw.group(1)) > 1
        if raw is None or not acronym or _SENTENCE_ENDS.search(raw.group(2)) is None:
            return True
    return _NAMED_BEFORE.search(text, max(0, a - 40), a) is not None


_RAW_WORD_BEFORE = re.compile(r"(\w+)(\W*)\Z")  # the word before as written, and what comes between
_SENTENCE_ENDS = re.compile(r"[.!?\n]")
_INSIDE = _words("in near inside outside around across throughout")


def inside(text: str, a: int) -> bool:
    """A word where a person is not but a place is: `in`, `near`, `across` right before text[a:]."""
    return word_before(text, a) in _INSIDE and not re.match(r"[\w\-]*['’]s\b", text[a : a + 40])


def place_before(text: str, a: int) -> bool:
    before = word_before(text, a)
    if before in ("the", "our", "their", "her", "his", "my"):  # "in the Kraków office"
        before = word_before(text, text.rfind(before, max(0, a - 40), a))
    return before in _PLACE_BEFORE


def person(
    text: str, a: int, b: int, strict: bool = False, imperative: bool = True, pronoun: bool = False,
    social: bool = False,
) -> bool:  # fmt: skip
    """A cue for a person around text[a:b]. `strict`: not the words as often before a system (`from`, `with`);
    `imperative`: verbs said to assistants as often as to people (`ask`, `tell`) count; `pronoun`: so does a
    `he` or `her` later in the sentence; `social`: only what is said of people alone (for a product's name:
    `Thanks Claude`, `Claude wrote` are said of the model)."""
    before = word_before(text, a)
    if before in (_SOCIAL if social else _GREETING) or _NAMED_BEFORE.search(text, max(0, a - 40), a):
        return True
    if (imperative and before in _IMPERATIVE) or (not strict and before in _WEAK):
        return True
    if _AFTER_SOCIAL.match(text, b) or (not social and _AFTER_SHARED.match(text, b)) or described_as_person(text, b):
        return True
    if imperative and _VOCATIVE.match(text, b):
        return True
    if not (pronoun or not strict):
        return False
    reach = min(len(text), b + PRONOUN_REACH)  # a sentence with no end (a log line, minified JSON) is read this far
    end = _SENTENCE_END.search(text, b, reach)
    return bool(_PRONOUN.search(text, b, end.start() if end else reach))


def pair(text: str, a: int, b: int, lower: bool = False) -> str | None:
    """The other name in `X and Y` around text[a:b], folded, if it is capitalised (`lower`: in lower case)."""
    before = _PAIR_BEFORE.search(text, max(0, a - 40), a)
    after = _PAIR_AFTER.match(text, b)
    for match in (before, after):
        if match is not None and (match.group(1).islower() if lower else capitalised(match.group(1))):
            return fold(match.group(1))
    return None


ASIDE = re.compile(r"\s*\(([^()\n]{1,80})\)")
HUMAN = _words(
    "person human colleague coworker engineer teammate intern contractor manager he she her him his developer lead "
    "designer owner founder analyst admin maintainer driver courier nurse technician volunteer"
)


_NOT_HUMAN = re.compile(r"(?i)\bnot\s+(?:a\s+|the\s+)?(?:person|human|people|someone)\b")


def described_as_person(text: str, b: int) -> bool:
    """An aside right after text[:b] that says it is a person: `Jenkins (the person, not the CI)`."""
    match = ASIDE.match(text, b)
    if match is None or _NOT_HUMAN.search(match.group(1)):
        return False  # `(our tea, not a person)`
    return bool(set(re.findall(r"[a-z]+", match.group(1).lower())) & HUMAN)


_TZ_AREAS = _words("africa america antarctica arctic asia atlantic australia europe indian pacific")


def time_zone_area(text: str, a: int, b: int) -> bool:
    """text[a:b] is a time zone's area, its city after a slash: `Europe/Paris`, `America/Mexico_City`."""
    return text[b : b + 1] == "/" and text[b + 1 : b + 2].isupper() and text[a:b].lower() in _TZ_AREAS
