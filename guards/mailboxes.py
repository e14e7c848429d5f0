"""Addresses that are not a person's: role and service mailboxes, and the user part of a URL or a git remote.

An email address found in technical text is often a system's: `noreply@` in a
mailer's log, `alerts@` in a config, `git@github.com:org/repo.git` in a remote,
the key in `https://abc123@o4504.ingest.sentry.io/4505`. The labelled sets
(bench/pii_labelled) count none of these as personal data, and redacting them
changes what an agent does with a log or a config. A person's work address
(`jane.doe@company.com`) is still personal.

- `trim` and `in_url` fix what the email recognizer's pattern takes too much
  of: its local part admits `=`, `/` and `:` (`ALERT_EMAIL=alerts@...`), and an
  address right after `scheme://` is a URL's user part, not an address.
- `is_role` is applied by the step's precision filter (pii_params.Precision)
  while `role_addresses` is on: the local part, cut at `.`, `-`, `_` and `+`,
  is role words (ROLES, at least one: a function, a group, a service account
  or a program, `svc-importer@`; or a bot's name, `dependabot@`) and
  qualifiers (QUALIFIERS, digits: an environment, a region a rota covers,
  `latam-oncall@`) only; and any address at a host that takes no mail
  (`@users.noreply.github.com`).
- a service identity is no one's mailbox: an address at a cloud's service
  account host (`deployer@prod-infra-3321.iam.gserviceaccount.com`, a host
  with an `iam` label, `*.svc`, `*.svc.cluster.local`) names a workload's
  credentials, whatever its local part; and with the name lexicons at hand,
  a local part made of role words, the names of products that are no
  one's given name or surname (`alertmanager@`, `grafana-alerts@`,
  `renovate-bot@`) and ordinary words far more often than a name
  (`elections@`, `fleet-platform@`) is a program's or an office's mailbox,
  except at a host of personal mailboxes (`lucky.star@gmail.com`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from .findings import Finding
from .lexicons import fold
from .lexicons import words as _words

# a mailbox that names a function, not a person
ROLES = _words(
    "noreply no-reply donotreply do-not-reply reply replies bounce bounces bouncer postmaster hostmaster webmaster "
    "mailer mailer-daemon daemon mailerdaemon abuse spam admin admins administrator root sysadmin alerts alert "
    "alerting alarms notifications notification notify notifier support helpdesk help servicedesk desk service "
    "services info contact hello sales billing invoices invoice payments payment accounts accounting finance "
    "orders receipts security secops devops ops noc sre oncall on-call pager pagerduty incidents incident "
    "monitoring status updates news newsletter marketing press media legal privacy compliance careers jobs "
    "recruiting hr feedback team staff office reports report git ci cd build builds builder deploy deploys "
    "release releases bot bots robot automation cron scheduler system systems backup backups mail email inbox "
    "queue handler dev devs engineering eng it platform infra infrastructure data analytics"
    # a group of people, not one: `sre-leads@`, `release-managers@`, `maintainers@`
    " lead leads leadership managers owners maintainers reviewers approvers committers members everyone announce "
    "announcements discuss users triage escalation escalations"
    # a service account, a program's own mailbox: `svc-importer@`, `etl-loader@`, `sa-terraform@`
    " svc srv sa serviceaccount service-account importer importers exporter exporters sync syncer ingest ingestor "
    "ingestion etl loader uploader worker workers runner runners agent agents crawler scraper indexer webhook "
    "webhooks integration integrations api automations pipeline pipelines jobs batch"
    # a desk or an office that answers for an organisation: `bookings@`, `registrar@`, `dispatch@`
    " booking bookings reservations registrar admissions enrolment enrollment dispatch frontdesk "
    "reception "
    "concierge returns refunds claims permits licensing procurement purchasing treasury tax audit payroll "
    "helpline hotline enquiries inquiries board digest advisory committee council user member checkout complaints"
    # the same desks in other languages: `reklamacje@`, `reclamaciones@`, `kundenservice@`, `commandes@`
    " reklamacje reklamacja zamowienia faktury biuro kontakt obsluga reclamaciones reclamacion pedidos facturas "
    "facturacion atencion contacto reservas reclamacoes encomendas faturas atendimento reclami ordini fatture "
    "assistenza prenotazioni reclamations commandes factures facturation accueil kundenservice bestellungen "
    "rechnungen buchhaltung zentrale klachten bestellingen facturen boekhouding klantenservice "
    # Catalan's orders, shop, bookings and invoices: `comandes@`, `botiga@`
    "comandes botiga reserves factures "
    # appointments, bookings, courses and finance: `termine@`, `buchungen@`, `kurse@`, `financeiro@`
    "termine termin buchungen buchung kurse anmeldung financeiro financiero finanzas finanzen finanza "
    "bokning bokningar booking afspraken afspraak rezerwacje rezerwacja prenotazione reservierung reservierungen "
    # bookings in Spanish, Turkish, Lithuanian, Czech, Croatian and Romanian: `reservaciones@`, `rezervasyon@`
    "reservaciones reservacion rezervasyon rezervacijos rezervace rezervacije rezervari"
    # Japanese's bookings, enquiries and reception in Latin letters: `yoyaku@`, `otoiawase@`, `uketsuke@`
    " yoyaku otoiawase toiawase uketsuke"
    # the Nordic languages' invoices and orders: `faktura@`, `bestilling@`, `order@`
    " faktura fakturor fakturering bestilling bestillinger"
    # the Nordic languages' and Finnish's customer service: `kundtjanst@`, `kundeservice@`, `asiakaspalvelu@`
    " kundtjanst kundtjänst kundtjaenst kundtjenst kundservice kundeservice kundesenter kundecenter kundesupport"
    " asiakaspalvelu asiakaspalvelut asiakastuki"
    # support and the office in other languages: `soporte@`, `hilfe@`, `sekretariat@`
    " soporte suporte supporto assistance ayuda ajuda aiuto hilfe pomoc podpora tuki stod hjelp hjaelp "
    "ondersteuning wsparcie destek secretaria sekretariat sekretariaat segreteria secretariat secretariado "
    "kancelaria verwaltung administracion administracao amministrazione contato lettings vendas ventas ventes "
    "verkauf vendite werkstatt"
    # accounting in other languages: `raamatupidamine@`, `buh@` (бухгалтерия), `kirjanpito@`, `muhasebe@`
    " raamatupidamine buh buhgalteria buhgalterija buhalterija kirjanpito bokforing bokføring regnskab regnskap "
    "ekonomi contabilidad contabilidade contabilita contabilitate comptabilite compta ksiegowosc ucetni "
    "uctarna konyveles konyvelo muhasebe racunovodstvo gramatvediba"
    # a travel desk: `viajes@`, `reisen@`, `voyages@`, `tours@`
    " travel viajes reisen voyages viagens viaggi reizen resor tours"
    # an office, orders in German written without umlauts, a tracker's notifications: `kontor@`, `auftraege@`,
    # `jira@` (a given name and a surname too, so no program by the lexicons)
    " kontor kontoret auftraege auftrag anfragen jira confluence"
    # a practice's reception and billing, a secretary, appraisals, translations: `rezeption@`, `abrechnung@`,
    # `praxis@`, `tajnik@`, `tasaciones@`, `i18n@`
    " rezeption empfang abrechnung praxis tajnik tajnistvo tajnica tasaciones tasacion i18n l10n translations"
    " logistirio logistiki secretariaat"  # Greek's accounting in Latin letters, Dutch's secretariat
    # orders, parts, a board, a list's unsubscribe address: `zakaz@` (заказ), `hallitus@`, `styrelsen@`
    " zakaz zakazy parts spares unsubscribe subscribe hallitus styrelse styrelsen bestyrelse styret vorstand bestuur "
    "zarzad"
    # bookings and the shop in other languages: `rezervari@`, `kratiseis@` (κρατήσεις), `veikals@`, `bestellung@`
    " rezervari rezervare rezervacije rezervace rezervacie rezerwacje rezerwacja kratiseis foglalas varaukset "
    "bokning bokninger booking-desk veikals kauppa butik butikk shop store tienda negozio loja sklep obchod "
    "bestellung bestilling bestallning tilaus tilaukset siparis pedido ordine commande objednavky narudzbe"
    # the till, the treasurer, an editorial desk, notifications in other languages: `kasse@`, `kasserer@`,
    # `redazione@`, `powiadomienia@`
    " kasse kassa kasa kassierer kasserer kassoer kassor tesoreria tesorero tesouraria tresorerie skarbnik "
    "kassenwart schatzmeister penningmeester compras gardeners rpmbuild "
    "pokladna penztar treasurer redazione redaktion redakcja redaccion redaction redactie redakce toimitus "
    "powiadomienia powiadomienie benachrichtigung benachrichtigungen avisos avvisi notificaciones notificacoes "
    "notifiche meldingen varsler ilmoitukset"
    # a website's team, a no-reply in other languages, a data-protection officer: `webteam@`, `naoresponda@`,
    # `datenschutz@`
    " webteam naoresponda naoresponder nao-responda noresponder no-responder nepasrepondre ne-pas-repondre "
    "nichtantworten keine-antwort datenschutz privacidad privacidade riservatezza"
    # a federation, the customers' desk, quotes, students, Japan's general affairs, HR and accounts, payroll:
    # `federacion@`, `clientes@`, `preventivi@`, `alumnos@`, `soumu@`, `nomina@`
    " federacion federacao federazione federation verband clientes clients clienti kunden klanten faturacao "
    "faturamento preventivi presupuestos orcamentos angebote offerte offertes alumnos alunos studenti "
    "etudiants soumu jinji nomina nominas"
    # sign-ups and members in other languages: `zapisy@`, `anmalan@` (anmälan), `leden@`, `iscrizioni@`
    " zapisy zgloszenia anmalan anmalningar leden inschrijvingen inschrijving iscrizioni inscripciones inscricoes "
    "inscriptions registrations signup ilmoittautumiset tilmelding"
)
# short words that are an office's mailbox only as the whole local part, away from the hosts of personal mailboxes
# (`dpo@acme.se`, `atelier@vitrail.fr`; not `a.dpo@corp.com`, `j.taller@corp.com`, `taller@gmail.com`)
WHOLE_ROLES = _words(
    "web dpo gdpr rodo taller oficina atelier laboratorio enrol enroll comptable "
    # a club's members, a rescue's or a dispatch's control room: `socios@`, `mitglieder@`, `einsatzleitung@` (not
    # `m.einsatz@`, `dispo@web.de`: a surname's, a nickname's)
    "socios mitglieder membres einsatz einsatzleitung leitstelle dispo disposition"
)
# hosts of personal mailboxes: there, a local part of ordinary words is still someone's (`lucky.star@gmail.com`)
_PERSONAL_HOSTS = _words(
    "gmail googlemail yahoo ymail hotmail outlook live msn icloud me mac aol proton protonmail pm gmx web "
    "t-online freenet mail yandex qq 163 126 naver daum hanmail wp o2 interia onet seznam centrum orange free "
    "laposte sfr wanadoo libero virgilio tiscali alice uol bol terra ig telenet skynet ziggo kpnmail online "
    "bigpond optusnet btinternet sky virginmedia rediffmail comcast verizon att sbcglobal cox shaw rogers fastmail "
    "zoho tutanota tuta hey bluewin sapo rambler posteo mailbox inbox seznam abv mail2world yahoo.co hushmail"
)
# words that qualify a role: where, which environment, which team
QUALIFIERS = _words(
    "prod production staging stage test qa dev eu us uk apac emea internal external global the team group all "
    "no do not on call"
    # regions a team or a rota covers: `latam-oncall@`, `anz-support@`, `dach-sales@`
    " latam amer americas na emea mena anz dach nordics benelux asia europe africa apj uat preprod sandbox"
)
_PARTS = re.compile(r"[.\-_+]+")
_URL_BEFORE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s/@]*\Z")
_LOCAL_CUT = "=/:'\"`"


# hosts that hold service identities, not mailboxes: `...@proj.iam.gserviceaccount.com`, `*.svc`, `*.svc.cluster.local`
_SERVICE_SUFFIXES = (".gserviceaccount.com", ".svc", ".svc.cluster.local")


# a build or a server machine's name with its number (`build01`, `runner-3`, `srv2`): not a city's `ci.` nor a
# university's `host.`, whose people write from them (`jane.doe@ci.stpaul.mn.us`)
_CI_TOOLS = frozenset(["jenkins", "gitlab", "github", "buildkite", "drone", "teamcity", "bamboo", "circleci", "travis"])
_SECOND_LEVEL = frozenset(["co", "com", "org", "net", "ac", "gov", "edu", "ne", "or", "go"])  # `node.co.uk`
_LIST_HOST = re.compile(r"(?:lists|list|listserv)\.[a-z0-9\-]+(?:\.[a-z0-9\-]+)+")
_LIST_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # a list's name: one word or hyphenated, no person's `first.last`
_MACHINE = re.compile(r"(?:build|builder|ci|runner|srv|server|host|node|worker|vm|box)[\-_]?\d*")


_ADDRESS = re.compile(r"[\w.+\-]+@([\w\-]+)\.[\w.\-]+")


def personal_address(text: str) -> bool:
    """An address at a host of personal mailboxes in `text` (`ngozi.okafor@yahoo.com`), no role's: someone is
    there."""
    return "@" in text and any(
        m.group(1).lower() in _PERSONAL_HOSTS and not is_role(m.group()) for m in _ADDRESS.finditer(text)
    )


def is_role(address: str, program: Callable[[str], bool | None] | None = None) -> bool:
    """`noreply@acme.io`, `bounce-handler@`, `platform-alerts+prod@`, `git@github.com`, `svc-importer@`,
    `dependabot@`, anything `@users.noreply.github.com` or `@...iam.gserviceaccount.com`; with `program` (a
    product's name that is no one's), `grafana-alerts@` and `alertmanager@` too; not `jane.doe@`."""
    local, _, domain = address.lower().rpartition("@")
    labels = domain.split(".")
    if any(label in ("noreply", "no-reply") for label in labels):
        return True  # a host that takes no mail: `12345+octocat@users.noreply.github.com`
    if _LIST_HOST.fullmatch(domain) and labels[1] not in _SECOND_LEVEL and _LIST_NAME.fullmatch(local):
        return True  # a mailing list's host and name: `debian-kernel@lists.debian.org` (not `ana.ruiz@list.co.uk`)
    machine = len(labels) >= 3 and _MACHINE.fullmatch(labels[0]) and labels[1] not in _SECOND_LEVEL
    if machine and "." not in local and (any(c.isdigit() for c in labels[0]) or local in _CI_TOOLS):
        return True  # a machine's own mail: `jenkins@build01.example.ie`, `root@runner-3.ci.example.org`
    if ("." + domain).endswith(_SERVICE_SUFFIXES):
        return True  # a service identity: `deployer@proj-3321.iam.gserviceaccount.com`; not `jane@iam.example.org`
    parts = [p for p in _PARTS.split(local) if p and not p.isdigit()]
    if not parts:
        return False
    # at a host of personal mailboxes, a local part of ordinary words is someone's all the same
    personal = labels[0] in _PERSONAL_HOSTS
    if local in WHOLE_ROLES:
        return not personal
    if local in ROLES and not personal:
        return True  # a role's whole word with its dash, read apart below as ordinary words: `no-responder@`
    named = [p in ROLES or _bot(p) for p in parts]  # what the role words name
    said = [False if program is None or personal else program(p) for p in parts]
    roles = [n or s is True for n, s in zip(named, said, strict=True)]
    # ordinary words alone make an office's mailbox in one part (`elections@`); in several, one must be a role's
    # word (`fleet-platform@`; not `park.young@`)
    if all(r or p in QUALIFIERS for r, p in zip(roles, parts, strict=True)) and (any(named) or len(parts) == 1):
        return any(roles)
    # a role word beside words no lexicon knows: `hse-incidents@`, `svc-cva-batch@`; not beside a name
    unknown = [s is None and len(p) > 1 for s, p in zip(said, parts, strict=True)]
    return any(named) and all(r or u or p in QUALIFIERS for r, u, p in zip(roles, unknown, parts, strict=True))


def name_words(name: str) -> list[str]:
    """A person's name as a mailbox would spell it: folded words (`Noémi Varga` -> `noemi`, `varga`)."""
    return [w for w in re.split(r"[\s,.'’\-]+", fold(name)) if w]


