"""Names in records, in any case or script: a name field's value, a mailbox's display name, an HL7 patient; and
a location field's place.

guards/names.py reads runs of capitalised words, so it does not see a bank
file's `holder="EMMA LAURENT"`, a payroll line's `employee=NAKAMURA YUKI`, a
commit trailer's `Reviewed-by: 김민준 <minjun.kim@naver.com>`, a SEPA
message's `<Nm>Eero Mäkinen</Nm>` or an HL7 message's `PID|...|OKONKWO^ADAEZE|`.
Here the record's shape is the cue: a field whose key names a person (`name`,
`holder`, `beneficiary`, `employee`, `assignees`, ISO 20022's `Nm`), the words
before an address in angle brackets that is no role's mailbox, and HL7's
patient name (PID-5, family and given name) and next of kin (NK1-2); a
table's cells under a column a header names so (`EMP_ID|NAME|SSN`,
`sr_id,opened,reporter`, an e-discovery load file's `þCUSTODIANþ`), `Surname,
Given` included; an SQL INSERT's values under such columns (a bare `name` only
in a table of people: `donors`, not `sellers`); a reservation's
`HUBER/KATHARINA MRS` and DICOM's `GARCIA^LUCIA`; and, with no field, two to four
words in capitals that are all names and no ordinary words, one a given name
on sight (`sent 920.00 EUR to PIETERS JAN BE11...`, `FERNANDO TORRES
MENDEZ;ES02...`): bank files and payout logs write people so. The value must look like a name:
one to four words of letters in one case (ALL CAPS, or capitalised words, or a
script without case), none of them a product's or a role's word, and not a
test persona (`John Doe`, `Test Holder`). A value under a key only a person
has (`holder`, `custodian`, not a bare `name`, which robots and pets have
too) or in HL7 is not second-guessed by the vetter. Places: a location
field's, a table's place column's (`city`, `neighbourhood`), HL7's patient
address city (PID-11), a table's `country` column's value in any language
(`Việt Nam`, `Maroc`): these replace a person's reading of the same words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from . import cues, deployments, mailboxes, places
from . import systems as said
from .findings import Overlaps
from .kinds import WORDY, Kinds
from .lexicons import Place, fold
from .lexicons import words as _words
from .scriptplaces import where_systems_run

Span = tuple[str, int, int]
# a word's letters and the vowel marks of South and Southeast Asia's scripts (`ภูเก็ต`, `राहुल`), which are no word
# characters; marks alone, so that no character is matched two ways
_MARKS = "".join(
    re.escape(c)
    for c in map(chr, [*range(0x0900, 0x0F00), *range(0x1000, 0x1100), *range(0x1780, 0x1800)])
    if unicodedata.category(c).startswith("M")
)
_WORD = rf"[^\W\d_](?:[^\W\d_'’.\-]|[{_MARKS}])*(?:['’\-][^\W\d_]+)*\.?"
_VALUE = rf"(?P<value>{_WORD}(?:,?[ \t]{_WORD}){{0,4}})"
_KEY = (
    r"(?:[\w\-]*_)?(?:name|full_?name|display_?name|holder|account_?holder|card_?holder|beneficiary(?:_name)?|"
    r"payee|payer|creditor|debtor|cdtr|dbtr|remitter|recipient|passenger|rider|guest|travell?er|policy_?holder|insured|"
    r"requested[ _]for|"
    r"employee|applicant|patient|customer_name|assignees?|reviewers?|nm|custodian|agent|inspector|adjuster|"
    r"claimant|driver|donor|member|student|signer|signatory|witness|contact_?name|owner_?name|cn|given(?:_?name)?|"
    r"first_?name|last_?name|family_?name|surname|forename|first|last|caregiver|pax_?name|"
    # people's roles no system has: `Technician: Craig`, `Verstorbene: Ingeborg Schäfer`, `Kurier: Michał Zając`
    r"technician|courier|kurier|deceased|verstorbene|verstorbener|requester|caller|nurse|midwife|warden|"
    # in other languages: a table's header, a form's field (`Nazwisko;Imię;Telefon`, `Auftraggeber;IBAN`)
    r"vorname|nachname|familienname|auftraggeber|empfänger|empfaenger|begünstigter|kontoinhaber|inhaber|"
    r"prénom|prenom|titulaire|bénéficiaire|beneficiaire|apellidos?|titular|beneficiario|sobrenome|cognome|"
    r"titolare|voornaam|achternaam|imię|imie|nazwisko|jméno|jmeno|příjmení|prijmeni|förnamn|efternamn|soyad|név|nev|"
    r"soyadı|nom|nombre|nome|naam|namn|"
    # Slovene's, Croatian's, Serbian's and Bosnian's given name and surname: `Ime: Žiga, Priimek: Kravanja`
    r"priimek|prezime|"
    # the Nordic languages', Finnish's, Slovene's, Czech's and Russian's: `navn = Ole-Johan Berntsen`,
    # `"sukunimi": "Heikkinen"`, `<prejemnik>Matej Kranjc</prejemnik>`, `Исполнитель: Кузнецов И. А.`
    r"navn|fornavn|etternavn|efternavn|mellemnavn|nimi|etunimi|sukunimi|prejemnik|placnik|plačnik|príjemca|"
    r"příjemce|prijemce|odbiorca|nadawca|исполнитель|получатель|отправитель|плательщик|фамилия|имя|фио|"
    # an owner, a contact, a person in charge: `owner: "petra novak"`, `Ansvarlig: Birgitte`
    r"owner|contact|ansvarlig|ansvarig|vastuuhenkilö|responsable|verantwortlich|verantwortliche|"
    # a contact in other languages, a Unix account's full name: `<contacto>Rocío Medina</contacto>`,
    # `'gecos': 'Tipene Paewai'`
    r"contacto|kontaktperson|ansprechpartner|ansprechpartnerin|gecos|"
    # a customer: `Cliente: Ana Beatriz Souza`, `Kundin: Sabine Krüger`, `customer="ingrid haugland"`
    r"customer|cliente|kunde|kundin|kund|klient|klientka|asiakas|клиент|клиентка|заказчик|покупатель|"
    # CITATION.cff's, and a teacher's, a tenant's, a rider's: `given-names: "Elsa"`, `teacher="margit halvorsen"`
    r"family-names|given-names|teacher|instructor|coach|tutor|tenant|landlord|pupil|nanny|babysitter)"
)
# a name's key that robots and pets have too: not `first_name`, `taxpayer_last_name`, `full_name`, which only
# people have
_BARE = re.compile(
    r"(?i:(?:[\w\-]*_)?(?<![a-z])(?<!first_)(?<!last_)(?<!given_)(?<!family_)(?<!full_)(?<!middle_)(?<!maiden_)"
    r"(?<!birth_)(?:name|nm|display_?name|nom|nombre|nome|naam|namn|navn|nimi|owner|contact|responsable|"
    # a customer's, a person in charge's, a recipient's: a business or a department as often (`asiakas: Nokia`,
    # `verantwortlich: Abteilung Einkauf`, `Получатель: Сбербанк`, `customer: Acme`)
    r"customer|cliente|kunde|kundin|kund|klient|klientka|asiakas|ansvarlig|ansvarig|vastuuhenkilö|verantwortlich|"
    r"contacto|kontaktperson|ansprechpartner|ansprechpartnerin|gecos|"
    r"verantwortliche|prejemnik|placnik|plačnik|príjemca|příjemce|prijemce|odbiorca|nadawca|исполнитель|получатель|"
    r"отправитель|плательщик|клиент|клиентка|заказчик|покупатель|tenant|landlord))"
)
# a name's key with a business's or a thing's word before it: `SHOP_NAME`, `CAMP_NAME`, `company_name`
_THINGS_KEY = re.compile(
    r"(?i:(?:[\w\-]*_)?(?:shop|store|camp|company|business|firm|farm|site|venue|brand|product|app|host|file|"
    r"project|team|org|organi[sz]ation|hotel|studio|salon|school|club|shop|dairy|restaurant|cafe|bakery|"
    r"service|device|bucket|queue|table|db|database|cluster|repo|image|bot|model|event|course|class|boat|"
    r"balloon|horse|dog|pet|animal|plant|resort|lift|room|tank)_?(?:name|nm|display_?name))"
)
# a given name's own key: its value is a given name, even one a product has too (`first_name=Lucia`)
_GIVEN_ONLY = re.compile(
    r"(?i:(?:[\w\-]*_)?(?:first_?name|given_?name|given-names|forename|vorname|pr[ée]nom|voornaam|imi[eę]|"
    r"jm[ée]no|f[öo]rnamn|fornavn|etunimi)|first)"
)
# a bare `first` is a given name's key beside a `last` (`{'first': 'lucia', 'last': 'moreno'}`; not a podium's
# `{"first": "Ruby", "second": "Emerald"}`)
_LAST_KEY = re.compile(r"(?<![\w\-])[\"']?(?i:last)[\"']?[ \t]*[=:]")
# a given name's key: a record that has one holds people, and its bare `nom` or `name` is their surname
_GIVEN_KEY = re.compile(
    r"(?<![\w\-])[\"']?(?i:pr[ée]nom|first_?name|given_?name|vorname|voornaam|imi[eę]|fornavn|f[öo]rnamn|etunimi|"
    r"nome_proprio)[\"']?[ \t]*(?:=>|[=:])"
)
# PHP's and Perl's `'nom' => 'Lefèvre'`, Ruby's `:city => "Graz"`, Erlang's `nazwisko => <<"Szczepański">>`
_ARROW = r"[\"']?[ \t]*=>[ \t]*(?:<<)?[\"']?"
# an HTML form's field, its name and its value apart: `<input name="city" value="Scranton">`
_INPUT = r"[\"'][ \t]+value[ \t]*=[ \t]*[\"']"
_FIELD = re.compile(
    # (and an Android resource's `name="support_contact">`, a Ruby block's `prijmeni { "Dvořák" }`)
    rf"(?<![\w\-])(?P<key>(?i:{_KEY}))(?:[ \t]*[=:][ \t]*\[?[ \t]*[\"']?|[\"']\s*:\s*\[?\s*[\"']|>|[\"']>|{_ARROW}|"
    rf"{_INPUT}|[ \t]*\{{[ \t]*[\"']){_VALUE}"
    # (not a dict's key: `employee {'first': 'lucia'}`)
    r"(?=[\"'<\]|,;&\s]|\Z)(?![\"']\s*:)"
)
_KEY_WORD = re.compile(_KEY, re.IGNORECASE)  # a value that is itself a field's word: `Vorname`
_TITLE = re.compile(r"([^\W\d_]+)\.?\s+")
# an HTML table's label cell, then its value's: `<td>Venue</td><td>Bristol</td>`
_CELL_AFTER_LABEL = r"</t[dh]>[ \t]*<td(?:\s[^<>]*)?>"
# a pair's key, then its value: `"Key":"site","Value":"Dingle"`, `- name: CITY` / `  value: "Galway"`
_PAIRED = r"[\"']\s*,\s*[\"'](?i:value)[\"']\s*:\s*[\"']|[\"']?[ \t]*\n[ \t]*(?i:value):[ \t]*[\"']?"
_PLACE_KEY = (
    # (and a camel-cased owner's: `branchTown`, `pickupCity`)
    # (and a capitalised one's: `FromCity`, `HomeTown`)
    r"(?:[\w\-]*_|(?-i:[A-Z]?[a-z]+(?=(?:Town|City|Location|Region|Province|County|Village|Suburb|District)\b)))?"
    r"(?:location|city|town|hometown|birthplace|birth_?city|residence|home_?city|based_?in|"
    r"destination|origin|village|prefecture|province|county|home_?base|base|site|sites|office|depot|suburb|"
    r"neighbou?rhood|district|municipality|home[_ ]?port|port|station|campus|branch|pickup|drop_?off|territory|"
    r"region|island|home|post|store|dest|deliver_?to|ship_?to|return_?to|clinic|salon|gym|shop|hostel|"
    # a state's or a prefecture's name in a person's record (`"state": "Rajasthan"`, `pref: "神奈川県"`; a US
    # state's code is read apart, below)
    r"state|pref|bundesland|"
    # a camp's, a yard's place; Slovenian's and Croatian's place (`camp=Alta`, `Kraj: Trenta`)
    r"camp|yard|kraj|pier|ground|"
    # a person's shed's, workshop's, locality's place (`shed: "Te Kūiti"`, `workshop: "Rosario"`)
    r"shed|workshop|locality|"
    # other languages' town and city: `Település: Mád`, `Lokasi acara: Ubud, Bali`, `Wohnort: Graz`
    r"település|telepules|város|varos|helység|miasto|miejscowość|miejscowosc|město|mesto|obec|stadt|wohnort|ort|"
    r"ville|commune|localité|localite|ciudad|localidad|municipio|cidade|município|città|citta|comune|località|localita|"
    r"paikka|outlet|lokacija|lokalizacija|lokalizacja|lokace|lokalita|destino|helyszín|helyszin|sijainti|"
    r"plaats|woonplaats|kota|lokasi|şehir|sehir|ilçe|ilce|kaupunki|paikkakunta|stad|mjesto|oraș|oras|"
    # and their islands, ports and places: `isla: "Tenerife"`, `liman: "Mersin"`, `"porto":"Genova"`, `sted=`
    r"isla|ilha|île|ile|insel|eiland|liman|porto|puerto|hafen|haven|havn|hamn|harbou?r|sted|lugar|luogo|ubicaci[óo]n|"
    # a branch's seat: `sede: Salamanca`, `filiale=Bergamo`, `sucursal: Rosario`
    r"sede|filiale|sucursal|spot|beach|resort|embarque|desembarque|embarkation|"
    # a club's, a venue's and a marina's place: `"club":"Sevilla"`, `"venue":"Toa Payoh"`, `"marina":"Dubai Marina"`
    r"club|venue|marina|studio|embark|disembark|klinik|by|qth|"
    r"localiza[çc][ãa]o|standort|geo|geoip_city|"
    # a branch in other languages, a mountain hut: `şube: Kadıköy`, `filiaal: Zwolle`, `hut: Skaftafell`,
    # `cabang: "Yogyakarta"`, `"vestiging": "Haarlem"`, `Afdeling: Aarhus`
    r"şube|sube|filiaal|filial|oddział|oddzial|pobočka|pobocka|hut|cabang|vestiging|afdeling|"
    # a work site, a courier's hub, a town's quarter: `<worksite>Pensacola</worksite>`, `Hub: "Yaba"`,
    # `zona = "Alfama"`, `bairro: Savassi`
    r"meeting_?point|meeting_?place|treffpunkt|worksite|jobsite|hub|zona|zone|bairro|barrio|quartier|viertel|bezirk|dzielnica|kerület|kerulet|wijk|stadsdeel|"
    # Korean's, Chinese's and Japanese's branch, region, city and place: `지점=강릉`, `城市: 杭州`
    r"지점|지역|도시|출발지|도착지|城市|地点|地點|所在地|都市|支店|分店|店舗|门店|門市)"
    r"(?:_(?:pref|preference|name|city))?"
)
# a branch's keys in other languages and a hut's, whose values are as often a head office, a side, a bank's segment,
# a hospital's ward or (German's `Hut`) a hat: `şube: Merkez`, `filial: Matriz`, `oddział: Kardiologia`
_BRANCH_KEYS = _words("şube sube filial filiaal oddział oddzial pobočka pobocka hut cabang vestiging afdeling")
# a town's quarter's and a hub's keys, read in a person's record only
_QUARTER_KEYS = _words("hub zona bairro barrio quartier viertel bezirk dzielnica kerület kerulet wijk stadsdeel")
# keys of other things too (`port: 8080`, `region: eu-west-1`, `branch: main`): their value a capitalised place
# only, after `:` or `=`
_WORDY_KEYS = (
    _words(
        "base site sites office depot port station campus branch pickup dropoff territory region home post store "
        "dest clinic salon gym shop hostel harbour harbor sede filiale sucursal spot club venue marina studio embark "
        "disembark klinik by outlet worksite jobsite camp yard 지점 支店 分店"
    )
    | _QUARTER_KEYS
    | _BRANCH_KEYS
)
# keys whose value is a place even where no lexicon knows it (`district: "旺角"`, `"branch":"Hongdae"`,
# `Base: "Lido di Venezia"`): a neighbourhood's, a small town's name; the wordy ones (`branch`, `base`) in a
# person's record only
_LOOSE_KEYS = (
    _words(
        "city town village hometown district neighbourhood neighborhood suburb municipality prefecture province "
        "county stadt wohnort ort ville commune ciudad localidad municipio cidade città citta comune plaats "
        "woonplaats kota şehir sehir ilçe ilce kaupunki paikkakunta stad miasto město mesto obec település "
        "branch base venue marina sede filiale sucursal standort outlet meetingpoint kraj "
        # a person's site, home, home port, pier or ground: `site_location: "Jeneponto"`, `homePort: "Húsavík"`
        # (and shop, shed, workshop, locality: `shop: "Kelso"`, `farm_locality: "Kingaroy"`)
        "site location home homeport harbour harbor pier ground shop shed workshop locality "
        "지점 지역 도시 城市 地点 地點 所在地 都市 支店 分店"
    )
    | _QUARTER_KEYS
    | _BRANCH_KEYS
)
_LOOSE_WORDS = 4  # a place's name has a few words; a field of more is a sentence
# loose keys of other things' places too (a server's `location`, a boat's `pier`): a value no lexicon holds is a
# place only in a person's record, as a wordy key's is
_RECORD_LOOSE = _words("site location home homeport harbour harbor pier ground shop shed workshop locality")
# of those, the keys whose value names a brand or an event as often (`shop: Webstore`, `workshop: Dockerfest`): a
# place only beside a person's name and a person's value (`name: ..., card: ..., shop: "Kelso"`)
_SHOP_KEYS = _words("shop workshop")
# the words of those values, no place's: a head office, a side, a segment, a store, a warehouse
_BRANCH_WORDS = _words(
    "merkez matriz sede centrala centrála centrali hlavni hlavní glowny główny centrum huvudkontor huvudkontoret "
    "hoofdkantoor norte sul sur nord norr söder syd oost west zuid noord ticari kurumsal bireysel sayısal sayisal "
    "loja sklad online internet"
)
_WARD = re.compile(r"(?:logi[ai]|iatri[ai]|chirurgi[ai]|okulistyka|wewnętrzny|wewnetrzny)\Z")
# the words a town's quarter's or a hub's value takes that name no place: a side, the centre, a kind of zone
# (`zona: Norte`, `Bezirk: Innenstadt`, `zona: Franca`)
_QUARTERS_WORDS = _words(
    "norte sur sul leste oeste este nord sud est ouest noord zuid oost west north south east central centre center "
    "centro centrum zentrum mitte innenstadt urbana urbano rural franca industrial comercial residencial nouveau "
    "erstes"
)
# a field's value in a script without case that is no place: unset, none, all, online, other, head office
_UNPLACED = _words(
    "미정 없음 전체 기타 온라인 미지정 해당없음 본사 본점 未定 待定 未知 不明 无 無 其他 其它 默认 默認 全国 全國 "
    "线上 線上 不限 非公開 未設定 本社 本店 总部 總部 オンライン なし 不詳 未填"
)
# other languages' words for a place's kind, a placeholder's value or a name's first word (`"city": "Город"`)
_PLACE_NOUNS = frozenset(
    fold(w) for w in _words("город місто grad distrito bairro barrio quartier bezirk viertel zona zone sector sektor")
)
# a US state's code as a record's `state` (`"state": "TX"`, `state=GA`), read where the record is a US person's: an
# SSN or a North American phone number near it (not `"state": "OK"` of a health check beside a German phone)
_STATE_FIELD = re.compile(
    # `billing_state`, `PAYROLL_OVERRIDE_STATE`; PHP's `'state' => 'OR'` (not Spanish's `estado`, a status as often:
    # `"estado": "OK"`)
    # (and a person's address's, camel-cased: `homeState: "WV"`; not `currentState`, `siteState`, a machine's)
    # (an owner numbered too: `EMPLOYEE_1_STATE=LA`; camel-cased capitalised: `MailingState='AZ'`)
    r"(?<![\w\-])(?i:(?P<owner>(?:[a-z0-9]+_){0,3}|(?-i:[Hh]ome|[Bb]illing|[Ss]hipping|[Mm]ailing|[Bb]irth|"
    r"[Rr]esidence|[Tt]ax|[Pp]ayroll)(?-i:(?=State\b)))state|state_code)"
    rf"(?:\s*[=:]\s*[\"']?|\"\s*:\s*\"|{_ARROW}|{_INPUT})(?P<code>{places.STATES})"
    r"(?=[\"'\s,;})\]]|\Z)"
    # Clojure's and EDN's keyword (`:state "MN"`), COBOL's field (`05 EMP-STATE PIC XX VALUE "LA".`)
    rf"|(?<![\w\-]):state[ \t]+\"(?P<kw>{places.STATES})\""
    rf"|(?<![\w\-])(?i:(?P<record>(?:[a-z0-9]+-){{1,3}})state)[ \t]+PIC[ \t]+X(?:X|\(2\))[ \t]+VALUE[ \t]+[\"']"
    rf"(?P<pic>{places.STATES})[\"']"
)
_STATE_REACH = 200
# a US state's code in the quoted cell after an SSN's: `("Darnell", "Hughes", "519-33-7939", "OK")`
_STATE_AFTER_SSN = re.compile(
    rf"[\"']\d{{3}}[- ]?\d{{2}}[- ]?\d{{4}}[\"'][ \t]*,[ \t]*[\"'](?P<code>{places.STATES})[\"']"
)
_STATE_CODE = re.compile(places.STATES)
# a setter's or a builder's US state or place: `v.setHomeState("MD")`, `.setCity("Hartford")`
_SETTER = re.compile(
    r"\.(?:set|with)(?:Home|Billing|Shipping|Mailing|Birth|Work|Residence)?(?P<what>State|City|Town)\(\s*[\"']"
    r"(?P<value>[^\"'\n]{2,40})[\"']\s*\)"
)
# whose `state` is a system's, not a US record's: `health_state`, `pod_state`, `desired_state`
# whose `state` is a US person's record's: `billing_state`, `TEST_EMPLOYEE_STATE`, `PAYROLL_OVERRIDE_STATE` (not
# `health_state`, `kyc_state`, `login_state`: a process's state)
_PERSONS_STATES = _words(
    "site home billing shipping mailing residence residential birth address work us employee employees customer "
    "customers member members client clients patient patients holder holders person payroll tax taxpayer "
    "applicant beneficiary cardholder mail contact primary secondary current previous registered legal "
    # people's roles no process or device has: `TREASURER_STATE=OR` (not `driver_state`, `owner_state`,
    # `manager_state`, a process's or a device's as often)
    "treasurer secretary president volunteer guardian spouse donor landlord tenant teacher coach buyer seller "
    "shipper consignee"
)
# the state fields of shapes a process's state takes too, read only with a code no status writes (not `OK`, `IN`,
# `PA`, `HI`): a test's record (`FIXTURE_STATE: "AZ"`), a numbered person's (`EMPLOYEE_1_STATE=LA`; not
# `us_east_1_state`, `SITE_2_STATE`), a capitalised owner's (`MailingState='AZ'`; not `MailingState='OK'`, a
# queue's), Clojure's keyword in a map with a name, a city or a ZIP (`{:name "..." :state "MN"}`), COBOL's field
# of an employee's or a customer's record or one with a name (`05 EMP-STATE PIC XX VALUE "LA".`; not `JOB-STATE`,
# `REAL-ESTATE`)
_TEST_OWNERS = _words("fixture fixtures e2e seed sample")
_NUMBERED_PERSONS = _words(
    "employee employees emp customer customers cust member members patient patients client clients applicant payee "
    "holder person contact taxpayer beneficiary"
)
_STATUS_CODES = frozenset(["OK", "IN", "ID", "DE", "PA", "HI", "ME", "OR", "MA", "CA", "CO"])
_COBOL_NAME = re.compile(r"(?i)[a-z0-9\-]*-NAME[ \t]+PIC[ \t]+X")  # the record's name: `05 WS-NAME PIC X(30)`
_KEYWORD_RECORD = re.compile(r":(?:name|first-name|last-name|full-name|city|zip|zipcode|address)\b")
_PLACE_FIELD = re.compile(
    rf"(?:(?<![\w\-])|(?<=\s--))(?P<key>(?i:{_PLACE_KEY}))"
    # (and Clojure's `:ort "Basel"`, an Android resource's `name="branch_city">`, a Ruby block's `mesto { "Plzeň" }`)
    # (and a tag's or a container's variable, its key and its value apart: `{"Key":"city","Value":"Galway"}`,
    # `- name: CITY` / `value: Galway`)
    # (and a Terraform variable's default: `variable "site_city" { default = "Uşak" }`)
    # (and a data frame's column of them, an SQL `IN` list: `"river_town": ["Çamlıhemşin", ...]`, `base_town IN
    # ('Bovec', 'Kobarid')`)
    rf"(?P<sep>\s*[=:]\s*(?:\[|(?:c|list|tuple|vec|array)?\()?\s*[\"']?|[\"']\s*:\s*\[?\s*[\"']|{_ARROW}|{_PAIRED}|"
    r"[ \t]+(?i:in)[ \t]*\([ \t]*'|\s+|>|"
    r"\"[ \t]*\{[ \t]*(?:type[ \t]*=[ \t]*\w+[ \t]*[\n;][ \t]*)?default[ \t]*=[ \t]*\"|"
    rf"{_CELL_AFTER_LABEL}|\s+[\"']|[\"']>|{_INPUT}|"
    rf"[ \t]*\{{[ \t]*[\"']){_VALUE}"
    r"(?=[\"'<\])}|,;&\s.]|\Z)"
)
_DISPLAY = re.compile(rf"(?:(?<=[:=,\"(])|(?<=[:=,]\s)|^){_VALUE}\"?\s*<(?P<address>[\w.+\-]+@[\w.\-]+)>", re.M)
# a name in capitals among other words: `sent 920.00 EUR to PIETERS JAN BE11...`, `the card file for LEE HYE JIN`
_CAPS = re.compile(r"[A-ZÀ-ÖØ-Þ][A-ZÀ-ÖØ-ÞĀ-ž]")  # two capitals in a row somewhere: a run of them may be a name
# a name as reservations and imaging write it: `HUBER/KATHARINA MRS` (a passenger's or guest's surname/given name),
# `GARCIA^LUCIA` (DICOM's and HL7's family^given)
_SLASHED = re.compile(
    r"(?<![\w\-@./^])(?:(?P<family>[A-ZÀ-Þ][A-ZÀ-Þ'’\-]+)/(?P<given>[A-ZÀ-Þ][A-ZÀ-Þ'’\-]+)"
    r"|(?P<family2>[A-Z][\w'’\-]+)\^(?P<given2>[A-Z][\w'’\-]+))"
    r"(?=[ \t]+(?:MRS?|MS|MISS|MSTR|DR)\b|[\]\s|^\"',;]|\Z)"
)
_SEGMENT = re.compile(r"[A-Z][A-Z0-9]{2}\|")
# SQL's `INSERT INTO t (first_name, last_name, ...) VALUES ('Chiamaka', 'Eze', ...), (...)`
# an INSERT's columns and its rows (guards/scan.py reads an `ssn` column's values by them)
INSERT = re.compile(r"(?i:\binsert\s+into\s+(?P<table>[\w.\"`]+)\s*)\((?P<columns>[^()]*)\)\s*(?i:values)\s*")
# PostgreSQL's `COPY t (surname, given_name, town) FROM stdin WITH CSV;`: its rows follow, one a line, up to `\.`
_COPY = re.compile(r"(?i:\bcopy\s+(?P<table>[\w.\"]+)\s*)\((?P<columns>[^()\n]*)\)\s*(?i:from\s+stdin)\b[^\n]*\n")
_COPY_CELL = re.compile(r'"((?:[^"\n]|"")*)"|([^,\t\n]*)')
# tables of people: a bare `name` column in them is a person's (in `sellers` or `venues` it is a business's)
_PEOPLE_TABLE = re.compile(
    r"(?i:.*(?:users?|customers?|donors?|guests?|employees?|patients?|members?|students?|contacts?|people|persons?|"
    r"staff|drivers?|passengers?|clients?|applicants?|volunteers?|cardholders?|holders?|authors?|players?))"
)
# possessive quantifiers: a doubled quote is always an escaped one, and no loop gives back what it took, so a row
# with no `)` fails at once instead of trying every way to split its quotes
ROW = re.compile(r"\s*,?\s*\((?P<row>(?:'(?:''|[^'\\]|\\.)*+'|[^()'])*+)\)")
_PARTICLES = _words("van von der den de da das do dos del della di du le la zu ten ter bin binti bint ibn al el ben")
COMMON_SURNAME = 20_000  # the census' rank
RARE_WORD = 5_000  # a word's frequency in running text
_HL7_PID = re.compile(r"(?m)^PID\|(?:[^|\n]*\|){4}(?P<family>[^|\n^]+)\^(?P<given>[^|\n^]+)")
# HL7's next of kin (NK1-2) and the city of a patient's address (PID-11: street^other^city^state^zip)
_HL7_NK1 = re.compile(r"(?m)(?:^|\s)NK1\|[^|\n]*\|(?P<family>[^|\n^]+)\^(?P<given>[^|\n^]+)")
# an LDAP entry's locality: `l: Grasse` (LDIF, beside its `dn:` or `cn:`)
_LDIF_LOCALITY = re.compile(r"(?m)^l:[ \t]*(?P<city>[^\W\d_][^\n]{0,40}?)[ \t]*$")
_HL7_CITY = re.compile(r"(?m)^PID\|(?:[^|\n]*\|){10}[^|\n^]*\^[^|\n^]*\^(?P<city>[^|\n^]+)")
# a table's header names its columns: `EMP_ID|NAME|SSN`, `sr_id,opened,reporter,neighbourhood`, a load file's
# `þBEGDOCþþCUSTODIANþ`; the cells under a person's or a place's column are read as a field's value
_CELL_KEY = re.compile(rf"(?i:{_KEY})")
_CELL_PLACE = re.compile(
    r"(?i:(?:[\w\-]*_)?(?:location|city|town|hometown|birthplace|residence|neighbou?rhood|district|village|"
    r"region_of_residence|region|county|province|prefecture|country|state|miasto|stadt|ville|ciudad|cidade|ort|wohnort|città|citta|plaats|woonplaats|"
    r"miejscowość|miejscowosc|město|mesto|şehir|sehir|localidad|localité|localite|comune|gemeente|"
    r"zemlja|država|drzava|land|país|pais|paese|pays|ország|kraj|ülke|maa))"
)
# a country's column, in other languages too: `| Zemlja |`, `Land`, `País`, `Paese`, `Pays`, `Ülke`
_COUNTRY = re.compile(
    r"(?i:(?:[\w\-]*_)?(?:country|zemlja|država|drzava|land|país|pais|paese|pays|ország|kraj|ülke|maa))"
)
_WORDS = re.compile(r"[^\W\d_]+(?:[ '’\-][^\W\d_]+){0,2}")
# a town's or a city's column, in a few languages (`town`, `home_city`, `Ort`, `ville`, `miasto`)
_TOWN_COLUMN = re.compile(
    r"(?i:(?:[\w\-]*_)?(?:town|city|village|hometown|ort|wohnort|stadt|ville|ciudad|città|citta|cidade|miasto|"
    r"město|mesto|kaupunki|plaats|woonplaats|stad|kommune|şehir|sehir|település|grad))"  # (not `by`: `created_by`)
)
_TOWN_CELL = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-Ž][^\W\d_]+(?:[ '’\-][A-ZÀ-ÖØ-ÞĀ-Ža-zß-ÿ][^\W\d_]*){0,2}")
_PLACEHOLDER_TOWN = re.compile(
    r"(?i:muster|beispiel|anytown|example|test|voorbeeld|exemple|ejemplo|esempio|exempel|demo|sample|mock|dummy|"
    r"contoso|fabrikam|globex|initech|foo|xyz)"
)
_FULL_NAME_CELL = re.compile(r"[\"']?[A-ZÀ-ÖØ-ÞĀ-Ž][^\W\d_]+[ \t]+[A-ZÀ-ÖØ-ÞĀ-Ž][^\W\d_]+")  # `Eilidh Rankin`


def _unknown_town(kinds: Kinds, value: str, key: str) -> bool:
    """A town's column's value no lexicon holds that is a town's name all the same: not an acronym or a short word
    (`HQ`, `TBD`, `Ops`), not a word, a product, a given name or a surname (`Remote`, `Grafana`, `Fischer`), not a
    placeholder's (`Anytown`, `Contoso`)."""
    if value.isupper() or len(value) < 4 or _PLACEHOLDER_TOWN.search(value):
        return False
    lex = kinds.lex
    return not any(w in lex.words or kinds.product(w) or w in lex.given or w in lex.surnames for w in key.split())


