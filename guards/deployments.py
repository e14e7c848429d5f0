"""Places named as where a system runs, not where a person is: `the Ohio ring`, `Thanos in Frankfurt`, `us-east-2
(Ohio)`, `fail over to Ohio`.

Used by guards/names.py: a place is a LOCATION when a person is in it, comes
from it or goes to it, or in prose; a region, datacenter or edge written as a
city or a state is a deployment target. What says so, on the place's own line:

- a cloud region's id beside it (`us-east-2 (Ohio)`, `sa-east-1  # São Paulo`,
  `Amsterdam (westeurope)`), unless a place's cue says a person is there (`the
  only one in São Paulo with access to the sa-east-1 bastion`);
- a region's word before it (`regions: Ohio`, `the Frankfurt region` is the
  system's noun after it, below);
- a deploy verb before it (`fail over to Ohio`, `replicate the bucket to São
  Paulo and Mumbai`, `move the cluster to Frankfurt`);
- an infrastructure noun within three words after it (`the Ohio ring`, `the
  Oregon account`, `the Istanbul edge PoP`, `the Montreal DR site`, `the
  Singapore replica set`);
- a system before `in`, `at` or `on` before it: a system's noun (`the canary
  namespace in Oregon`, `Nomad clients in Oregon`) or a product's name
  (`Thanos in Frankfurt`, `Postgres in Dublin`).

And in a text about systems that names no person (no name found, no `I`,
`my`, `she`, `his`), a place is a system's too: `shows no data for Sydney
since the Mimir upgrade`, `deployed to au-syd (Sydney)`; no one is there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from spacy.lang.en.stop_words import STOP_WORDS

from .cues import CALENDAR, place_before, word_before
from .lexicons import fold
from .lexicons import words as _words

REGION_ID = re.compile(
    r"\b(?:(?:us|eu|ap|sa|ca|me|af|il|mx|cn)(?:-gov)?-(?:east|west|north|south|central|northeast|northwest|"
    r"southeast|southwest)-\d|(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:east|west|"
    r"north|south|central|northeast|northwest|southeast|southwest)\d{1,2}|(?:east|west|north|south|central|"
    r"northcentral|southcentral|westcentral)(?:us|europe|asia)\d?)(?:-?[a-z])?\b",
    re.IGNORECASE,
)
_REGION_WORDS = _words("region regions zone zones az azs datacenter datacentre dc dcs pop pops aws_region location")
# what a system runs on or in, said after the place it is in: `the Ohio ring`, `the Madrid edge`
INFRA = _words(
    "ring rings account accounts edge edges pop pops runner runners vpc vpcs vnet vnets peering replica replicas "
    "shard shards tenant tenants subnet subnets bucket buckets bastion bastions rack racks fleet fleets cluster "
    "clusters node nodes region regions zone zones datacenter datacenters datacentre dc dcs az azs colo cell cells "
    "instance instances endpoint endpoints namespace namespaces environment environments env envs stack stacks "
    "workspace workspaces mirror mirrors cdn ingress egress gateway gateways proxy proxies lb lbs balancer "
    "balancers circuit circuits backbone pod pods primary secondary standby failover deployment deployments "
    "servers server hosts host vms vm db dbs database databases cache caches queue queues broker brokers site "
    "sites plan plans tier prod production staging canary topology bundle bundles link links uplink probes "
    "probe exit pool pools box boxes machine machines"
)
# a system's noun before `in`: `the canary namespace in Oregon`, `Nomad clients in Oregon`
_SYSTEM_BEFORE_IN = INFRA | _words(
    "clients client service services job jobs workers worker pipeline pipelines patch patches upgrade rollout "
    "migration outage incident backup backups snapshot snapshots index indexes storage disk disks "
    "volume volumes certificate certificates dns records record api apis app apps container containers image "
    "images registry registries"
)
# what a system is called before its name (`build agent Vienna`, `node pool Warsaw`, `release train Havana`,
# `use-context Sydney`) or after it (`the Dublin runbooks`)
NAMED_SYSTEMS = _SYSTEM_BEFORE_IN | _words(
    "agent agents pipeline release releases train trains context contexts runbook runbooks channel channels "
    "codename codenames branch branches project projects sprint milestone"
)
_DEPLOY_BEFORE = re.compile(
    r"\b(?:(?:deploy\w*|fail(?:ing|ed|s)?[\s\-]?over|replicat\w+|provision\w*|hosted|host|served|serve|launch\w*|"
    r"rolled\s+out|roll\s+out|promot\w+|pinned|pin|shard\w*|upgrad\w*)\b\s*|(?:move|moved|moving|migrat\w*)\s+(?:the|"
    r"our|a|an|this|that|all)\s+)(?:\S+\s+){0,3}?(?:to|in|into|from|out\s+of)\s+"
    r"(?:the\s+)?(?-i:[A-Z][^\s,]*(?:\s+[A-Z][^\s,]*)*(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+))*\Z",
    re.IGNORECASE,
)
# Azure's regions by their display names (`West Europe`, `France Central`), read in a text that names Azure: a
# cloud's region, no one and nowhere anyone is (not those that name a region people live in too: `Southeast Asia`,
# `Central India`)
AZURE_REGION = re.compile(
    r"\b(?:(?:East|West|Central|North Central|South Central|West Central) US(?: [23])?|Canada (?:Central|East)|"
    r"Brazil (?:South|Southeast)|(?:North|West) Europe|UK (?:South|West)|France (?:Central|South)|"
    r"Germany (?:West Central|North)|Norway (?:East|West)|Switzerland (?:North|West)|Sweden (?:Central|South)|"
    r"(?:Poland|Spain|Israel|Qatar|Mexico|Indonesia) Central|Italy North|UAE (?:North|Central)|"
    r"South Africa (?:North|West)|Australia (?:East|Southeast|Central)|Japan (?:East|West)|"
    r"Korea (?:Central|South)|New Zealand North|Malaysia West)\b"
)
AZURE = re.compile(r"(?i)\bazure\b")
_LINE = re.compile(r"[^\n]*")
LINE_REACH = 200  # characters either side of a place that count as its line
_COMMENT = re.compile(r"(?:^|\s)(?:#|//|--|;)\s")
_REGION_BESIDE = re.compile(r"\s*[(\[]\s*" + REGION_ID.pattern, re.IGNORECASE)
_WORDS_AFTER = re.compile(r"(?:[ \t]+[A-Za-z][\w\-]*){1,3}")
# words between a place and its infrastructure noun: `the Montreal DR site`, `the Helsinki staging endpoint`
_MODIFIERS = _words("dr staging prod production dev test qa canary edge replica primary secondary k8s kubernetes")
_ACRONYM = re.compile(r"[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*s?")
_SYSTEM_IN = re.compile(r"(?:(\w+)\s+)?([\w\-]+)\s+(?:in|at|on|inside)\s+(?:the\s+)?\Z", re.IGNORECASE)
# a street's or a square's last word, some products' names too (`Street`, `Square`): a place in a place
_STREET_WORDS = _words("street road avenue lane square place drive boulevard quay market bridge hill gate row")
_OWNED = _words("my his her their our your its")  # `his ThinkPad in Gondar`: a person's things are where they are


def deployment(
    text: str, a: int, b: int, products: Collection[str] = frozenset(), given: Callable[[str], int] | None = None
) -> bool:
    """Whether the place at text[a:b] is named as where a system runs (see the module's docstring); with `given`
    (a given name's rank, 0 for none), a product's word that ends a person's whole name or a season's is no
    system (`Ahmet Koç in Ankara`, `Prof. Ingrid Müller at Heidelberg`, `the New Year in Harbin`)."""
    if _REGION_BESIDE.match(text, b):
        return True  # `Amsterdam (westeurope)`
    line_start = text.rfind("\n", max(0, a - LINE_REACH), a) + 1 or max(0, a - LINE_REACH)
    line = _LINE.match(text, line_start, b + LINE_REACH)  # a long line is read near the place, not whole
    if line is not None and REGION_ID.search(line.group()):
        comment = _COMMENT.search(text, line_start, a) is not None
        if comment or not place_before(text, a):
            return True
    if word_before(text, a) in _REGION_WORDS or infra_after(text, b):
        return True
    system = _SYSTEM_IN.search(text, max(0, a - 60), a)
    if system is not None and (system.group(1) or "").lower() not in _OWNED:
        word = system.group(2)
        if given is not None and _named_before(system.group(1) or "", word, given):
            pass
        elif word.lower() in _SYSTEM_BEFORE_IN or (
            word[:1].isupper()
            and fold(word) in products
            and word.lower() not in STOP_WORDS  # not `IT in Durban`
            and word.lower() not in CALENDAR  # nor `starts Monday in Izmir` (monday.com)
            and word.lower() not in _STREET_WORDS  # nor `on Fade Street in Dublin`
        ):
            return True
    return _DEPLOY_BEFORE.search(text, max(0, a - 80), a) is not None


def _named_before(first: str, word: str, given: Callable[[str], int]) -> bool:
    """`first word` is a person's whole name (a given name, then a capitalised word) or a season's (`New Year`)."""
    if not first[:1].isupper() or not word[:1].isupper():
        return False
    return given(fold(first)) >= 1 or f"{first} {word}".lower() in _SEASONS


_SEASONS = frozenset(["new year", "lunar new"])
_PERSONAL = re.compile(r"\b(?:I|I'm|I'll|I've|I'd|me|my|mine|myself|he|she|him|her|his|hers)\b")
_TECHNICAL = re.compile(
    r"[a-z0-9]+_[a-z0-9_]+|\w+\.\w+\(|\b\d+(?:\.\d+)?\s?(?:ms|s|%|[KMGT]i?B)\b|https?://|\b[a-z]+-[a-z0-9]+-\d+\b|"
    r"\b(?:HTTPS?|API|CPU|GPU|VPN|DNS|TLS|SSO|CI|CD|PR|MR|SLO|SLA|ASG|VPC|CDN|K8s|p\d\d)\b|[{}<>\[\]=]"
)
_WORD = re.compile(r"[A-Za-z][\w\-]*")
# a chat log's line: its time and its speaker's handle (`[09:03] leilani:`, `10:40 <omar>`)
TIME_PREFIX = r"\[?\d{1,2}:\d{2}(?::\d{2})?\]?"
SPEAKER = re.compile(
    rf"(?m)^[ \t]*{TIME_PREFIX}[ \t]+"
    r"(?!(?i:info|warn|warning|error|err|debug|trace|fatal|notice|crit|critical)\b)"
    r"(?:<(?P<nick>[\w.\-]+)>|@?(?P<who>[\w.\-]+):)[ \t]"
)  # not a log's level (`12:00:01 INFO: deployed`)


def personal(text: str) -> bool:
    """A person's pronoun in text: `I`, `my`, `she`, `his`."""
    return _PERSONAL.search(text) is not None


def technical(text: str, systems: Collection[str], tech_words: Collection[str]) -> bool:
    """Text about systems: an identifier, a unit, a protocol's acronym, markup, a system's noun (`cluster`,
    `replica`), or a capitalised name in `systems` (products that are no people's or places' names, nor common
    words)."""
    if _TECHNICAL.search(text):
        return True
    for word in _WORD.findall(text):
        lower = word.lower()
        if lower in INFRA or lower in tech_words or (word[0].isupper() and fold(word) in systems):
            return True
    return False


def infra_after(text: str, b: int) -> bool:
    """An infrastructure noun in the three words after text[:b], on its line: `Ohio ring`, `Istanbul edge PoP`."""
    match = _WORDS_AFTER.match(text, b)
    for word in match.group().split() if match is not None else ():
        if word.lower() in INFRA:
            return True
        if word.lower() not in _MODIFIERS and not _ACRONYM.fullmatch(word):
            return False
    return False