def local_parts(local: str) -> set[str]:
    """A mailbox's local part in its pieces: `camille.martin` -> `camille`, `martin`."""
    return set(re.split(r"[._+\-]+", fold(local)))


def spells(words: list[str], parts: set[str]) -> bool:
    """Whether a local part's pieces spell the name's words: `camille.martin`, `camillemartin`, `cmartin`."""
    return set(words) <= parts or "".join(words) in parts or words[0][0] + words[-1] in parts


def _bot(part: str) -> bool:
    """A bot's name: `dependabot`, `renovatebot`, `actions[bot]`; not a surname (`talbot`, `abbot`, `cabot`)."""
    return part.endswith("[bot]") or (part.endswith("bot") and len(part) >= 7)


def trim(text: str, finding: Finding) -> Finding | None:
    """An email finding without what is not part of the address (`ALERT_EMAIL=`), or None for a URL's user, a
    fediverse handle (`@jkrueger@hachyderm.io`: an account on a server, written with its own `@`) or a mail's
    id (`message-id=<...>`)."""
    value = text[finding.start : finding.end]
    local = value.rpartition("@")[0]
    cut = max(local.rfind(c) for c in _LOCAL_CUT)
    start = finding.start + cut + 1
    if cut + 1 >= len(local) or in_url(text, start) or _HANDLE_BEFORE.search(text, max(0, start - 2), start):
        return None
    if _MESSAGE_ID_BEFORE.search(text, max(0, finding.start - 40), finding.start):
        return None  # `message-id=<CA+3x9Qe@mail.gmail.com>`: a message's id, written as an address
    key = _MESSAGE_ID_KEY.search(text, max(0, finding.start - 40), finding.start)
    if key is not None and (key.group().endswith("<") or any(c.isdigit() for c in local)):
        return None  # `"message-id":"20250314180001.1.ABCD@mg..."`, `messageId: "0100018f@email.amazonses.com"`
    if text[start - 3 : start] == "id=" and _exim_id(text, start, finding.end):
        return None
    if _TEAM_HEADER_BEFORE.search(text, max(0, start - 80), start) and _team_list(value):
        return None  # a translation's team list in a gettext file's header: `Language-Team: Spanish <es@li.org>`
    return finding if start == finding.start else dataclasses.replace(finding, start=start)