_NOT_NAMES = (
    _words(
        "test demo sample example dummy fake placeholder user customer holder admin team bot service system account "
        # a department, a test customer in other languages: `Abteilung Einkauf`, `IT-afdelingen`, `Служба Поддержки`
        "abteilung afdeling afdelingen avdelning osasto dział dzial oddělení oddeleni служба отдел департамент почта "
        "testkunde testkund privatkund privatkunde "
        # a test user in other languages: `('Test', 'Usuario', ...)`
        "usuario utilisateur benutzer utente gebruiker użytkownik uzytkownik "
        "support billing payments payroll ops platform group department dept unknown none null n/a anonymous patient "
        "redacted masked hidden withheld removed anonymised anonymized appleseed "
        # a bank line's words beside the payee: `GARCIA MARIA ACCT ****7781`
        "acct account ref sort iban bic swift amt amount bal balance cr dr txn trx ach bacs sepa wire fee salary wages "
        "rent credit debit payment transfer imo mmsi vessel st rd ave maintainer"
    )
    | cues.NO_ONE
)
# the placeholder people of fixtures and protocols' examples: no one's name where a record holds them
PERSONAS = frozenset(
    {"john doe", "jane doe", "john smith", "jane smith", "max mustermann", "erika mustermann", "erika musterfrau",
     "alice", "bob",
     "carol", "dave", "eve", "mallory", "trent",
     # other languages' placeholder people: in forms' and fixtures' examples, no one's
     "jan kowalski", "anna kowalska", "mario rossi", "ola nordmann", "kari nordmann", "jean dupont",
     "marie dupont", "juan perez", "fulano de tal", "joe bloggs", "jan jansen", "jan novak", "otto normalverbraucher",
     "matti meikalainen", "maija meikalainen", "sven svensson", "jens hansen", "juan del pueblo", "ivan ivanov",
     "john appleseed", "jane appleseed", "joe public", "john q public", "tommy atkins", "john citizen",
     "jan modaal", "nguyen van a", "nguyen van b", "nguyen thi b", "pietje puk",
     # Slovak's and Czech's sample person, US courts' unnamed parties
     "jan vzorovy", "jana vzorova", "richard roe", "jane roe",
     "홍길동", "张三", "李四", "王五", "張三", "王小明", "山田太郎", "山田 太郎", "иван иванов", "иванов иван"}
)  # fmt: skip


# a fixture's surname that says what it is: `Bob Tester`, `Anna Testuser`, `Hans Testkunde`
_TEST_SURNAMES = _words("tester test testuser testperson testkunde testkundin testing testaccount prueba teste")
_TEST_FIRST = _words("test testovyy testovaya testowy testowa testovaci prueba teste")  # `Тестовый Клиент`


def _tester(name: str) -> bool:
    """A placeholder by its surname (`Bob Tester`): someone of a test, no one's name."""
    words = name.split()
    return len(words) > 1 and (fold(words[-1]) in _TEST_SURNAMES or fold(words[0]) in _TEST_FIRST)


def _persona(name: str) -> str | None:
    """The fixture's persona `name` is, if it is one by its full name (`Jan Kowalski`, `Ola Nordmann`; `Alice`
    alone is too many people's name to drop outside a record)."""
    words = [fold(w) for w in name.replace(",", " ").split()]
    key = " ".join(words)
    if "," in name and " ".join(reversed(words)) in PERSONAS:  # `Doe, John`: the persona surname first
        key = " ".join(reversed(words))
    return key if " " in key and key in PERSONAS else None


_PERSONA_PARTS = [name.split() for name in PERSONAS if name.count(" ") == 1]
# a quoted name written surname first: `"Ferreira, Antónia"`, `name="Dupont-Lemaire, Agathe"`, `"de Wit, Annelies"`
_QUOTED_INVERTED = re.compile(
    r"(?<=[\"'“„«])(?<![^\W\d_]['’])(?P<name>(?:(?:" + "|".join(sorted(_PARTICLES)) + r")[ \t]+)*"
    r"(?:[A-ZÀ-ÖØ-Þ][^\W\d_]+|[A-ZÀ-ÖØ-Þ]['’](?=[A-ZÀ-ÖØ-Þ]))(?:[\-'’]?[A-ZÀ-ÖØ-Þ][^\W\d_]+)?"
    r",[ \t]*[A-ZÀ-ÖØ-Þ][^\W\d_]+)"
    r"(?=[\"'”»])"
)


# the same unquoted, in a log's or a chat's sentence: `Charge failed for Oyelaran, Bisi card=...`, `Fernández, Ana
# pide ...`; not in a list of words (`Smith, Jones, Brown`, `Paris, Anna Schmidt`)
_UNQUOTED_INVERTED = re.compile(
    r"(?<![\w\-'’,])(?<!,[ \t])(?P<name>[A-ZÀ-ÖØ-Þ][^\W\d_]{2,}(?:-[A-ZÀ-ÖØ-Þ][^\W\d_]+)?,[ \t]+[A-ZÀ-ÖØ-Þ][^\W\d_]+)"
    r"(?![\w\-'’]|[ \t]*,[ \t]*[A-ZÀ-ÖØ-Þ]|[ \t]+[A-ZÀ-ÖØ-Þ]|[ \t]+\d{1,2}:\d\d)"
)  # not a chat copy's header, `Kowalski, Anna  10:32`
# a surname beside an SSN in brackets: `imported 3 employees: Whitfield (579-15-3560), Nakamura (050-95-2860)`,
# `Example: 069 43 6632 (Abernathy)`
_SSN_SHAPE = r"\d{3}[- ]?\d{2}[- ]?\d{4}"
_BESIDE_SSN = re.compile(
    rf"(?<![\w\-'’])(?P<name>[A-ZÀ-ÖØ-Þ][^\W\d_]+(?:-[A-ZÀ-ÖØ-Þ][^\W\d_]+)?)[ \t]*\((?:SSN[ \t:]*)?{_SSN_SHAPE}\)"
    rf"|(?<![\w\-]){_SSN_SHAPE}[ \t]*\((?P<name2>[A-ZÀ-ÖØ-Þ][^\W\d_]+(?:-[A-ZÀ-ÖØ-Þ][^\W\d_]+)?)\)"
    # and before a comma and the SSN's name: `W-2 generated for Mendoza, SSN 573-75-5430`
    rf"|(?<![\w\-'’])(?P<name3>[A-ZÀ-ÖØ-Þ][^\W\d_]+(?:-[A-ZÀ-ÖØ-Þ][^\W\d_]+)?),[ \t]*SSN[ \t:]*{_SSN_SHAPE}"
)
# a letter's closing before the name that signs it: `Saludos, Rocío`, `Gruß, Heiko`
_CLOSINGS = cues.CLOSINGS | _words(
    "gruß gruss grüße grüsse amicalement bises cheers regards thanks merci grazie obrigado obrigada pozdrav pozdravy "
    "halsningar abrazos besos atentamente saluti cumprimentos beijos abraços"
)


def _unquoted_inverted(kinds: Kinds, name: str) -> bool:
    """An unquoted `Surname, Given`: as a quoted one, the given name one on sight, and the surname no given name on
    sight nor an English word: `Oyelaran, Bisi`; not `Hello, Anna`, `Berlin, Germany`, `Grace, Hopper`."""
    surname, given = (part.strip() for part in name.split(","))
    if len(given) < 3 or fold(surname) in _CLOSINGS or fold(surname) in cues.NEVER_ALONE:
        return False  # `Glenmalure, Co. Wicklow`, `Saludos, Rocío`
    if kinds.given(fold(given)) < 2 or any(kinds.given(fold(p)) == 2 for p in surname.split("-")):
        return False
    return _quoted_inverted(kinds, name) and not any(kinds.lex.wordiness(fold(p)) >= 0.5 for p in surname.split("-"))


def _quoted_inverted(kinds: Kinds, name: str) -> bool:
    """A quoted `Surname, Given` is someone's: a given name the lexicons know and no word, after a surname that
    is no word, place or product, unless a particle says it is one (`de Wit`)."""
    surname, given = (part.strip() for part in name.split(","))
    key = fold(given)
    if not kinds.given(key) or key in kinds.lex.words or kinds.product(key):
        return False
    words = surname.split()
    particled = len(words) > 1
    for part in re.split(r"[\-'’]", words[-1]):
        k = fold(part)
        if kinds.product(k) or kinds.lex.knows_place(k) or (k in kinds.lex.words and not particled):
            return False
    return True


_INVERTED = re.compile(r"([^\W\d_][^\W\d_'’\-]+),[ \t]*([^\W\d_]+)")
# a quoted given name, then a quoted surname, as a call's or a tuple's arguments: `new Teilnehmer("Anke",
# "Schulze", "Gütersloh")`, `("Darnell", "Whitaker", "404764914")`
_QUOTED_PAIR = re.compile(
    r"(?<![\w\\])(?P<q>[\"'])(?P<given>[A-ZÀ-ÖØ-Þ][^\W\d_]+(?:-[A-ZÀ-ÖØ-Þ][^\W\d_]+)?)(?P=q)[ \t]*,[ \t]*"
    r"(?P<q2>[\"'])(?P<surname>[A-ZÀ-ÖØ-Þ][^\W\d_]+(?:-[A-ZÀ-ÖØ-Þ][^\W\d_]+)?)(?P=q2)"
)


# a list's or a vector's constructor: its values are alike (`hund = c("Bess", "Tweed")`), no record's fields
_VECTORS = _words("c list vec array tuple set of listof arrayof setof seq vector")


def _quoted_pair(kinds: Kinds, text: str, m: re.Match[str]) -> bool:
    """The first arguments of a call or a tuple (`Employee("Darnell", "Whitaker", ...)`, not `c("Bess", "Tweed")`
    nor a comment's `e.g. 'Tosca', 'Figaro'`): a given name on sight (no word, product or place), then a surname
    the lexicons know that is no given name on sight, no word, product or place."""
    before = text[max(0, m.start() - 40) : m.start()].rstrip()
    if not before.endswith("("):
        return False
    called = re.search(r"([\w.]*)\Z", before[:-1].rstrip())
    if called is not None and called.group(1).rsplit(".", 1)[-1].lower() in _VECTORS:
        return False
    given, surname = fold(m.group("given")), fold(m.group("surname"))
    if not all(kinds.given(part) == 2 for part in given.split("-")) or " ".join((given, surname)) in PERSONAS:
        return False
    if any(k in kinds.lex.words or kinds.product(k) or kinds.lex.knows_place(k) for k in (given, surname)):
        return False
    return surname in kinds.lex.surnames and kinds.given(surname) < 2


def _spelled(name: str, address: str) -> bool:
    """Whether the mailbox's local part spells the display name before it: `grace.mwangi`, `gmwangi`, `grace_m`."""
    words = mailboxes.name_words(name)
    parts = mailboxes.local_parts(address.split("@")[0])
    return len(words) >= 2 and (mailboxes.spells(words, parts) or {words[0], words[-1][0]} <= parts)


_MARKED_SCRIPT = re.compile(r"[\u0900-\u0dff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]")


def _named_in_script(kinds: Kinds, value: str) -> bool:
    """A value in a script that writes vowels as marks, under a bare `name`, names a person only with a name the
    lexicon of people holds (not `{"name": "मुख्य सर्वर"}`, a main server); under a person's own key
    (`guest="ธนพล ศรีสุข"`) the key says so."""
    return _MARKED_SCRIPT.search(value) is None or any(word in kinds.lex.people for word in value.split())


def _spelled_alone(name: str, address: str) -> bool:
    """A display name of one word that the mailbox's local part holds: `Florence <florence.m@...>`."""
    words = mailboxes.name_words(name)
    return len(words) == 1 and words[0] in mailboxes.local_parts(address.split("@")[0])


def _full_name(kinds: Kinds, value: str) -> bool:
    """A given name the lexicons know and a common surname, nothing else (`Hemi Walker`, `NAKASHIMA, REIKO`), or
    initials before a surname (`F. van der Meulen`): a bare `name` field's or column's value so written is a
    person's, not a robot's or a pet's."""
    if _inverted(kinds, value):
        return True
    if (initialled := _INITIALLED.fullmatch(value)) is not None:
        # not a thing so written: `T. Rex`, `J. Crew`, `U. S. Steel`
        surname = fold(initialled.group("surname"))
        return surname not in kinds.lex.words and not kinds.product(surname) and not kinds.given(surname)
    words = value.split()
    if len(words) != 2 or not all(w[:1].isupper() for w in words):
        return False
    given, surname = (fold(w) for w in words)
    lex = kinds.lex
    return (
        bool(kinds.given(given))
        and given not in lex.words
        and not kinds.product(given)
        and kinds.common_surname(surname)
        and not kinds.product(surname)
    )


_INITIALLED = re.compile(
    r"[A-Z]\.(?:[ \t]?[A-Z]\.){0,2}[ \t]+(?:(?:van|von|de|der|den|du|da|di|le|la|ter|ten|op|zu|dos|das|del)[ \t]+){0,3}"
    r"(?P<surname>[A-Z][a-zà-ÿ'’\-]{2,})"
)


def _inverted(kinds: Kinds, value: str) -> bool:
    """A name written as records write people, surname first: `NAKASHIMA, REIKO`, `García, Lucía` (the given name
    one many people carry); a bare `name` column's value so written is someone's."""
    m = _INVERTED.fullmatch(value)
    if m is None or kinds.given(fold(m.group(2))) < 2:
        return False
    surname = fold(m.group(1))
    return surname not in kinds.lex.words and not kinds.lex.knows_place(surname)  # not `Lagos, Grace`


# the next and the last word, a space or a cell's delimiter between: `Max` `Mustermann`, `Doe,Jane`
_NEXT_WORD = re.compile(r"(?:[ \t]+|[,;|\t])[^\W\d_]+")
_LAST_WORD = re.compile(r"[^\W\d_]+(?:[ \t]+|[,;|\t])\Z")


def _in_persona(text: str, a: int, b: int) -> bool:
    """text[a:b] is a persona by its full name, or part of one the text writes whole (`Max` of `Dear Max
    Mustermann`, where the rest was not read)."""
    if _persona(text[a:b]) is not None:
        return True
    after = _NEXT_WORD.match(text, b)
    before = _LAST_WORD.search(text, max(0, a - 30), a)
    pairs = [text[a : after.end()]] if after else []
    pairs += [text[before.start() : b]] if before else []
    # a row's cells in either order: `Jane,Doe`, `Doe,Jane`
    cells = [re.split(r"[\s,;|]+", p) for p in pairs]
    return any(_persona(p) for p in pairs) or any(
        _persona(" ".join(c)) or _persona(" ".join(reversed(c))) for c in cells
    )


# the stock cast of protocols' and tests' examples: `Alice and Bob`, `Dave, Erin and Mallory`
_CAST = _words("alice bob carol charlie dave eve erin mallory oscar peggy trent victor walter")
# each alone, no surname after it (not `Dave Smith and Erin Brown met Victor`)
_CAST_NAME = re.compile(
    r"(?<![\w\-])(?:Alice|Bob|Carol|Charlie|Dave|Eve|Erin|Mallory|Oscar|Peggy|Trent|Victor|Walter)"
    r"(?![\w\-])(?![ \t]+[A-Z][a-z])"
)
_CAST_REACH = 60  # characters between two of the cast named in one breath
# what a text that names the cast as such speaks of
_CAST_CUE = re.compile(
    r"(?i:\b(?:personas?|fixtures?|tests?|examples?|protocols?|keys?|ciphers?|encrypt\w*|signs?|signatures?|"
    r"handshake|eavesdrop\w*|attackers?|adversar\w*|placeholders?|dummy|sample)\b)"
)


def _cast(text: str, found: list[Span]) -> list[Span]:
    """`found` less the stock cast where three of them are named together (`Dave, Erin and Mallory`, `Alice, Bob
    and Eve`), a list of personas rather than people, whatever else each name is."""
    names = list(_CAST_NAME.finditer(text)) if "Mallory" in text or "Alice" in text or "Dave" in text else []
    together: set[int] = set()
    for i in range(len(names) - 2):
        trio = names[i : i + 3]
        if trio[2].start() - trio[0].end() <= _CAST_REACH and len({m.group() for m in trio}) == 3:
            together |= {m.start() for m in trio}
    if not together or not _CAST_CUE.search(text):
        return found  # `Standup: Dave, Carol and Walter are out today`: colleagues
    return [x for x in found if not (x[0] == "PERSON" and x[1] in together and fold(text[x[1] : x[2]]) in _CAST)]


def personas(text: str, found: list[Span]) -> list[Span]:
    """`found` less fixtures' personas by their full names (`Jan Kowalski`), and their parts where the text
    writes them apart (`firstName: "Jane"`, `lastName: "Doe"`): a test's placeholder, however its fields split
    it."""
    if not any(e == "PERSON" for e, _, _ in found):
        return found
    found = [x for x in found if x[0] != "PERSON" or not (_in_persona(text, x[1], x[2]) or _tester(text[x[1] : x[2]]))]
    found = _cast(text, found)
    lower = fold(text)  # `Pérez` as `perez`
    parts = {
        part
        for given, surname in _PERSONA_PARTS
        if _field_value(lower, given) and _field_value(lower, surname)
        for part in (given, surname)
    }
    if not parts:
        return found
    return [x for x in found if x[0] != "PERSON" or fold(text[x[1] : x[2]]) not in parts]


# what only a person's row holds beside a name: an SSN, an IBAN, a card number, an address, a number with its `+`
_PERSONAL_VALUE = re.compile(
    r"(?<![\w\-])(?:\d{3}([- ])\d{2}\1\d{4}|[A-Z]{2}\d{2}[ ]?(?:[A-Z0-9]{4}[ ]?){2,7}[A-Z0-9]{1,4}|"
    r"(?:\d[ \-]?){12,18}\d|"
    r"(?<![\w.+\-])[\w.+\-]{1,64}@[\w\-]+(?:\.[\w\-]+)+|\+\d[\d ()\-]{7,16}\d)(?![\w\-])"
)
_ROW_REACH = 300
# what only a US record holds: an SSN, a North American phone number, a ZIP code after a state's code
_US_VALUE = re.compile(
    r"(?<![\w\-])(?:\d{3}([- ])\d{2}\1\d{4}|\+1[ \-.]?\(?\d{3}\)?[ \-.]?\d{3}[ \-.]\d{4}|\(\d{3}\)[ ]?\d{3}-\d{4}|"
    r"\d{3}-\d{3}-\d{4}|(?i:(?:[a-z]+_){0,3}ssn)[\"']?\s*[=:]\s*[\"']?\d{9}"  # and an SSN's field:
    # `ssn=362183247`, `TEST_EMPLOYEE_SSN=303591149`, Clojure's `:ssn "860214030"`, COBOL's `EMP-SSN PIC 9(9) VALUE
    # 516384328`
    r"|:ssn[ \t]+\"\d{9}"
    r"|(?i:(?:[a-z0-9]+-){0,3}ssn)[ \t]+PIC[ \t]+9(?:\(9\)|9{8})[ \t]+VALUE[ \t]+[\"']?\d{9})(?![\w\-])"
)


def in_personal_row(text: str, a: int, b: int) -> bool:
    """Whether text[a:b] fills a cell of a delimited row (`,`, `;`, `|`, a tab) that also holds an SSN, an IBAN,
    a card number, an email address or a phone number with its `+`: `E10551,Keisha Monroe,610-45-0067,Atlanta`."""
    start = text.rfind("\n", max(0, a - _ROW_REACH), a) + 1 or max(0, a - _ROW_REACH)
    end = text.find("\n", b, b + _ROW_REACH)
    end = end if end >= 0 else min(len(text), b + _ROW_REACH)
    before = text[start:a].rstrip(" \"'")[-1:]
    after = text[b:end].lstrip(" \"'")[:1]
    if not (before in ",;|\t" and after in ",;|\t"):  # `""` at the line's ends
        return False
    line = text[start:end]
    delimiter = before or after
    return bool(delimiter) and line.count(delimiter) >= 2 and _PERSONAL_VALUE.search(line) is not None


def _field_value(lower: str, word: str) -> bool:
    """`word` written as a field's value in the folded text: after `"`, `'`, `=` or `:` (`firstName: "Jane"`), not
    in prose (`John from sales and Mrs Smith`)."""
    return re.search(rf"[\"'=:]\s*[\"']?{word}\b", lower) is not None