_HANDLE_BEFORE = re.compile(r"(?:^|[\s(\[\"'])@\Z")
# (not the translator's own: `Last-Translator: Ana Ruiz <ana.ruiz@...>` is someone's)
_TEAM_HEADER_BEFORE = re.compile(r"(?:^|\")Language-Team:[^<>\n]{0,60}<\Z", re.MULTILINE)
# a team's list, not one translator who is the team: a language's code (`es@li.org`, `pt_BR@`), a list's or a
# translation's word (`gnome-turk@`, `vertaling@`, `lokalisointi-lista@`), a list's host (`@lists.`, `@li.org`,
# `@googlegroups.com`)
_TEAM_LOCAL = re.compile(
    r"[a-z]{2,3}(?:[_\-][a-z]{2,4})?|.*(?:list|lista|team|l10n|i18n|translat|traduc|vertaling|lokali|übersetz|uebersetz).*"
)
_TEAM_HOST = re.compile(r"(?:lists?\.[\w.\-]+|li\.org|googlegroups\.com)")


def _team_list(address: str) -> bool:
    local, _, host = address.lower().rpartition("@")
    listed = _TEAM_LOCAL.fullmatch(local) is not None or _TEAM_HOST.fullmatch(host) is not None
    return listed and host.split(".")[0] not in _PERSONAL_HOSTS


# a mail's id and the ids it answers, in a header or a mailer's log: `Message-ID: <...>`, `message-id=<...>`,
# `In-Reply-To: <...>`, `References: <a@x> <...>` (bracketed: a CV's `References: ana@gmail.com` is people's)
_MESSAGE_ID_BEFORE = re.compile(
    r"(?i:\b(?:(?:message-?id|msg-?id)[ \t]*[=:][ \t]*<?|(?:in-reply-to|references)[ \t]*:[ \t]*(?:<[^<>\s]+>\s+)*<))\Z"
)
# and a JSON log's or a program's key for it, quoted or with an underscore (`"message-id":"`, `message_id = '`,
# `messageId: "`): an id there has a digit before its `@` (not `message_id = 'ana.lopes@gmail.com'  # bug`)
_MESSAGE_ID_KEY = re.compile(r"(?i:\b(?:message[-_]?id|msg[-_]?id)[\"']?[ \t]*[=:][ \t]*[\"']?<?)\Z")

# Exim's arrival line, up to its message's id after the protocol and the size: `<= ana@wp.pl H=... P=esmtpsa
# S=18244 id=` (not a user's `S=1 id=anna@...` elsewhere)
_EXIM_ID_BEFORE = re.compile(r"<=[ \t][^\n]*?[ \t]P=\S+[^\n]*?[ \t]S=\d+(?:[ \t]+[A-Za-z0-9]+=\S*)*?[ \t]+id=\Z")


def _exim_id(text: str, start: int, end: int) -> bool:
    """text[start:end] is the message's id on Exim's arrival line: an address with a digit in its local part
    (`CAF9x+e2@mail.gmail.com`, `6621a8f2@chmail.ir`) that the text writes nowhere else (a sender's address
    repeated as the id stays a person's)."""
    line = text.rfind("\n", 0, start) + 1
    if _EXIM_ID_BEFORE.search(text, line, start) is None:
        return False
    value = text[start:end]
    return any(c.isdigit() for c in value.partition("@")[0]) and text.count(value) == 1


def in_url(text: str, start: int) -> bool:
    """Whether text[start:] begins a URL's user part: `https://abc123@host/...`."""
    return _URL_BEFORE.search(text, max(0, start - 200), start) is not None