def record_names(
    kinds: Kinds, text: str, taken: list[Span], program: Callable[[str], bool], sure: set[Span] | None = None
) -> list[Span]:
    """The people named in `text`'s fields, display names, tables, HL7 segments and payment lines' capitals,
    apart from what `taken` overlaps; those a person's own field or HL7 names (not a bare `name`, which names
    robots and pets too) are also added to `sure`."""
    out: list[Span] = []
    spans: list[tuple[int, int]] = []
    keyed: set[tuple[int, int]] = set()  # under a key only a person has: `custodian=`, `holder:`, `NAME` is not
    given_keyed: set[tuple[int, int]] = set()  # under a given name's own key: `first_name=`
    spelled: set[tuple[int, int]] = set()  # display names their address spells: a place's reading gives way
    if "=" in text or ":" in text or ">" in text:
        givens = _GIVEN_KEY.search(text) is not None  # `'nom' => 'Lefèvre', 'prenom' => 'Camille'`: the surname
        for m in _FIELD.finditer(text):
            if _THINGS_KEY.fullmatch(m.group("key")):
                continue  # `SHOP_NAME="Huîtres de la Baie"`, `camp_name`: a business's or a thing's name
            if _KEY_WORD.fullmatch(m.group("value").replace(" ", "_")):
                continue  # `<string name="first_name">Vorname</string>`: a form's label, translated
            one = m.group("value").strip()
            if m.group("key").lower() == "customer" and " " not in one and kinds.given(fold(one)) < 2:
                continue  # `{"customer":"Nestlé"}`: a business as often, unless a given name on sight
            spans.append(m.span("value"))
            if not _BARE.fullmatch(m.group("key")) or givens or _full_name(kinds, m.group("value")):
                keyed.add(m.span("value"))
            bare_first = m.group("key").lower() == "first"
            if _GIVEN_ONLY.fullmatch(m.group("key")) and not (bare_first and not _LAST_KEY.search(text)):
                given_keyed.add(m.span("value"))
    if "<" in text and "@" in text:
        for m in _DISPLAY.finditer(text):
            if not mailboxes.is_role(m.group("address"), program):
                spans.append(m.span("value"))
                if _spelled(m.group("value"), m.group("address")):
                    keyed.add(m.span("value"))  # `"Grace Mwangi" <grace.mwangi@...>`: the address spells its name
                    spelled.add(m.span("value"))
                elif _spelled_alone(m.group("value"), m.group("address")):
                    spelled.add(m.span("value"))  # `Florence <florence.m@gmail.com>`: a given name it spells
    if _CAPS.search(text):
        spans += _capital_names(kinds, text)
    if "\n" in text:
        for kind, span, column in _table_cells(text):
            if kind == "PERSON":
                spans.append(span)
                if not _BARE.fullmatch(column) or _full_name(kinds, text[span[0] : span[1]]):
                    keyed.add(span)
        for kind, span in _headerless(kinds, text):
            if kind == "PERSON":
                spans.append(span)
                keyed.add(span)
    if "," in text:
        for m in _QUOTED_PAIR.finditer(text) if '"' in text or "'" in text else ():
            if _quoted_pair(kinds, text, m):
                spans += [m.span("given"), m.span("surname")]
                keyed.update((m.span("given"), m.span("surname")))
        for m in _QUOTED_INVERTED.finditer(text):
            if _quoted_inverted(kinds, m.group("name")):
                spans.append(m.span("name"))
                keyed.add(m.span("name"))
        for m in _UNQUOTED_INVERTED.finditer(text):
            if _unquoted_inverted(kinds, m.group("name")):
                spans.append(m.span("name"))
    if "(" in text or "SSN" in text:
        for m in _BESIDE_SSN.finditer(text):
            group = next(g for g in ("name", "name2", "name3") if m.group(g))
            key = fold(m.group(group))
            if kinds.lex.wordiness(key) < 0.5 and not kinds.product(key) and not kinds.lex.knows_place(key):
                spans.append(m.span(group))
                keyed.add(spans[-1])
    if "/" in text or "^" in text:
        for m in _SLASHED.finditer(text):
            line = text.rfind("\n", max(0, m.start() - 200), m.start()) + 1 or max(0, m.start() - 200)
            if _SEGMENT.match(text, line):
                continue  # an HL7 segment's names are read by their fields, below
            family, given = m.group("family") or m.group("family2"), m.group("given") or m.group("given2")
            surname = fold(family)
            plain = surname not in kinds.lex.words and not kinds.product(surname) and not kinds.big_place(surname)
            if kinds.given(fold(given)) == 2 and min(len(family), len(given)) > 2 and plain:
                spans.append(m.span())
                keyed.add(m.span())
    if ("VALUES" in text.upper() and "INSERT" in text.upper()) or "STDIN" in text.upper():
        for kind, span, column in _inserted(text):
            if kind == "PERSON":
                spans.append(span)
                if not _BARE.fullmatch(column):
                    keyed.add(span)
    shaped: list[tuple[int, int]] = []
    if "PID|" in text or "NK1|" in text:
        for m in (*_HL7_PID.finditer(text), *_HL7_NK1.finditer(text)):
            if not {fold(m.group("family")), fold(m.group("given"))} & _NOT_NAMES:  # `TEST^PATIENT`
                shaped += [m.span("family"), m.span("given")]
    spans += shaped
    seen, mine = Overlaps(taken), Overlaps()
    keys = Overlaps(("", a, b) for a, b in keyed)
    hl7 = set(shaped)
    for a, b in spans:
        place = (a, b) in spelled  # `From: Florence <florence.m@gmail.com>`: the person the address spells
        given_key = (a, b) in given_keyed
        a, b = _trimmed(text, a, b)
        comma = text.find(",", a, b)
        after = [fold(w) for w in text[comma + 1 : b].split()[:1]] if comma > a else []
        next_value = bool(after) and (kinds.given(after[0]) < 2 or kinds.lex.wordiness(after[0]) >= WORDY)
        if next_value and len([w for w in text[a:comma].split() if w not in _PARTICLES]) > 1:
            b = comma  # `Ingeborg Schäfer, Ofen 1`: a name in its order, then the record's next value; not
            # `Sánchez Ortega, Lucía`
        # a name the rules found part of (`Mills` in `Hunter Mills <...>`) gives way: the findings' overlaps
        # keep the longer one
        clash = any(
            (kind != "PERSON" and not (place and kind == "LOCATION")) or s < a or e > b
            for kind, s, e in seen.over(a, b)
        )
        clash = clash or bool(mine.over(a, b))  # a field's value in capitals is read once
        value = text[a:b].replace("/", " ").replace("^", " ")  # `HUBER/KATHARINA`, `GARCIA^LUCIA`
        # under a key only a person has (HL7's, `last_name`), one word no lexicon knows is a name too: `Mwangi`
        own = (a, b) in hl7 or any(s <= a and b <= e for _, s, e in keys.over(a, b))
        named = _named(kinds, value, shaped=own, given_key=given_key)
        if b > a and not clash and named and (own or _named_in_script(kinds, value)):
            person = ("PERSON", a, b)
            out.append(person)
            seen.add(person)
            mine.add(person)
            if sure is not None and own:
                sure.add(person)
    return out


_DECLARED_BEFORE = re.compile(r"\b(?:class|new|import|from|extends|implements|struct|enum|interface|type)\s+\Z")


def code_names(kinds: Kinds, text: str, taken: list[Span]) -> list[Span]:
    """People inside code, where no other reader looks, apart from what `taken` overlaps: inline code that is a
    name and nothing else (`Şükrü Çelik`, `Ludwig van der Heijden`); and in any code, a given name on sight
    then a surname the lexicons know (`print(user)  # Rashida Bello`)."""
    spans = cues.code_spans(text)
    if not spans:
        return []
    seen, out = Overlaps(taken), []
    for start, end in spans:
        inline = not text.startswith("```", start)
        inner = (start + 1, end - 1) if inline else (start + 3, end - 3 if text.endswith("```", 0, end) else end)
        for run in _particled(text[inner[0] : inner[1]], cues.runs(text[inner[0] : inner[1]])):
            if not 2 <= len(run) <= 4:
                continue
            a, b = inner[0] + run[0].start, inner[0] + run[-1].end
            called = b < len(text) and text[b] in "(."  # `Grace Hopper()`, `Maria.service`
            if seen.over(a, b) or called or _DECLARED_BEFORE.search(text, max(0, a - 12), a):
                continue
            whole = inline and (a, b) == inner
            if _code_person(kinds, [t.key for t in run], whole):
                out.append(("PERSON", a, b))
                seen.add(("PERSON", a, b))
    return out


def _particled(text: str, runs: list[list[cues.Token]]) -> list[list[cues.Token]]:
    """`runs` with those that a surname's particles part joined: `Ludwig` `van der` `Heijden`."""
    out: list[list[cues.Token]] = []
    for run in runs:
        gap = text[out[-1][-1].end : run[0].start] if out else ""
        if out and gap.startswith(" ") and gap.endswith(" ") and all(w in _PARTICLES for w in gap.split()):
            out[-1] = out[-1] + run
        else:
            out.append(run)
    return out


def _code_person(kinds: Kinds, keys: list[str], whole: bool) -> bool:
    if " ".join(keys) in PERSONAS or " ".join(keys) in kinds.lex.places:
        return False
    if any(kinds.product(k) and kinds.given(k) < 2 for k in keys):
        return False
    if kinds.given(keys[0]) == 2 and keys[-1] in kinds.lex.surnames:
        return True
    # the whole of an inline code: a name, if the lexicons know one of its words as a name's and none as a word's
    named = kinds.given(keys[0]) or keys[-1] in kinds.lex.surnames
    return whole and bool(named) and not any(k in kinds.lex.words and not kinds.given(k) for k in keys)


_HTML_CELL = re.compile(r"<t[dh](?:\s[^<>]*)?>([^<>\n]*)</t[dh]>")


def _cells(line: str, pair: bool = False) -> tuple[str, list[tuple[int, int]]] | None:
    """A line's delimiter and its cells' spans (each less its quotes and spaces), if it is a table's row; `pair`:
    two cells a comma parts are one too (a two-column CSV's, under or as its header: `name,town`)."""
    if "þ" in line:
        delimiter, parts = "þ", [m.span(1) for m in re.finditer(r"þ([^þ\n]*)þ", line)]
    elif "</td>" in line or "</th>" in line:  # an HTML table's row: `<tr><td>Ahmed Al-Farsi</td><td>Muscat</td>`
        delimiter, parts = "<", [m.span(1) for m in _HTML_CELL.finditer(line)]
    else:
        delimiter = max("|\t;,", key=line.count)
        # two columns only where a pipe or a tab parts them (psql's `name | town`), not a comma's or a semicolon's
        if line.count(delimiter) < (1 if delimiter in "|\t" or (pair and delimiter == ",") else 2):
            return None
        parts, start = [], 0
        for cell in line.split(delimiter):
            parts.append((start, start + len(cell)))
            start += len(cell) + 1
    out = []
    for a, b in parts:
        while a < b and line[a] in " \"'":
            a += 1
        while b > a and line[b - 1] in " \"'":
            b -= 1
        out.append((a, b))
    return (delimiter, out) if len(out) > 1 else None


def _column_kinds(columns: list[str], people: bool = True) -> dict[int, str]:
    """Which columns hold a person's name and which a place, by their names: a table's header, an INSERT's
    columns. A bare `name` is a person's only in a table of `people`."""
    out = {}
    for i, column in enumerate(columns):
        if _CELL_KEY.fullmatch(column) and (people or not _BARE.fullmatch(column)):
            out[i] = "PERSON"
        elif _CELL_PLACE.fullmatch(column):
            out[i] = "LOCATION"
    return out


_RULE_CHARACTERS = frozenset(" \t|+:-")


def _rule(line: str) -> bool:
    """The rule under a table's header: psql's `------+------`, Markdown's `|---|:---:|` (read in one pass)."""
    return "---" in line and set(line) <= _RULE_CHARACTERS


def _table_cells(text: str) -> list[tuple[str, tuple[int, int], str]]:
    """The cells under a table's person's and place's columns, as ("PERSON" or "LOCATION", their span, their
    column's name)."""
    return _tables(text)[0]


def header_cells(text: str) -> list[tuple[int, int]]:
    """The cells of a table's header that name a person's or a place's column, where two or more do
    (`Id;Nom;Ville;Téléphone`: `Nom`, `Ville`): a column's name, not a person's (Finnish's `Ville`). A row
    under a header is no header (`Etunimi;Sukunimi;Kaupunki` then `Ville;Virtanen;Espoo`)."""
    return _tables(text)[1]


def _tables(text: str) -> tuple[list[tuple[str, tuple[int, int], str]], list[tuple[int, int]]]:
    """_table_cells' cells, and header_cells' cells (read in one pass)."""
    out: list[tuple[str, tuple[int, int], str]] = []
    named: list[tuple[int, int]] = []
    header: tuple[str, int, dict[int, tuple[str, str]]] | None = None  # delimiter, width, columns' kinds and names
    start = 0
    for line in text.split("\n"):
        if header is not None and _rule(line):
            start += len(line) + 1
            continue  # the rule under a header: psql's `------+------`, Markdown's `|---|---|`
        cells = _cells(line)
        if cells is None and (_PAIR_HEADER.fullmatch(line) or (header is not None and header[:2] == (",", 2))):
            cells = _cells(line, pair=True)  # a two-column CSV: `name,town` / `Eilidh Rankin,Oban`
        if cells is None:
            header = None
        elif header is not None and cells[0] == header[0] and len(cells[1]) == header[1]:
            for i, (kind, column) in header[2].items():
                a, b = cells[1][i]
                out.append((kind, (start + a, start + b), column))
        else:
            header = _header(line, cells)
            if header is not None and len(header[2]) > 1:
                named += [(start + cells[1][i][0], start + cells[1][i][1]) for i in header[2]]
        start += len(line) + 1
    return out, named


_PAIR_HEADER = re.compile(r"[A-Za-z][\w\-]*,[A-Za-z][\w\-]*")  # a two-column CSV's header: `name,town`


def _header(line: str, cells: tuple[str, list[tuple[int, int]]]) -> tuple[str, int, dict[int, tuple[str, str]]] | None:
    """A table's header: its delimiter, its width, and the kinds and names of the columns that hold a person's
    name or a place; None for a line that is no header."""
    names = [line[a:b] for a, b in cells[1]]
    kinds = {i: (kind, names[i]) for i, kind in _column_kinds(names).items()}
    # (Markdown's `| Club | Ort |` has an empty cell at either end)
    inner = names[1:-1] if len(names) > 2 and not names[0] and not names[-1] else names
    plain = all(re.fullmatch(r"[A-Za-z][\w\-]*", name) for name in inner)
    return (cells[0], len(names), kinds) if kinds and plain else None


def _headerless(kinds: Kinds, text: str) -> list[tuple[str, tuple[int, int]]]:
    """A table without a header, read by its columns (`Müller;Sabine;Freiburg;Salsa`, `Keller;Jonas;Lahr;Tango`,
    two rows or more of as many cells): a column of given names on sight is people's, a column of one capitalised
    word beside it that no lexicon holds as a word is their surnames, a column of places the lexicons know is
    places', where the rows hold people (no codenames' table) who are somewhere, reachable, or have common
    surnames (not `Athena,Zeus,replica,10.0.0.2`). Each cell is read on its own too: a column says what most of
    its cells are, not all of them."""
    rows = _rows_of_cells(text)
    out: list[tuple[str, tuple[int, int]]] = []
    for table in rows:
        values = [[text[a:b] for a, b in row] for row in table]
        width = len(values[0])
        given = {i for i in range(width) if _most(values, i, lambda v: _given_cell(kinds, v))}
        for i in sorted(given):
            if i + 1 in given:  # `Keller;Jonas`: surnames are given names too; the census's surnames say which
                counts = [sum(fold(row[j]) in kinds.lex.surnames for row in values) for j in (i, i + 1)]
                given.discard(i if counts[0] >= counts[1] else i + 1)
        surnames = {
            i
            for i in range(width)
            if i not in given
            and {i - 1, i + 1} & given
            and _most(values, i, lambda v: _surname_cell(kinds, v))
            and not _most(values, i, lambda v: _place_cell(kinds, v))  # `Freiburg;Emmendingen;Lahr`: places
        }
        # a given name is a person's where a surname's column is beside it: `Luna,cat` is a pet's
        given = {i for i in given if {i - 1, i + 1} & surnames}
        surnames = {i for i in surnames if {i - 1, i + 1} & given}
        named = given | surnames
        if not named:
            continue  # a table of no one (`Genoa,Zen 4,EPYC 9004`): its places are a product's codenames as often
        places = {i for i in range(width) if i not in named and _most(values, i, lambda v: _place_cell(kinds, v))}
        contacts = any(_PERSONAL_VALUE.search(text, row[0][0], row[-1][1]) for row in table)
        surnamed = any(_most(values, i, lambda v: kinds.common_surname(fold(v))) for i in surnames)
        if not (places or contacts or surnamed):
            continue  # people's rows say where they are or how to reach them, or their surnames are common ones;
            # `Athena,Zeus,replica,10.0.0.2` do neither
        for row in table:
            for i, (a, b) in enumerate(row):
                value = text[a:b]
                if (i in given and _given_cell(kinds, value)) or (i in surnames and _surname_cell(kinds, value)):
                    out.append(("PERSON", (a, b)))
                elif i in places and _place_cell(kinds, value):
                    out.append(("LOCATION", (a, b)))
    return out


def _rows_of_cells(text: str) -> list[list[list[tuple[int, int]]]]:
    """Runs of two lines or more that are rows of as many cells by one delimiter, in the text's positions; a
    header's line is no row (its named columns _table_cells reads; the others, `CREW`, are read here)."""
    out: list[list[list[tuple[int, int]]]] = []
    run: list[list[tuple[int, int]]] = []
    key: tuple[str, int] | None = None
    start = 0
    for line in text.split("\n"):
        cells = _cells(line) if len(line) < _ROW_REACH and not _QUOTED_DELIMITER.search(line) else None
        shape = (cells[0], len(cells[1])) if cells is not None else None
        if shape is not None and shape == key:
            run.append([(start + a, start + b) for a, b in cells[1]])  # type: ignore[index]
        else:
            if len(run) > 1:
                out.append(run)
            run = [[(start + a, start + b) for a, b in cells[1]]] if cells is not None else []
            key = shape
            names = [line[a:b] for a, b in cells[1]] if cells is not None else []
            if names and _column_kinds(names) and all(_HEADER_CELL.fullmatch(n) for n in names if n):
                run = []  # a header is no row; the rows under it are read by their columns too (not a row whose
                # cell is a key's word too: `Whitmore,Jasmine,538-88-0185,Columbus,OH,nanny`)
        start += len(line) + 1
    if len(run) > 1:
        out.append(run)
    return out


def _most(values: list[list[str]], i: int, test: Callable[[str], bool]) -> bool:
    """Two thirds at least of a column's cells pass `test`."""
    return 3 * sum(test(row[i]) for row in values) >= 2 * len(values)


def _given_cell(kinds: Kinds, value: str) -> bool:
    key = fold(value)
    return " " not in key and kinds.given(key) == 2 and not kinds.big_place(key) and not kinds.product(key)


def _surname_cell(kinds: Kinds, value: str) -> bool:
    key = fold(value)
    if _WORD_CELL.fullmatch(value) is None or value.isupper():
        return False  # `AZ`, `ICU`, `MON`: a code
    if kinds.product(key) and not kinds.common_surname(key):
        return False  # `Apollo,Hermes,primary`: hosts named after gods and products
    return key not in kinds.lex.words and not kinds.big_place(key)  # `Müller` names a brand, `Keller` a town


def _place_cell(kinds: Kinds, value: str) -> bool:
    key = " ".join(fold(value).split())
    return bool(key) and value[:1].isupper() and kinds.lex.knows_place(key) and kinds.given(key) < 2


_QUOTED_DELIMITER = re.compile(r"\"[^\"\n]*[,;|\t][^\"\n]*\"")  # `"Haddad, Rania"`: a cell _cells would split
_WORD_CELL = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+(?:[-'’][A-ZÀ-ÖØ-ÞĀ-ſ]?[^\W\d_]+)?")


def _inserted(text: str) -> list[tuple[str, tuple[int, int], str]]:
    """The values an SQL INSERT or COPY puts in a person's or a place's column, as _table_cells gives a table's."""
    out = _copied(text) if "STDIN" in text.upper() else []
    for m in INSERT.finditer(text):
        columns = [c.strip(' `"\n\t') for c in m.group("columns").split(",")]
        kinds = _column_kinds(columns, people=_PEOPLE_TABLE.fullmatch(m.group("table").strip('`"')) is not None)
        at = m.end()
        while kinds and (row := ROW.match(text, at)) is not None:
            values = [v for v in re.finditer(r"'((?:[^'\\]|\\.|'')*)'|[^,'\s][^,]*", row.group("row"))]
            if len(values) == len(columns):
                for i, kind in kinds.items():
                    value = values[i]
                    a = row.start("row") + (value.start(1) if value.group(1) is not None else value.start())
                    b = row.start("row") + (value.end(1) if value.group(1) is not None else value.end())
                    out.append((kind, (a, b), columns[i]))
            at = row.end()
    return out


def _copied(text: str) -> list[tuple[str, tuple[int, int], str]]:
    """The values a COPY's rows (CSV or tab-separated, up to `\\.`) put in a person's or a place's column."""
    out: list[tuple[str, tuple[int, int], str]] = []
    for m in _COPY.finditer(text):
        columns = [c.strip(' "\n\t') for c in m.group("columns").split(",")]
        kinds = _column_kinds(columns, people=_PEOPLE_TABLE.fullmatch(m.group("table").strip('"')) is not None)
        at = m.end()
        while kinds and at < len(text) and not text.startswith("\\.", at):
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            cells, pos = [], at
            while pos <= end:
                cell = _COPY_CELL.match(text, pos, end)
                if cell is None:
                    break
                group = 1 if cell.group(1) is not None else 2
                cells.append(cell.span(group))
                pos = cell.end() + 1  # past the delimiter
            if len(cells) == len(columns):
                out += [(kind, cells[i], columns[i]) for i, kind in kinds.items()]
            at = end + 1
    return out


# a street and its number, as an address writes them: `Rua Augusta 142`, `Calle de Alcalá 221`, `Storgatan 18`,
# `Váci út 84`, `221B Baker Street`, `12 Oak Road`
_STREET_BEFORE = (
    r"(?:Rua|Calle|Carrer|Avenida|Av\.|Avenue|Rue|Via|Viale|Piazza|Plaza|Praça|Largo|Travessa|Rambla|Paseo|"
    r"Jalan|Jl\.|Ulica|ul\.|Aleja|al\.|Plac|Calea|Strada|Bulevar|Boulevard|Odos|Leoforos)"
)
# English writes the number first (`12 Oak Road`); not `Drive`, `Way`, `Place`: `Hard Drive 2`, `Test Drive`
_STREET_AFTER = (
    r"(?:Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Lane|Ln\.?|Boulevard|Blvd\.?|Terrace|Crescent|Close|Court|Mews|Vale|"
    r"Gardens)"
)
# written after the street's name and before its number: Hungarian `Váci út 84`, German `Mariahilfer Straße 88`,
# Turkish `Bağdat Caddesi No:112`
_STREET_AFTER_NUMBERED = (
    r"(?:utca|út|körút|tér|Straße|Strasse|Caddesi|Cad\.|Sokak|Sokağı|Bulvarı)"
    r"(?:[ \t]+No[:.][ \t]*|[ \t]+)"
)
# words that name other things too (`Auf Platz 3`, `2 Column View`), a street's only before its town (below)
_STREET_AFTER_BEFORE_TOWN = r"(?:Gasse|Allee|Platz)"
_STREET_BEFORE_TOWN = r"(?:Drive|Dr\.?|Way|Place|Pl\.?|Parade|View|Highway|Hwy|Circuit|Grove|Row|Walk|Square)"
# a street's word, bounded so that a long run of joined words is not tried from each of its capitals
_STREET_WORD = r"[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]{0,40}(?:[-'’][^\W\d_]{1,40}){0,4}"
_STREET_JOINED = (  # one word with its street's word: `Storgatan`, `Hauptstraße`, `Keizersgracht`
    r"[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]{3,}(?:gatan|vägen|gade|vej|veien|laan|straat|gracht|kade|singel|weg|straße|strasse|"
    r"gasse|allee|platz|str\.)"
)
_NUMBER = r"\d{1,5}[A-Za-z]?(?:[-/]\d{1,4}[A-Za-z]?)?"
_VIET_WORD = r"[A-ZĐÀ-ÝẠ-Ỹ][^\W\d_]*"  # a Vietnamese capitalised word (not `đi`, `đã`: lower case)
# a street with no number, after a preposition of place: one word with its street's word (`i Trondheimsveien`,
# `op de Oudegracht`) or a street's word no English word first (`cerca del Paseo de la Alameda`, `dekat Jalan
# Braga`, `on Rue des Martyrs`)
_UNNUMBERED = re.compile(
    r"(?<![\w\-])(?:in|on|at|near|off|i|på|ved|auf|an|am|im|op|aan|bij|w|v|na|u|en|cerca|junto|a|em|di|dekat|à|"
    r"sur|dans|nella)[ \t]+(?:(?:der|dem|den|de|del|la|el|the|al|alla|da|do)[ \t]+)?"
    r"(?P<street>(?P<joined>[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]{3,}(?:gatan|vägen|gade|vej|veien|vegen|gata|straat|gracht|straße|"
    r"strasse))"
    r"|(?:Paseo|Calle|Carrer|Avenida|Avinguda|Rua|Praça|Plaça|Rambla|Jalan|Ulica|Aleja|Calea|Strada|Bulevar|Piazza|"
    r"Travessa|Via|Viale|Corso|Rue)[ \t]+(?P<particles>(?:(?:de|del|da|do|dos|das|di|dei|della|delle|la|le|les|des|du)"
    r"[ \t]+)*)(?P<name>[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+(?:[ \t]+[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+)?))"
    r"(?![\w\-]|[ \t]*,?[ \t]*\d)"  # (numbered: below)
)
_STREET_PARTICLES = _words("de del da do dos das di dei degli della delle dello la le les des du")
_STREET_PARTICLE = "(?:" + "|".join(sorted(_STREET_PARTICLES, key=lambda w: (-len(w), w))) + ")"
_ADDRESS = re.compile(
    rf"(?<![\w\-])(?:{_STREET_BEFORE}[ \t]+(?:{_STREET_PARTICLE}[ \t]+)*{_STREET_WORD}"
    rf"(?:[ \t]+(?:{_STREET_PARTICLE}[ \t]+)*{_STREET_WORD}){{0,3}},?[ \t]+{_NUMBER}"
    rf"|{_STREET_WORD}(?:[ \t]+{_STREET_WORD}){{0,2}}[ \t]+{_STREET_AFTER_NUMBERED}{_NUMBER}"
    rf"|{_STREET_JOINED}[ \t]+{_NUMBER}"
    rf"|{_NUMBER}[ \t]+{_STREET_WORD}(?:[ \t]+{_STREET_WORD}){{0,2}}[ \t]+{_STREET_AFTER}"
    # Vietnamese's number, then the street's word, then its name: `12 Phố Hàng Mây`, `45 Đường Lê Lợi`
    # (its name's words capitalised, up to a comma, a quote or the line's end; not a lesson's `Bài 3 Đường Thẳng`)
    rf"|(?<!Bài )(?<!Bước )(?<!Mục )(?<!Tập )(?<!Lớp )(?<!Top )(?<!Tuần )(?<!Chương ){_NUMBER}[ \t]+"
    rf"(?:Phố|Đường|Ngõ|Hẻm)[ \t]+(?!(?:Thẳng|Tròn|Dây|Dẫn|Truyền|Ống|Phố|Cụt|Cổ|Đi)\b){_VIET_WORD}"
    rf"(?:[ \t]+{_VIET_WORD}){{0,3}}(?=[,\n\"']|\Z))"
    rf"(?![\w\-])"
)
# a street whose word names other things too, read only before its town: `9 Harbour View, Ballina`, `Währinger
# Gasse 12, 1090 Wien`; not `2 Column View, Then refresh`, `Auf Platz 3 landete`
_BEFORE_TOWN = re.compile(
    rf"(?<![\w\-])(?:{_NUMBER}[ \t]+{_STREET_WORD}(?:[ \t]+{_STREET_WORD}){{0,2}}[ \t]+{_STREET_BEFORE_TOWN}"
    rf"|{_STREET_WORD}(?:[ \t]+{_STREET_WORD}){{0,2}}[ \t]+{_STREET_AFTER_BEFORE_TOWN}[ \t]+{_NUMBER})"
    r"(?=,[ \t]*(?:(?:\d{4,5}|\d{3}[ \t]\d\d)[ \t]+)?(?P<town>[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+))"
)


# Italian's, Spanish's, Portuguese's and Catalan's street written in lower case, its number, then its town:
# `via dei Coronari 12, Roma`, `calle de Toledo 45, 28005 Madrid` (read only where the lexicons know the town:
# `via` is English's too)
_LOWER_STREET = re.compile(
    r"(?<![\w\-])(?:via|viale|corso|piazza|piazzale|vicolo|calle|avenida|rua|carrer|avinguda|paseo|plaza|travessa)"
    rf"[ \t]+(?:{_STREET_PARTICLE}[ \t]+)*{_STREET_WORD}(?:[ \t]+(?:{_STREET_PARTICLE}[ \t]+)*{_STREET_WORD}){{0,3}}"
    rf",?[ \t]+{_NUMBER}(?![\w\-])(?=,)"
)


# what an address follows: a line's or a field's start, a comma, a bracket, a preposition of place or an address's
# word (not a verb's `via`: `Deployed via Helm 3, Berlin team`, `spedito via Bartolini 2, Napoli`)
_BEFORE_LOWER_STREET = re.compile(
    r"(?:^|[,:;(\[\"'—–][ \t]*|(?<![\w\-])(?i:a|in|presso|en|em|na|no|at|à|sito|sita|situato|situata|indirizzo|"
    r"dirección|direccion|endereço|endereco|morada|domicilio|residente|vive|abita|vivo)[ \t]+)\Z",
    re.M,
)


def _lower_street(kinds: Kinds, text: str, m: re.Match[str]) -> bool:
    """A lower-case street (`via dei Coronari 12, Roma`) where an address stands, its words no product's (`via Helm
    3`, `corso Python 3`), before a town the lexicons know."""
    if _BEFORE_LOWER_STREET.search(text, max(0, m.start() - 14), m.start()) is None:
        return False
    words = [fold(w) for w in re.findall(r"[^\W\d_]+", m.group())[1:]]
    if any(kinds.product(w) for w in words if w not in _STREET_PARTICLES):
        return False
    return _town(kinds, _TOWN_AFTER.match(text, m.end())) is not None


# a form's placeholder street or town: `Musterstraße 1, 12345 Musterstadt`, `Beispielweg 3`, `123 Anytown Road`
_PLACEHOLDER = re.compile(r"(?i:muster|beispiel|anytown|exampleville)|範例|范例|示例")  # `範例市`: Example City


# a street, a town or a village in Russian's, Ukrainian's and Bulgarian's addresses, its kind's word or that word's
# abbreviation before it: `ул. Баумана, 44`, `вулиця Хрещатик 22`, `г. Казань`, `у селі Яблунів` (not the
# abbreviations that say a page, a translator or a payment as often: `с.`, `пер.`, `пл.`)
_CYRILLIC_PLACE = re.compile(
    # (and a region's adjective before its kind's word: `Івано-Франківська область`, `Ташкентской области`)
    r"(?P<region>(?<![\w\-])[А-ЯЁІЇЄҐ][а-яёіїєґ]+(?:-[А-ЯЁІЇЄҐ][а-яёіїєґ]+)?(?:ская|ской|скую|ська|ській|ську|ский|"
    r"ського|ском)[ \t]+(?:област[ьиі]|обл\.|район[аеу]?|кра[йюя]|округ[аеу]?)(?![\w\-]))|"
    # a street of one or two words, then its number
    r"(?<![\w.])(?P<street>ул\.|улица|улице|улицу|вул\.|вулиця|вулиці|пр-т|просп\.|проспект[еа]?|переулок|провулок|"
    r"бул\.|бульвар[еа]?|наб\.|набережная|площадь|площа)[ \t]*"
    r"(?P<name>[А-ЯЁІЇЄҐ][а-яёіїєґ'’]+(?:-[А-ЯЁІЇЄҐ]?[а-яёіїєґ'’]+)*(?:[ \t]+[А-ЯЁІЇЄҐ][а-яёіїєґ'’]+)?)"
    r"(?P<number>,?[ \t]*(?:д\.|буд\.)?[ \t]*\d+[а-я]?(?:/\d+)?(?!\d))?|"
    # a town or a village, one word (not a length's `5 м.`)
    r"(?<![\w.])(?<!\d)(?<!\d[ \t])(?P<town>г\.|м\.|смт|пгт|село|селе|селі|деревн[яеи]|посёлок|посёлке|поселок|"
    r"поселке|селище|селищі|місто|місті)[ \t]*(?P<place>[А-ЯЁІЇЄҐ][а-яёіїєґ'’]+(?:-[А-ЯЁІЇЄҐ]?[а-яёіїєґ'’]+)*)"
)
_CYRILLIC_LETTER = re.compile(r"[а-яё]")
_CYRILLIC_TOWN_ONLY = ("г.", "м.")  # a town's abbreviation, `Mr` too (`г. Петров`): a town the lexicons hold only


def _cyrillic_places(kinds: Kinds, text: str) -> list[Span]:
    """Streets (with their numbers), towns and villages their kind's word names: `ул. Баумана, 44`, `г. Казань`."""
    out: list[Span] = []
    for m in _CYRILLIC_PLACE.finditer(text):
        if m.group("region"):
            out.append(("LOCATION", *m.span("region")))
        elif m.group("street"):
            out.append(("LOCATION", m.start("name"), m.end("number") if m.group("number") else m.end("name")))
        elif m.group("town") not in _CYRILLIC_TOWN_ONLY or _script_place(kinds, m.group("place")):
            out.append(("LOCATION", *m.span("place")))  # (not `г. Петрову`: Mr Petrov)
    return out


def street_places(kinds: Kinds, text: str, taken: list[Span]) -> list[Span]:
    """Streets with their numbers, where an address writes them (`Rua Augusta 142`, `Storgatan 18`, `221B Baker
    Street`), as places; apart from what `taken` holds other than people (a person's reading gives way)."""
    seen = Overlaps(span for span in taken if span[0] != "PERSON")
    out: list[Span] = []
    for m in _UNNUMBERED.finditer(text):
        a, b = m.span("street")
        if _unnumbered_thing(kinds, text, m):
            continue
        if not seen.over(a, b) and not _PLACEHOLDER.search(text, a, b) and not where_systems_run(text, a, b):
            out.append(("LOCATION", a, b))
            seen.add(out[-1])
    for span in _cyrillic_places(kinds, text) if _CYRILLIC_LETTER.search(text) else ():
        if not seen.over(span[1], span[2]):
            out.append(span)
            seen.add(span)
    if not any(c.isdigit() for c in text):
        return out
    postal = [
        m
        for m in _POSTAL.finditer(text)
        if _town(kinds, _TOWN_AFTER.match(text, m.end()))
        and not _wordy_street(kinds, m)
        and not _numbered_thing(kinds, m)
    ]
    # before a town: one the lexicons know, or a word that is no English word (`Ballina`; not `Then`)
    towns = [
        m
        for m in _BEFORE_TOWN.finditer(text)
        if kinds.lex.knows_place(fold(m.group("town"))) or fold(m.group("town")) not in kinds.lex.words
    ]
    lower = [m for m in _LOWER_STREET.finditer(text) if _lower_street(kinds, text, m)]
    read = Overlaps()
    for m in [*_ADDRESS.finditer(text), *postal, *towns, *lower]:
        a, b = m.span()
        if read.over(a, b):
            continue  # read by another pattern
        read.add(("LOCATION", a, b))
        # a place inside the address is the address's (`1600 Pennsylvania Avenue`); one across its edge wins
        across = any(s < a or e > b for _, s, e in seen.over(a, b))
        if across or where_systems_run(text, a, b) or said.tech_after(text, b) or _PLACEHOLDER.search(text, a, b):
            continue  # `Musterstraße 1`: a form's placeholder address, no one's
        out.append(("LOCATION", a, b))
        town = _town(kinds, _TOWN_AFTER.match(text, b))  # `Rua da Prata 58, Lisboa`: the town the address is in
        if town is not None:
            out.append(("LOCATION", *town))
    if "ddr" in text or "dres" in text or "DDR" in text or "DRES" in text:
        for span in out:
            seen.add(span)
        out += _address_fields(kinds, text, seen)
    return out


# an address's field whose street has no street's word: `kiosk_address: "Bryggen 17, Bergen"`, `Adresse: Lange
# Reihe 42, Hamburg`; the value is read whole when it is a street and its number, then (after its postcode) a town
# the lexicons know
_ADDRESS_FIELD = re.compile(
    r"(?<![\w\-.])(?i:(?:[a-z]+_){0,2}(?:address|addr|adresse?|adresa|anschrift|indirizzo|endere[çc]o|"
    r"direcci[óo]n|osoite|adress)(?:_?line)?_?[12]?)"
    r"(?:[\"']?[ \t]*[=:][ \t]*[\"']?|[\"'][ \t]*:[ \t]*[\"']|>)"
    r"(?P<value>(?P<street>[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+(?:[ \t][A-ZÀ-ÖØ-ÞĀ-ſa-zß][^\W\d_]*){0,2}[ \t]\d{1,5}[A-Za-z]?)"
    r"(?=,)[^\"'<\n@/]{0,60}?)[ \t]*(?=[\"'<\n]|\Z)"
)


# a building's, a hall's or a floor's word in other languages: `Halle 5, Köln`, `Bâtiment 3, Lyon`
_BUILDINGS = _words(
    "halle bâtiment batiment blok gebäude gebaude haus bau werk stand etage piano edificio hangar hall block tower "
    "gate dock pavillon pavilhão pavilhao pabellón pabellon padiglione budynek budova épület epulet rakennus"
)


def _address_fields(kinds: Kinds, text: str, seen: Overlaps) -> list[Span]:
    """The addresses in address fields that the street readers did not read: a street and its number, then a town
    the lexicons know (`Bryggen 17, Bergen`; not `Version 2, Release`), whole; apart from what `seen` holds."""
    out: list[Span] = []
    for m in _ADDRESS_FIELD.finditer(text):
        a, b = _trimmed(text, *m.span("value"))
        town = _town(kinds, _TOWN_AFTER.match(text, m.end("street")))
        if town is None or town[1] > b or seen.over(a, b) or _PLACEHOLDER.search(text, a, b):
            continue
        first = fold(m.group("street").split()[0])
        if first in kinds.lex.words or kinds.product(first) or first in _BUILDINGS:
            continue  # `address: Version 2, Berlin`, `Halle 5, Köln`: no street's name
        out.append(("LOCATION", a, b))
        seen.add(out[-1])
    return out


def _unnumbered_thing(kinds: Kinds, text: str, m: re.Match[str]) -> bool:
    """A street with no number that names something else: an English word or a product with a street's ending
    (`Renegade`), or after a street's word with no particle between (`on Via Rail`, `in Rambla Framework`);
    and one a system's word follows (`on Jalan API`)."""
    if said.tech_after(text, m.end("street")):
        return True
    if m.group("joined"):
        key = fold(m.group("joined"))
        return key in kinds.lex.words or kinds.product(key)
    if m.group("particles"):
        return False  # `Rue des Martyrs`, `Paseo de la Alameda`: a street's particle says so
    return any(fold(w) in kinds.lex.words or kinds.product(fold(w)) for w in m.group("name").split())


def _town(kinds: Kinds, town: re.Match[str] | None) -> tuple[int, int] | None:
    """The span of the known place `town` matched (its first word, if that alone is one: `Reykjavík Company`)."""
    if town is None:
        return None
    a, b = town.span(1)
    if kinds.lex.knows_place(" ".join(fold(town.group(1)).split())):
        return a, b
    first = town.group(1).split()[0]
    return (a, a + len(first)) if " " in town.group(1) and kinds.lex.knows_place(fold(first)) else None


def _wordy_street(kinds: Kinds, street: re.Match[str]) -> bool:
    """A street read by its postcode alone whose name's first word is an English word or a product's (`Ubuntu 22,
    100 Berlin`); a French street's word (`12 rue des Martyrs`) is none."""
    first = fold(street.group("named") or "")
    if _STREETS_WORD.search(street.group()):
        return False  # `Grand Rue 5`, `Lange Straße 12`: a street's own word after the English one
    return bool(first) and (first in kinds.lex.words or kinds.product(first))


# a French street's word written with a capital, then its name's first word: `3 Quai des Belges`, `5 Place
# Bellecour`; and what numbers a thing before it (`Step 2 Place Order`, `Tome 2 Route des Épices`, `vol. 3`)
_CAPITAL_FRENCH = re.compile(r"\d[\w/\-]*,?[ \t]+[A-ZÀ-Þ][^\W\d_]*[ \t]+(?P<next>[^\W\d_]+)")
_NUMBERED_THING = re.compile(
    r"(?i:\b(?:step|chapter|module|gate|lot|table|vol|tome|t|part|level|round|won)\.?[ \t]+\Z)"
)


def _numbered_thing(kinds: Kinds, street: re.Match[str]) -> bool:
    """A postcode's street read by its number-first French form whose word has a capital, that is a thing's
    number and name (`Step 2 Place Order, 2024 Paris`; `Dupont, J. Tome 2 Route des Épices, 1998 Paris`), or whose
    name's first word is a common English word and no particle (`Chapter 3 Place Holders, 1999 Paris`)."""
    if street.group("named"):
        return False
    capital = _CAPITAL_FRENCH.match(street.group())
    if capital is None:
        return False  # `12 rue des Martyrs`: the street's word in lower case, as French writes it
    text = street.string
    if _NUMBERED_THING.search(text, max(0, street.start() - 12), street.start()):
        return True
    after = fold(capital.group("next"))
    return after not in _STREET_PARTICLES and kinds.lex.words.get(after, 0) >= _FREQUENT_WORD


_STREETS_WORD = re.compile(
    r"(?i:[ \t](?:rue|straße|strasse|gasse|weg|platz|allee|via|viale|calle|carrer|rua|avenida|avenue|chemin|"
    r"route|street|road|lane|ulica|utca|gatan|gade|vej|gata|straat|laan|plein)\b)"
)


# an address by its postcode and town, whatever the street's word (`Vinohradská 48, 120 00 Praha 2`, `Laugavegur 28,
# 101 Reykjavík`, `12 rue des Martyrs, 75009 Paris`, `3 Quai des Belges, 13001 Marseille`): read only where the town
# after the postcode is a known place
_POSTAL = re.compile(
    rf"(?<![\w\-])(?:(?P<named>{_STREET_WORD})(?:[ \t]+{_STREET_WORD}){{0,2}}[ \t]+{_NUMBER}"
    rf"|{_NUMBER},?[ \t]+(?i:rue|avenue|boulevard|bd|place|allée|chemin|quai|impasse|route|cours)"
    rf"(?:[ \t]+{_STREET_PARTICLE})*[ \t]+{_STREET_WORD}(?:[ \t]+{_STREET_WORD}){{0,2}})"
    r"(?=,[ \t]*(?:\d{4}[ \t]?[A-Z]{2}|\d{4,5}|\d{3}[ \t]\d\d|\d{3})[ \t]+[A-ZÀ-ÖØ-ÞĀ-ſ])"  # `2514 EE`: Dutch
)


_ROW_PLACE = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+(?:[ \-][A-ZÀ-ÖØ-ÞĀ-ſa-z][^\W\d_]+){0,2}")
_STATE_CELL = re.compile(places.STATES)


def _row_cells(kinds: Kinds, text: str, taken: list[Span]) -> tuple[list[tuple[tuple[int, int], str]], list[Span]]:
    """A person's row without a header (`Sophie Lambert;Namur;+32 457 60 83 36`, `Chloé Martin,Lyon,JP-N5`):
    its cells that are a place's name whole (as `(span, "row")`, for record_places to look up), and the US
    states' codes among them where the row holds an SSN or a North American phone (as spans). A row is
    someone's by an SSN, an IBAN, a card, an address or a phone with its `+` in it, or by a person found in it
    where another line is as wide (a table, not a sentence's commas); a cell that is a common given name,
    unless a big place's, or a common surname, unless a large city's, is left to the readers of names
    (`Lincoln,Abraham`)."""
    cells: list[tuple[tuple[int, int], str]] = []
    states: list[Span] = []
    people = Overlaps(span for span in taken if span[0] == "PERSON")
    lines = text.split("\n")
    rows = [_cells(line) if len(line) < _ROW_REACH else None for line in lines]
    widths = [len(row[1]) if row is not None else 0 for row in rows]
    start = 0
    for line, row, width in zip(lines, rows, widths, strict=True):
        if row is not None:
            valued = _PERSONAL_VALUE.search(line) is not None
            prose = sum(len(line[a:b].split()) > _CELL_WORDS for a, b in row[1]) > 1  # `Hola, pagué con la tarjeta`
            # a person found in a row of a table (another line as wide), not in a sentence's commas
            table = widths.count(width) > 1
            # a US state's code in a US record only (an SSN, bare or not, or a North American phone): not `Maria,OK,+34`
            us = _US_VALUE.search(line) is not None or any(_SSN_CELL.fullmatch(line[a:b]) for a, b in row[1])
            if (valued or (table and people.over(start, start + len(line)))) and not prose:
                for a, b in row[1]:
                    value = line[a:b]
                    if _STATE_CELL.fullmatch(value):
                        if us:
                            states.append(("LOCATION", start + a, start + b))
                    elif value.isupper() and not valued:
                        continue  # `{ AURORA, ARCADIA, QUEEN_VICTORIA }`: an enum's, not a record's
                    elif value.lower() in cues.NEVER_ALONE:
                        continue  # `Hola, les dejo los datos ...: 3033-...`: a greeting opening a sentence
                    elif _ROW_PLACE.fullmatch(value) and not _named_person(kinds, fold(value)):
                        cells.append(((start + a, start + b), "row"))
        start += len(line) + 1
    return cells, states


def _named_person(kinds: Kinds, key: str) -> bool:
    """A common given name, unless a big place's (`Lincoln`); a common surname, unless a large city's (`Lyon`)."""
    if kinds.big_place(key):
        return False
    if kinds.given(key) == 2:
        return True
    return kinds.common_surname(key) and not kinds.large_city(key)


_FREQUENT_WORD = 10_000  # an English word this frequent is the word, whatever city it names (`Reading`, `Mobile`)
_SSN_CELL = re.compile(r"\d{9}")
_CELL_WORDS = 5  # a record's cell holds a few words; a sentence's commas make no row


# the town after an address, its postcode before it: `, 1070 Wien`, `, 105 63 Athina` (Greek, Swedish, Czech)
_TOWN_AFTER = re.compile(
    r",[ \t]*(?:(?:\d{4}[ \t]?[A-Z]{2}|\d{4,5}|\d{3}[ \t]\d\d|\d{3})[ \t]+)?"
    r"([A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+(?:[ \t][A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+)?)"
)


def record_places(kinds: Kinds, text: str, taken: list[Span], sure: set[Span] | None = None) -> list[Span]:
    """The places in `text`'s location fields (`location: Durban`, `"city": "Sevilla"`, `incident location
    Swansea`, `prefecture="Kanagawa"`): a place, a town or a region the lexicons know, and a US state's code in a
    person's record (added to `sure` too: the vetter does not second-guess two capitals), apart from what `taken`
    overlaps."""
    out: list[Span] = []
    seen = Overlaps(taken)
    table = _table_cells(text) if "\n" in text else []
    cells = [(span, column) for kind, span, column in table if kind == "LOCATION"]
    named = [span[0] for kind, span, _ in table if kind == "PERSON"]  # where the table's people are
    cells += [(span, "row") for kind, span in _headerless(kinds, text) if kind == "LOCATION"] if "\n" in text else []
    cells += [(m.span("city"), "city") for m in _HL7_CITY.finditer(text)] if "PID|" in text else []
    cells += (
        [(m.span("city"), "city") for m in _LDIF_LOCALITY.finditer(text)] if "dn:" in text or "\ncn:" in text else []
    )
    if ("VALUES" in text.upper() and "INSERT" in text.upper()) or "STDIN" in text.upper():
        cells += [(span, column) for kind, span, column in _inserted(text) if kind == "LOCATION"]
    tabled = any(c in text for c in ",;|\t") or "</td>" in text
    rows, states = _row_cells(kinds, text, taken) if tabled else ([], [])
    cells += rows
    for span in states:
        if not seen.over(span[1], span[2]):
            out.append(span)
            if sure is not None:
                sure.add(out[-1])
    for (a, b), column in cells:
        key = " ".join(fold(w) for w in text[a:b].split())
        lex = kinds.lex
        known = key in lex.places or key in lex.towns or key in lex.regions or key.replace(" ", "") in lex.places
        known = known or _script_place(kinds, text[a:b])  # `| Χανιά |` under `Πόλη`
        if known and column.lower().endswith("region") and _deployed(text, a, lex.places.get(key)):
            known = False  # a deployment's `region` (`Europe`; `| Frankfurt | eu-central-1 |`), no one's place
        # a town's column holds towns, those no lexicon holds too (`name,town` / `Eilidh Rankin,Oban`), in a row
        # whose person's cell holds a name of two words (not an acronym, a word, a product, a name, a placeholder's
        # `Anytown`, `Musterstadt`, `Testville`, `Contoso`)
        if not known and _TOWN_COLUMN.fullmatch(column) is not None and _TOWN_CELL.fullmatch(text[a:b]) is not None:
            line = (text.rfind("\n", 0, a) + 1, text.find("\n", b) % (len(text) + 1))
            persons = any(line[0] <= n < line[1] and _FULL_NAME_CELL.match(text, n) for n in named)
            # (or any, before a US state's code in a person's row: `| Bisbee | AZ`, a surname's word too)
            known = persons and (_unknown_town(kinds, text[a:b], key) or places.state_after(text, b))
        # a country's column holds countries, in any language: `Việt Nam`, `Maroc`
        country = _COUNTRY.fullmatch(column) is not None and _WORDS.fullmatch(text[a:b]) is not None and b - a > 3
        # a US state's column its codes only, in a US person's row: `name,city,state,ssn` / `...,Cheyenne,WY,...`
        # (not a job table's `state` of `OK` or `Normal`)
        if column.lower().rsplit("_", 1)[-1] == "state":
            known = _state_cell(text, a, b, named)
        # a person's reading of the same cell gives way (names.py): the column says what it is
        if b > a and (known or country) and not any(k != "PERSON" for k, _, _ in seen.over(a, b)):
            out.append(("LOCATION", a, b))
            seen.add(("LOCATION", a, b))
            if sure is not None and column != "row":
                sure.add(out[-1])  # a place under a place's column (`| Ort |`, `city`): the header says what it is
    out += _fields(kinds, text, seen)
    out += _set_places(kinds, text, seen)
    out += _listed_labels(kinds, text, seen) if "**" in text else []
    out += _place_lists(kinds, text, seen) if "[" in text or "(" in text else []
    lowered = text.lower()
    for m in _STATE_FIELD.finditer(text) if "state" in lowered else ():
        if _wordy_shape(text, m):
            continue
        owner = [w for w in (m.group("owner") or "").lower().split("_") if w]
        owned = any(w in _PERSONS_STATES or w in _TEST_OWNERS for w in owner)
        if owner and not owned and not _owned_city(text, m, seen) and not _owned_person(text, m, seen):
            continue  # `health_state: OK`, `kyc_state=OK`: a process's state
        # a US record's: an SSN or a North American phone near, or its city read just before (`"city": "Honolulu",
        # "state": "HI"`)
        near = text[max(0, m.start() - _STATE_REACH) : m.end() + _STATE_REACH]
        city = any(k == "LOCATION" for k, _, _ in seen.over(max(0, m.start() - _CITY_REACH), m.start()))
        code = next(g for g in ("code", "kw", "pic") if m.group(g) is not None)
        if (_US_VALUE.search(near) or city) and not seen.over(*m.span(code)):
            out.append(("LOCATION", *m.span(code)))
            if sure is not None:
                sure.add(out[-1])
    # a US state's whole name as a record's `state` (`"state":"Texas"`), a place whoever the record's; a place in
    # an address's microformat or markup (`<span class="locality">Hilo</span>`, `itemprop="addressRegion"`)
    spans = [m.span("name") for m in _STATE_NAME_FIELD.finditer(text)] if "state" in lowered else []
    spans = [(a, b) for a, b in spans if (place := kinds.lex.places.get(fold(text[a:b]))) and place.kind == "state"]
    if "class=" in text or "itemprop" in text:
        spans += [m.span("value") for m in _ADDRESS_MARKUP.finditer(text) if _marked_place(kinds, m)]
    for a, b in spans:
        if not seen.over(a, b):
            out.append(("LOCATION", a, b))
            seen.add(out[-1])
    return out


# a list of towns under its key: `cities = ["Lyon", "Lille"]`, `"branches": ["Galway", "Sligo"]`, `orte = (...)`,
# R's `origen = c("Valparaíso", "Rancagua")`;
# not regions, zones or sites, which a deployment's lists name as often
_PLACE_LIST = re.compile(
    r"(?<![\w\-])[\"']?(?i:cities|towns|villages|places|destinations|branches|stores|shops|offices|stops|"
    r"orte|st[äa]dte|staedte|filialen|villes|ciudades|cidades|citt[àa]|lugares|localidades|sucursales|steden|"
    r"plaatsen|vestigingen|st[äa]der|byer|miasta|kaupungit|city|town|branch|destination|ort|stadt|ville|ciudad|"
    r"cidade|shop|store|origin|origen|origem|destino)[\"']?[ \t]*(?:=>|<-|[=:])[ \t]*(?:c\(|[\[(])"
    r"(?P<items>[^\[\](){}\n]{1,300})[\])]"
)
_LIST_ITEM = re.compile(r"[\"']?(?P<item>[^\W\d_][^\"',;\n]{0,40}?)[\"']?[ \t]*(?:[,;]|\Z)")


def _place_lists(kinds: Kinds, text: str, seen: Overlaps) -> list[Span]:
    """The towns in a list under a key for towns (`cities = ["Lyon", "Lille"]`): each one the lexicons know as a
    place, no English word's, product's or given name's on sight (not `Reading`, `Phoenix`, `Florence`)."""
    out: list[Span] = []
    for m in _PLACE_LIST.finditer(text):
        for item in _LIST_ITEM.finditer(text, m.start("items"), m.end("items")):
            a, b = item.span("item")
            key = " ".join(fold(w) for w in text[a:b].split())
            known = kinds.lex.knows_place(key) and key not in kinds.lex.words and not kinds.product(key)
            if known and kinds.given(key) < 2 and text[a].isupper() and not seen.over(a, b):
                out.append(("LOCATION", a, b))
                seen.add(out[-1])
    return out


# a Markdown list item's bold label: `- **Arequipa**: Rosa Quispe, +51 ...`, `* **Lima:** see CRM`
_BOLD_LABEL = re.compile(r"(?m)^[ \t]*[-*+][ \t]+\*\*(?P<label>[^\W\d_][^*\n]{1,38}?)(?::\*\*|\*\*[ \t]*:)")


def _listed_labels(kinds: Kinds, text: str, seen: Overlaps) -> list[Span]:
    """A list's bold labels that are places where most of its labels are and one names someone (`- **Uji**: see
    CRM` / `- **Nantou**: Lin Mei-hua, +886 ...`): a place the lexicons know, no product's, English word's or
    given name's on sight (not a meeting's `- **Alice**: owns the migration`, a wine list's `- **Rioja**: 4
    bottles`); added to `seen` too."""
    labels = [m.span("label") for m in _BOLD_LABEL.finditer(text)]
    if len(labels) < 2:
        return []

    def place(a: int, b: int) -> bool:
        key = " ".join(fold(w) for w in text[a:b].split())
        known = kinds.lex.knows_place(key) or _script_place(kinds, text[a:b])
        return known and not kinds.product(key) and key not in kinds.lex.words and kinds.given(key) < 2

    placed = [(a, b) for a, b in labels if place(a, b)]
    if 2 * len(placed) < len(labels):
        return []

    # a list of places people are at: one of its places' items names someone or holds a personal value (not a
    # wine list's `**Bordeaux**: 12 bottles`, release codenames, meeting rooms)
    def peopled(b: int) -> bool:
        end = text.find("\n", b)
        end = len(text) if end < 0 else end
        return _PERSONAL_VALUE.search(text, b, end) is not None or any(k == "PERSON" for k, _, _ in seen.over(b, end))

    if not any(peopled(b) for _, b in placed):
        return []
    out: list[Span] = []
    for a, b in placed:
        if not any(k != "PERSON" for k, _, _ in seen.over(a, b)):
            out.append(("LOCATION", a, b))
            seen.add(out[-1])
    return out


def _state_cell(text: str, a: int, b: int, named: list[int]) -> bool:
    """A US state's code in a `state` column's cell of a US person's row: an SSN or a North American phone
    number on its line, and a name in a person's column (`named`: where the table's people's cells start; not a
    job table's `state` of `OK` beside an on-call phone)."""
    if _STATE_CODE.fullmatch(text, a, b) is None:
        return False
    start, end = text.rfind("\n", 0, a) + 1, text.find("\n", b)
    end = end if end >= 0 else len(text)
    return any(start <= s < end for s in named) and _US_VALUE.search(text, start, end) is not None


def _marked_place(kinds: Kinds, m: re.Match[str]) -> bool:
    """An address markup's value that is a place: the lexicons know it, a US state's code, or, but in a `region`
    (a page's too: `<div class="region">Sidebar`), capitalised words that are no English words (not `Select a
    country`, `Unknown`)."""
    value = m.group("value")
    words = value.split()
    if kinds.lex.knows_place(" ".join(fold(w) for w in words)) or _STATE_CODE.fullmatch(value):
        return True
    if "region" in (m.group("kind") or m.group("prop")).lower():
        return False
    return all(w[:1].isupper() and fold(w) not in kinds.lex.words and not kinds.product(fold(w)) for w in words)


_STATE_NAME_FIELD = re.compile(
    r"(?<![\w\-])(?i:state)(?:\s*[=:]\s*[\"']?|[\"']\s*:\s*[\"'])(?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
    r"(?=[\"'\s,;})\]]|\Z)"
)
_ADDRESS_MARKUP = re.compile(
    r"(?:class=[\"'](?P<kind>locality|region|country-name|street-address|extended-address|adr-locality)|"
    r"itemprop=[\"'](?P<prop>addressLocality|addressRegion|addressCountry|streetAddress))[\"'][^<>]{0,80}>"
    r"(?P<value>[^\W\d_][^<>\n]{0,60}?)[ \t]*<"
)


_CITY_REACH = 60


def _wordy_shape(text: str, m: re.Match[str]) -> bool:
    """A state field of a shape a process's state takes too (_TEST_OWNERS above) whose code a status writes, or
    whose record is no person's: not read."""
    owner = [w for w in (m.group("owner") or "").lower().split("_") if w]
    numbered = any(w.isdigit() for w in owner)
    camel = bool(m.group("owner")) and m.group("owner")[0].isupper() and "_" not in m.group("owner")
    if m.group("kw") is not None:
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        return m.group("kw") in _STATUS_CODES or _KEYWORD_RECORD.search(line) is None
    if m.group("pic") is not None:
        record = m.group("record").lower().strip("-").split("-")
        named = _COBOL_NAME.search(text, max(0, m.start() - _STATE_REACH), m.start()) is not None
        return m.group("pic") in _STATUS_CODES or not (named or any(w in _NUMBERED_PERSONS for w in record))
    if numbered:
        digit = next(i for i, w in enumerate(owner) if w.isdigit())
        return digit == 0 or owner[digit - 1] not in _NUMBERED_PERSONS or m.group("code") in _STATUS_CODES
    test = any(w in _TEST_OWNERS for w in owner)
    return (test or camel) and m.group("code") in _STATUS_CODES


def _owned_city(text: str, m: re.Match[str], seen: Overlaps) -> bool:
    """The same owner's city or town read just before its state (`depot_city: Asheville` / `depot_state: NC`): a
    place's record, whatever its owner (not `OK`, a status as often as Oklahoma: `sync_city=Paris sync_state=OK`)."""
    return _owned(text, m, seen, ("city", "town"), "LOCATION") and m.group("code") != "OK"


def _owned_person(text: str, m: re.Match[str], seen: Overlaps) -> bool:
    """The same owner's name read as a person's just before its state (`OWNER_NAME: "Tammy Reyes"` / `OWNER_STATE:
    "NM"`): a person's record, whatever word its owner is (not a code that is a status or a word too: `IN`)."""
    found = _owned(text, m, seen, ("name", "full_name", "fullname"), "PERSON")
    return found and m.group("code") not in places.STATUS_CODES


def _owned(text: str, m: re.Match[str], seen: Overlaps, fields: tuple[str, ...], entity: str) -> bool:
    """The same owner's first field of `fields` just before its state holds an `entity` found."""
    a = max(0, m.start() - _CITY_REACH)
    before = text[a : m.start()].lower()
    for field in fields:
        at = before.rfind(m.group("owner").lower() + field)
        if at >= 0 and (at == 0 or not (before[at - 1].isalnum() or before[at - 1] in "_-")):
            return any(k == entity for k, _, _ in seen.over(a + at, m.start()))
    return False


def _set_places(kinds: Kinds, text: str, seen: Overlaps) -> list[Span]:
    """A US state's code after an SSN's quoted cell, and the states and places setters set (`.setHomeState("MD")`,
    `.setCity("Hartford")`), added to `seen` too."""
    out: list[Span] = []
    spans = [m.span("code") for m in _STATE_AFTER_SSN.finditer(text)] if '"' in text or "'" in text else []
    for m in _SETTER.finditer(text) if ".set" in text or ".with" in text else ():
        value = m.group("value")
        if m.group("what") == "State":
            known = _STATE_CODE.fullmatch(value) is not None
        else:
            known = kinds.lex.knows_place(" ".join(fold(w) for w in value.split())) and not kinds.product(fold(value))
        if known:
            spans.append(m.span("value"))
    for a, b in spans:
        if not seen.over(a, b):
            out.append(("LOCATION", a, b))
            seen.add(("LOCATION", a, b))
    return out


def _script_place(kinds: Kinds, value: str) -> bool:
    """A city's or a town's name in another script (`hotel_city="ภูเก็ต"`): the field says it is a place, so a
    town's name needs no other cue."""
    return not value.isascii() and (value in kinds.lex.scripts or value in kinds.lex.script_towns)


def _deployed(text: str, a: int, place: Place | None) -> bool:
    """A region's cell at text[a] that is a continent's, or on a line with a cloud's region (`| Frankfurt |
    eu-central-1 |`): where systems run."""
    start, end = text.rfind("\n", 0, a) + 1, text.find("\n", a)
    line = text[start : end if end >= 0 else len(text)]
    return (place is not None and place.kind == "continent") or deployments.REGION_ID.search(line) is not None


def _states_name(kinds: Kinds, m: re.Match[str]) -> bool:
    """A `state` field's value that is a state's or a region's name (`"state": "Rajasthan"`), of a person's record
    (no owner, or a person's: `billing_state`; not `health_state`)."""
    owner = [w for w in re.split(r"[_\-]", m.group("key").lower()[: -len("state")]) if w]
    if owner and owner[-1] not in _PERSONS_STATES:
        return False
    key = " ".join(fold(w) for w in m.group("value").split())
    place = kinds.lex.places.get(key)
    return key in kinds.lex.regions or (place is not None and place.kind not in ("city", "continent"))


def _fields(kinds: Kinds, text: str, seen: Overlaps) -> list[Span]:
    """The places in `text`'s place fields (`city: Durban`, `home_port: Sciacca`, `pickup: Ikeja, Lagos`), added
    to `seen` too."""
    out: list[Span] = []
    for m in _PLACE_FIELD.finditer(text):
        # a URL's query: a place the lexicons know only (`?lastname=Schwarzenbach&city=Winterthur`, what someone
        # looked for or gave)
        query = text[m.start() - 1 : m.start()] in ("?", "&")
        if m.group("sep") == ">" and text[m.start() - 1 : m.start()] != "<":
            continue  # `>` ends an element's opening tag only: `<ville>Lausanne</ville>`
        if (
            not m.group("sep").strip()
            and m.group("value")[:1].islower()
            and not kinds.large_city(fold(m.group("value").split(",")[0].strip()))
        ):
            continue  # after a space, a name or a large city only: not Portuguese's `a cidade como "..."` (as)
        if (
            m.group("sep")[-1:] in "\"'"
            and not m.group("sep").strip(" \t\n\"'")
            and text[m.start() - 1 : m.start()] != ":"
        ):
            continue  # a quoted value after a space is a keyword's only (Clojure's `:ort "Basel"`), not prose's
            # `the sample district "Springfield ISD"`
        if m.group("key").lower().endswith(("region", "zone", "state", "pref", "bundesland")):
            if _STATE_CODE.fullmatch(m.group("value").strip("\"' ")):
                continue  # `state: TX`: a US state's code, read by the state's field (below)
            if m.group("key").lower().endswith("state") and not _states_name(kinds, m):
                continue  # `health_state: Normal`: a process's state, or a town's name (Normal, Illinois)
            # a person's record's `region` (`region = "Minas Gerais"` beside a phone), not a deployment's, nor a
            # continent (`"region": "Europe"`); a courier's `zone` so too (`"zone":"Petaling Jaya"`, not a
            # cloud's or a time's)
            zone = m.group("key").lower().endswith("zone")
            if zone and (_TIME_ZONE_KEY.search(text, max(0, m.start() - 6), m.end("key")) or _not_a_zone(text, m)):
                continue
            near = text[max(0, m.start() - _STATE_REACH) : m.end() + _STATE_REACH]
            place = kinds.lex.places.get(" ".join(fold(w) for w in m.group("value").split()))
            # (or beside a person's name: `contact: Giuseppe Bianchi` / `region: Emilia-Romagna`)
            person = any(k == "PERSON" for k, _, _ in seen.over(max(0, m.start() - _CITY_REACH), m.start()))
            if not (_PERSONAL_VALUE.search(near) or person) or deployments.REGION_ID.search(near):
                continue
            if place is not None and place.kind == "continent":
                continue
        elif where_systems_run(text, m.start(), m.end()):
            continue  # a region's line (`location: "Virginia"  # eastus`)
        a, b = _trimmed(text, *m.span("value"))
        if (
            text[a:b].isupper()
            and (place := kinds.lex.places.get(fold(text[a:b]))) is not None
            and place.kind == "continent"
            and _CLOUD_CUE.search(text, max(0, m.start() - _STATE_REACH), m.end() + _STATE_REACH)
        ):
            continue  # `location = "ASIA"` in a bucket's resource: a multi-region, no one's place
        if text[a:b] in _UNPLACED:
            continue  # `所在地: 未定`, `지역: 온라인`
        last = m.group("key").lower().rsplit("_", 1)[-1]
        if fold(text[a:b]) == last or (last in _QUARTER_KEYS and fold(text[a:b]) in _QUARTERS_WORDS):
            continue  # `hub: Hub`; a quarter's kind or side, not its name: `zona: Norte`, `quartier: Centre`
        if last in _BRANCH_KEYS and _branch_word(text[a:b], m.group("key")):
            continue
        if query and _EXAMPLE_URL.search(text, max(0, m.start() - 200), m.start()):
            continue  # a documentation's example: `https://api.example.com/weather?city=London`
        key = " ".join(fold(w) for w in text[a:b].replace(",", " ").split())
        known = kinds.lex.knows_place(key) or _script_place(kinds, text[a:b])
        if not known and "," in text[a:b]:  # `"Tulsa, Oklahoma"`: the town, then its state or country
            b = a + text[a:b].index(",")
            key = " ".join(fold(w) for w in text[a:b].split())
            known = kinds.lex.knows_place(key)
        if not known and (lead := _place_then_noun(kinds, text, a, b)):
            b = lead  # `Location: Memphis hot sauce plant`: the town, then what is there
            key = " ".join(fold(w) for w in text[a:b].split())
            known = True
        if not known and "-" in key:  # `branch="Gdańsk-Wrzeszcz"`: a large city's district
            known = kinds.large_city(key.split("-", 1)[0])
        compact = m.group("key").lower().replace("_", "")  # `home_port`, `drop_off`; not the phrase `home port`
        wordy = " " not in m.group("key") and any(compact.endswith(word) for word in _WORDY_KEYS)
        tagged = m.group("sep").endswith(">") and m.group("sep") != ">"  # `name="city">Ciutat`: a label as often
        if query and not known:
            continue
        if not known and " " not in m.group("key") and m.group("sep").strip() and not tagged:
            known = _loose_place(kinds, text, m, key, wordy, seen)
        if not known and _us_town(kinds, text, m, a, b):
            known = True  # `city=Cody` / `state=WY`: a US record's town, whatever else its name is
        # an English word, unless a rare one that is a large city's name (`site=Cork`; not `store: Reading`)
        frequent = kinds.lex.words.get(key, 0) >= _FREQUENT_WORD
        ordinary = key in kinds.lex.words and (frequent or not kinds.large_city(key))
        # (after a space only a large city, or its district: `der Filiale Dortmund-Hörde`, `club Zaragoza`)
        spaced = not m.group("sep").strip() and not kinds.large_city(key.split("-", 1)[0])
        cased = text[a : a + 1].lower() != text[a : a + 1].upper()  # (a script without case: `지점=강릉`)
        if wordy and (ordinary or (cased and not text[a : a + 1].isupper()) or spaced):
            continue  # `site: production`, `our office Reading`: the value of a field, capitalised and no word
        # a person's reading of the field's value gives way: the field says what it is (`region = "Minas Gerais"`)
        if b > a and known and not any(k != "PERSON" for k, _, _ in seen.over(a, b)):
            out.append(("LOCATION", a, b))
            seen.add(("LOCATION", a, b))
        if known:  # `pickup: Ikeja, Lagos`, `territory: [Bulawayo, Gweru]`, `sites="Pune,Nagpur"`: the list's others
            at = b
            while (more := _LISTED.match(text, at)) is not None and more.end() - b < _LISTED_REACH:
                if not kinds.lex.knows_place(" ".join(fold(w) for w in more.group(1).split())):
                    break
                if _LISTED_KEY.match(text, more.end()):
                    break  # the next field's key, not a value of this one: `{"City": "Leeds", "Mobile": "0770..."}`
                if not any(k != "PERSON" for k, _, _ in seen.over(*more.span(1))):  # (a person's reading gives way)
                    out.append(("LOCATION", *more.span(1)))
                    seen.add(("LOCATION", *more.span(1)))
                at = more.end()
    return out


# a field's value that is a place's name, then lower-case words of what is there: `Memphis hot sauce plant`
_PLACE_THEN_NOUN = re.compile(r"((?:[A-ZÀ-ÖØ-Þ][^\W\d_]+[ \t]){1,3})(?:[a-zß-ÿ][^\W\d_]*(?:[ \t]|\Z)){1,4}")
# the site that last word names: a place people work at (not a room, a file, a convention: `Oslo room`,
# `Jakarta persistence config file`, `Geneva convention summary doc`)
_SITE_NOUNS = _words(
    "plant warehouse depot office factory store shop centre center storage market mill farm yard clinic site hub "
    "branch workshop dairy bakery kitchen distillery brewery winery orchard stables shipyard dock terminal "
    "showroom outlet yard greenhouse nursery packhouse port harbour harbor marina airport station campus school "
    "hotel hostel gym salon studio"
)


def _place_then_noun(kinds: Kinds, text: str, a: int, b: int) -> int:
    """The end of the place that opens text[a:b] when lower-case words of a site follow it (`Memphis hot sauce
    plant`, `Girona warehouse`; not `Oslo room`), else 0: a known place, not a continent, a product's or an
    English word's name."""
    m = _PLACE_THEN_NOUN.fullmatch(text[a:b] + " ")
    if m is None or text[a:b].split()[-1] not in _SITE_NOUNS:
        return 0
    name = m.group(1).rstrip()
    key = " ".join(fold(w) for w in name.split())
    if not kinds.lex.knows_place(key) or kinds.product(key) or key in kinds.lex.words:
        return 0
    place = kinds.lex.places.get(key)
    if place is not None and place.kind == "continent":
        return 0  # `Location: South America walkthrough`: a zoo's exhibit, no town
    return a + len(name)


# a time's zone, however its key is written: `timezone`, `time_zone`, `time zone`, `time-zone`, `tz`
_TIME_ZONE_KEY = re.compile(r"(?i:time[ _\-]?zone|\btz_?zone)\Z")
# a zone's value that is a time's, a side's or a sales region's (`"zone":"Central"`, `zone: APAC`), and keys of
# systems beside it (`zone: Frankfurt` / `replicas: 3`, `"bucket": ...`): a cloud's zone, not a courier's
_ZONE_WORDS = _words(
    "central eastern western northern southern mountain pacific atlantic apac emea amer latam nordics dach benelux "
    "utc gmt cet est pst north south east west"
)
_SYSTEMS_KEYS = re.compile(
    r"(?i)(?<![\w\-])[\"']?(?:replicas?|instances?|instance_type|bucket|latency(?:_ms)?|project|gcp_project|cluster|"
    r"node|nodes|pod|vm|subnet|vpc|ami|sla|datacenter|dc)[\"']?[ \t]*[=:]"
)


def _not_a_zone(text: str, m: re.Match[str]) -> bool:
    """A `zone` field that is no courier's: a time's, a side's or a sales region's value, or a system's keys
    beside it."""
    if fold(m.group("value").strip()) in _ZONE_WORDS:
        return True
    return _SYSTEMS_KEYS.search(text, max(0, m.start() - _STATE_REACH), m.end() + _STATE_REACH) is not None


# a US state's code as the next field of a record: `state=WY`, `"state": "TX"`
_STATE_NEXT = re.compile(
    rf"[\"']?[ \t]*[,;\n][ \t]*[\"']?(?i:state)[\"']?[ \t]*[=:][ \t]*[\"']?{places.STATES}(?![\w\-])"
)


def _us_town(kinds: Kinds, text: str, m: re.Match[str], a: int, b: int) -> bool:
    """A town's field whose next field is a US state's code (`city=Cody` / `state=WY`): a capitalised word or
    two, the town of a US record; no placeholder (`city=Test`) nor a common word (`city: Pending`)."""
    last = m.group("key").lower().rsplit("_", 1)[-1]
    if last not in ("city", "town") or not _TWO_WORDS.fullmatch(text[a:b]):
        return False
    value = text[a:b].lower()
    if value in _NOT_TOWNS or kinds.lex.words.get(value, 0) >= _TOWN_WORD or _PLACEHOLDER.search(value):
        return False
    return _STATE_NEXT.match(text, b) is not None


_TWO_WORDS = re.compile(r"[A-Z][a-z]+(?:[ \t][A-Z][a-z]+)?")
# a field's placeholder for a town: `city=Test`, `"city": "Unknown"`
_NOT_TOWNS = _words(
    "test unknown none null nil default pending sample example placeholder nowhere anytown tbd tba redacted foo bar "
    "required somewhere n/a na"
)
_TOWN_WORD = 5000  # a word this frequent is no town's name in a US record (`city=Pending`; not `Cody`, 2,209)
# a cloud's storage near a field: its `location` is a multi-region (`resource "google_storage_bucket"`)
_CLOUD_CUE = re.compile(r"(?i:bucket|storage|gsutil|\bbq\b|dataset|resource[ \t]+\"|google_|multi-region|\bcdn\b)")


def _loose_place(kinds: Kinds, text: str, m: re.Match[str], key: str, wordy: bool, seen: Overlaps) -> bool:
    """Whether a place field's value no lexicon knows is a place all the same: a loose key's (_LOOSE_KEYS) value in
    capitals or in a script without case, of a few words, neither an English word nor a product's, and (for a
    wordy key) in a person's record."""
    last = m.group("key").lower().rsplit("_", 1)[-1].rsplit("-", 1)[-1]
    words = key.split()
    if last not in _LOOSE_KEYS or not words or len(words) > _LOOSE_WORDS:
        return False
    value = m.group("value")
    if value[0].isalpha() and not (value[0].isupper() or value[0].lower() == value[0].upper()):
        return False  # `city: unknown`, `branch: main`
    if 3 <= len(value) <= 4 and value.isupper():
        return False  # `base = "KEF"`: an airport's code, a site's (not a province's: `"province": "NB"`)
    if _PLACEHOLDER.search(value) or value.lower().startswith("test"):
        return False  # `city: Musterstadt`, `"city": "Testville"`
    if last in fold(value):
        return False  # `bezirk = "Regierungsbezirk"`, `hub: Hub`: the key's own word
    if any(kinds.product(w) or w in kinds.lex.words or w in _LOOSE_KEYS or w in _PLACE_NOUNS for w in words[:1]):
        return False  # `base: Ubuntu`, `branch: Release`, `"city": "Город"`, `district: Distrito Escolar 7`
    if any(not w[:1].isupper() and w.lower() not in _PARTICLES for w in value.split()[1:]):
        return False  # `venue: Filharmonia hall B`: a room's name
    if all(w in kinds.lex.words or w in _PARTICLES for w in words):
        return False  # `venue: Main Hall`
    if last in _RECORD_LOOSE and _no_site(kinds, value, words):
        return False  # `site: Dakota Reyes` (who is there), `location: HQ`, `site: Intranet`, `location: WeWork`
    if not wordy and last not in _RECORD_LOOSE:
        return True
    near = text[max(0, m.start() - _STATE_REACH) : m.end() + _STATE_REACH]
    person = any(k == "PERSON" for k, _, _ in seen.over(max(0, m.start() - _ROW_REACH), m.start()))
    if last in _SHOP_KEYS:  # a shop's, a workshop's name is a brand's or an event's as often: a person's value too
        return person and bool(_PERSONAL_VALUE.search(near))
    return bool(_PERSONAL_VALUE.search(near)) or person


# a place after another in a field's list: `, Gweru`, `,Nagpur`, R's `c("Torino", "Napoli", "Bari")`
_LISTED = re.compile(r"[\"']?,[ \t]*[\"']?([A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+(?:[ \t][A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+)?)")
_LISTED_REACH = 120
_LISTED_KEY = re.compile(r"[\"']?[ \t]*(?:=>|[:=])")
# a URL on a documentation's example host, up to its query: `https://api.example.com/weather?`
_EXAMPLE_URL = re.compile(r"://[\w.\-]*\bexample\b[\w.\-]*(?::\d+)?/[^\s\"'<>]*\Z")


# the words of a workplace's, a building's or a company's site, no town's: `location: Onsite`, `site: Intranet`,
# `location: Zentrale`, `site: Northwind Traders`, and the placeholders' companies
_SITE_WORDS = _words(
    "onsite offsite homeoffice intranet extranet sharepoint zentrale hauptsitz serverraum lager lagerhalle büro buro "
    "bürogebäude burogebaude bldg hq datacenter rechenzentrum colo traders wholesale inc ltd gmbh corp warehouse "
    "contoso globex initech northwind fabrikam "
    # a farm's paddock or barn, a shed's or a workshop's own word: `farm_locality: Paddock North`
    "paddock paddocks barn barns"
)
_CAMEL_CASED = re.compile(r"[a-z][A-Z]")


def _no_site(kinds: Kinds, value: str, words: list[str]) -> bool:
    """A person's site's value that is no place: a person's name (given on sight and a surname), a code in
    capitals (`HQ`), a CamelCase brand (`WeWork`), a workplace's or a company's word (`Onsite`, `Traders`)."""
    if len(words) > 1 and kinds.given(words[0]) == 2 and words[-1] in kinds.lex.surnames:
        return True
    if (value.isupper() and len(value) <= 4) or _CAMEL_CASED.search(value):
        return True
    return any(w in _SITE_WORDS for w in words)


def _branch_word(value: str, key: str) -> bool:
    """A branch key's value that is no place: a head office's, a side's or a segment's word, a ward, a hat."""
    words = [fold(w) for w in value.split()]
    hat = key[:1].isupper() and key.lower() == "hut"  # German's noun: `Hut: Zylinder`
    return hat or not words or words[0] in _BRANCH_WORDS or _WARD.search(words[-1]) is not None


# months in other languages, which payment lines write in capitals beside a name: `SPENDE JUNI`, `GEHALT JUNI`
_MONTHS = _words(
    "januar februar märz april mai juni juli august september oktober november dezember januari februari maart "
    "mei augustus janvier février mars avril juin juillet août septembre octobre décembre enero febrero marzo "
    "abril mayo junio julio agosto septiembre octubre noviembre diciembre"
)


_CAPITAL_WORD = re.compile(r"(?<![\w\-@./'’])[^\W\d_](?:[^\W\d_]|['’\-](?=[^\W\d_]))*(?![\w\-@./])")


def _capital_names(kinds: Kinds, text: str) -> list[tuple[int, int]]:
    """The names in runs of words in capitals (any Latin letters: `BERGSTRÖM, ANNA`): the run itself (`KAMAU
    JOSEPH`), or the longest stretch of two to four of its words that is one (`R01 INSUFFICIENT FUNDS GARCIA
    MARIA ACCT`); not a list (`{ BERT, CIARAN, DEBI }`)."""
    out: list[tuple[int, int]] = []
    for run in _capital_runs(text):
        if text.count(",", run[0][0], run[-1][1]) > 1:
            continue
        i = 0
        while i < len(run):
            found = None
            for size in range(min(4, len(run) - i), 1, -1):
                a, b = run[i][0], run[i + size - 1][1]
                whole = size == len(run)  # a stretch of a longer run has no word no lexicon knows: `SELMA IMO`
                if _capitals(kinds, text[a:b], strangers=whole):
                    found = (a, b, size)
                    break
            if found is None:
                i += 1
                continue
            out.append(found[:2])
            i += found[2]
    return out


def _capital_runs(text: str) -> list[list[tuple[int, int]]]:
    """Runs of two or more words in capitals, apart by spaces, tabs or a comma."""
    runs: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []
    for m in _CAPITAL_WORD.finditer(text):
        word = m.group()
        if not (word.isupper() and (len(word) > 1 or current)):
            if len(current) > 1:
                runs.append(current)
            current = []
            continue
        if current and not re.fullmatch(r",?[ \t]+", text[current[-1][1] : m.start()]):
            if len(current) > 1:
                runs.append(current)
            current = []
        current.append(m.span())
    if len(current) > 1:
        runs.append(current)
    return runs


def _capitals(kinds: Kinds, value: str, strangers: bool = True) -> bool:
    """Two to four words in capitals that are all names and no ordinary words (`NGUYEN VAN AN`, `KAMAU
    JOSEPH`), one of them a given name on sight: a person's name as bank files and payout logs write it."""
    keys = [fold(w) for w in value.replace(",", " ").split()]
    lex = kinds.lex
    if any(w.lower() in _MONTHS for w in value.replace(",", " ").split()):
        return False
    # a surname and an initial, as bank lines write a payee: `PATEL R`, `JOHNSON TAMIKA L`
    initial = len(keys) > 1 and len(keys[-1]) == 1 and keys[-1].isalpha()
    if initial:
        keys = keys[:-1]
        common = any(lex.surnames.get(k, 10**9) <= COMMON_SURNAME and lex.words.get(k, 0) < RARE_WORD for k in keys)
        if not common and not any(kinds.given(k) == 2 for k in keys):
            return False
    elif " ".join(keys) in PERSONAS or not any(kinds.given(k) == 2 for k in keys):
        return False
    if "," in value and (value.count(",") > 1 or len(keys[-1]) < 2):
        return False  # `GUTIERREZ, MARISOL` is a name; `A, B, C` a list

    unknown = [k for k in keys if kinds.unknown(k) and len(k) > 3 and k not in _NOT_NAMES] if strangers else []

    def name(k: str) -> bool:
        if k in _PARTICLES or (len(unknown) == 1 and k == unknown[0] and len(keys) > 1):
            return True  # `ZIELINSKA MAGDALENA`: one word no lexicon knows beside a given name
        if (kinds.product(k) and not (len(keys) > 1 and kinds.given(k) == 2)) or k in _NOT_NAMES or kinds.big_place(k):
            return False
        surname = lex.surnames.get(k, 10**9) <= COMMON_SURNAME and lex.words.get(k, 0) < RARE_WORD  # `TORRES`
        return surname or (kinds.given(k) > 0 and lex.wordiness(k) < 0.5)

    if len(keys) == 1 and not initial:
        return False
    return all(name(k) for k in keys) and not all(k in _PARTICLES for k in keys)


def _trimmed(text: str, a: int, b: int) -> tuple[int, int]:
    """The span less trailing punctuation, and a greeting and a title before the name (`Mr. Abdullah Al-Qahtani`,
    `Hallo Frau Wolff`)."""
    while b > a and text[b - 1] in " ,.":
        b -= 1
    greeting = _TITLE.match(text, a, b)
    if greeting is not None and greeting.group(1).lower() in cues.NEVER_ALONE:
        a = greeting.end()
    title = _TITLE.match(text, a, b)
    if title is not None and fold(title.group(1)) in cues.TITLES:
        a = title.end()
    return a, b


_INITIAL = re.compile(r"[^\W\d_]\.")
_HEADER_CELL = re.compile(r"[^\W\d_][\w\- ]*")  # a column's name: words, no digits first, no value's punctuation
_BOT = re.compile(r"(?:[a-z]Bot|[\-_.]bot)\Z")
_CAMEL = re.compile(r"[A-Z]{2}[a-z]")
_HUMP = re.compile(r"[a-z][A-Z]")


def _lower_named(kinds: Kinds, words: list[str], named_key: bool, given_key: bool = False) -> bool:
    """A field's value in lower case is a name when it opens with a given name on sight and no word of it is an
    ordinary word more than a name: `owner: "petra novak"`, `debtor=jānis bērziņš`, `display_name="siddharth"`;
    not `name: "nightly backup"`, `owner: "mark"` (a word too)."""
    written = [w for w in words if w not in _PARTICLES]
    keys = [fold(w) for w in written]
    if not keys or len(keys) > 3 or not all(w.isalpha() and len(w) > 2 for w in written):
        return False  # not `owner: "maria db"`, `owner: ß`
    # (a product's under a given name's own key is a given name: `'first': 'lucia'`)
    products = [k for k in keys if k in kinds.lex.products and not (given_key and len(keys) == 1)]
    if kinds.given(keys[0]) < 2 or products or any(k in _NOT_NAMES or k in cues.CALENDAR for k in keys):
        return False  # not `"alexa"`, `"watson"`: products' names
    if len(keys) == 1 and not named_key:
        return False  # one word alone under a name's own key only (`display_name="siddharth"`; not `owner: "sierra"`)
    return all(kinds.lex.wordiness(k) < WORDY for k in keys)


def _named(kinds: Kinds, value: str, shaped: bool = False, given_key: bool = False) -> bool:
    """One to four words of a name: one case throughout, no product's or role's word (a given name that is also
    a product's beside another name is a name: `Whitmore, Charles`), no test persona. `shaped`: the record's
    shape says it is a name (HL7's family and given names), so one word no lexicon knows is one too; `given_key`:
    under a given name's own key, a common given name a product has too is the name (`first_name=Lucia`)."""
    words = [w.strip(",.") for w in value.split()]
    if not words or len(words) > 5 or " ".join(fold(w) for w in words) in PERSONAS:
        return False
    if len(words) == 1 and fold(words[0]) in _NOT_NAMES:
        return False  # `"manager": None`, `holder: Customer`
    if len(words) == 1 and _BOT.search(words[0]):
        return False  # `SwellBot`, `deploy-bot`: a bot's name under a person's column
    if any(_CAMEL.search(p) or len(_HUMP.findall(p)) > 1 for w in words for p in w.split("-")):
        return False  # a type's name: `$employee = [PSCustomObject]` (not `McDonald`, `LeBlanc`)
    # a surname's particles in lower case: `van den Broek`, `E. de Vries`, `Carmen de la Fuente`
    words = [w for w in words if w not in _PARTICLES] if not value.islower() else words
    if not words or len(words) > 4:
        return False
    cased = [c for c in value if c.isupper() or c.islower()]
    caps = bool(cased) and all(c.isupper() for c in cased)
    caseless = not cased
    # an initial with its dot is neither case's word: `Кузнецов И. А.`
    titled = all(w[:1].isupper() and not w.isupper() for w in words if len(w) > 1 and not _INITIAL.fullmatch(w))
    if value.islower():
        return _lower_named(kinds, words, shaped, given_key)
    # the surname in capitals first, then given names (no English word): `OYELARAN Funmilayo`, `MØLLER Freja`;
    # not `EU West`, `NATO Summit`, `AWS Frankfurt`
    family_first = (
        len(words) > 1
        and words[0].isupper()
        and len(words[0]) > 1
        and not kinds.product(fold(words[0]))
        and (fold(words[0]) in kinds.lex.surnames or (len(words[0]) > 2 and fold(words[0]) not in kinds.lex.words))
        and all(w[:1].isupper() and not w.isupper() for w in words[1:])
        and all(
            kinds.given(fold(w)) == 2 or (kinds.given(fold(w)) and fold(w) not in kinds.lex.words) for w in words[1:]
        )
    )
    if not (caps or caseless or titled or family_first):
        return False
    keys = [fold(w) for w in words if len(w) > 1]  # not an initial: `O'BRIEN, PATRICK J`
    if not keys:
        return False
    several = len(keys) > 1

    def product(k: str) -> bool:
        return kinds.product(k) and not ((several or given_key) and kinds.given(k) == 2)

    if any(k in _NOT_NAMES or k in cues.WEEKDAYS or product(k) or (k in kinds.lex.words and not kinds.given(k))
           for k in keys):  # fmt: skip
        return False
    trade = keys[0] in cues.TRADES and not all(kinds.given(k) for k in keys[1:])  # (not `Tasca Giovanni`)
    if trade or any(len(k) > 8 and k.endswith(cues.BUSINESS_ENDINGS) for k in keys):
        return False  # `name: Korfbalvereniging De Zwaluwen`, `Orologeria Ferri`: a business's or a club's name
    if caseless:
        return True
    # in Latin letters: one word at least a known given name or surname, or two words no lexicon knows
    known = any(kinds.given(k) or k in kinds.lex.surnames for k in keys)
    return known or ((several or shaped) and all(kinds.unknown(k) for k in keys))
