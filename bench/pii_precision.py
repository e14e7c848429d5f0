"""What the PII step gets right: precision and recall per entity type on labelled sets, and clean text flagged.

    python bench/pii_precision.py                  # every set and split, the step's defaults and the example config
    python bench/pii_precision.py --split tune     # the tuning sets: labelled, technical, sets two to ninety-five
    python bench/pii_precision.py --split held-aside   # the held-aside (ninety-sixth) set alone
    python bench/pii_precision.py --vetter off     # names as the rules alone find them (guards/vetting.py off)
    python bench/pii_precision.py --test-values personal   # published test values are personal data too (testvalues.py)
    python bench/pii_precision.py --config examples/taskgate.yaml [--step pii]   # that config alone
    python bench/pii_precision.py --names ner      # names as the NER model finds them, as before guards/names.py
    python bench/pii_precision.py --backend patterns
    python bench/pii_precision.py --ner-scope all  # with --names ner: NER on every sentence

Ninety-seven sets. bench/pii_labelled/sentences.jsonl (`labelled`, written by make.py
there): prose, code, log lines, technical prose and chat with pasted
technical material. bench/pii_labelled/technical.jsonl (technical.md there),
written apart by someone who did not see the scanner's rules: code, logs,
configs, tickets, chat about systems, some prose; split by its writer into
`tune` and `held`. bench/pii_labelled/technical_held2.jsonl to
technical_held95.jsonl (`second set` to `ninety-fifth set`, each with its .md
there), each written apart in turn by someone who saw neither the scanner nor
its output nor the other sets. bench/pii_labelled/technical_held96.jsonl
(`held-aside`, technical_held96.md there), written apart a ninety-sixth time, is
measured when the file is there; without it the tuning sets alone are run. Each sentence has its labelled spans of
PERSON, LOCATION, EMAIL_ADDRESS, PHONE_NUMBER, IBAN_CODE, CREDIT_CARD and
US_SSN; most have none.

The history of what was held aside: the first round of guards/names.py was
adjusted on `labelled` and `technical tune` and reported `technical held`
once, as it came out (docs/steps/guards.pii.md). That split had then been
seen, so the second round tuned on those three; the second set was written
apart while it did, was not looked at until that tuning had ended, and was
then run once (under the example config and the defaults) and reported as it
came out. It had then been seen too, so the third round tuned on all four;
the third set was written apart while it did, was not opened until that
tuning had ended, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so the
fourth round tuned on all five; `held-aside` (the fourth set) was written
apart while it did, was not opened until that tuning had ended and been
committed, and was then run once, under the example config and the defaults,
and reported as it came out. It had then been seen as well, so the fifth
round tuned on all six (the fourth set among them, its errors generalised);
the fifth set was written apart while it did, was not opened until that
tuning had ended and been committed, and was then run once, under the
example config and the defaults, and reported as it came out. It had then
been seen as well, so the sixth round tuned on all seven, preferring rules of
shape and context to the fifth set's words, and checking each rule against
the sets it was not written from; the sixth set was written apart while it
did, was not opened until that tuning had ended and been committed, and was
then run once, under the example config and the defaults, and reported as it
came out. It had then been seen as well, so the seventh round fitted a
second look at names (guards/vetting.py, bench/pii_vetter.py) on the rules'
blind runs of the second to sixth sets and the rules' output on all eight;
the seventh set was written apart while it did, was not opened until that
fitting had ended and been committed, and was then run once, under the
example config and the defaults, and reported as it came out. It had then
been seen as well, so the eighth round read names in lower case, in other
scripts and in records, and refitted the vetter with the seventh set's blind
run; the eighth set was written apart while it did, was not opened until
that round had ended and been committed, and was then run once, under the
example config and the defaults, and reported as it came out. It had then
been seen as well, so the ninth round read people in other scripts, more of
chat's lower case and payment files, and refitted the vetter with the eighth
set's blind run; the ninth set was written apart while it did, was not
opened until that round had ended and been committed, and was then run once,
under the example config and the defaults, and reported as it came out. It
had then been seen as well, so the tenth round read location fields, gave
LOCATION its own threshold in the vetter and refitted it with the ninth
set's blind run; the tenth set was written apart while it did, was not
opened until that round had ended and been committed, and was then run once,
under the example config and the defaults, and reported as it came out. It
had then been seen as well, so the eleventh round read more of chat's lower
case, names in capitals in payment lines, people's places in text about
systems, places after other languages' prepositions and the world's seas and
ranges, and refitted the vetter with the tenth set's blind run; the eleventh
set was written apart while it did, was not opened until that round had ended
and been committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so the
twelfth round read tables' name columns, HL7's next of kin, other languages'
case endings, and storms, fonts, organisations and pets as no one's, and
refitted the vetter with the eleventh set's blind run; the twelfth set was
written apart while it did, was not opened until that round had ended and
been committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so the
thirteenth round read reservations' and imaging's names, SQL INSERT columns,
a table's country column and other languages' titles, and refitted the
vetter with the twelfth set's blind run; the thirteenth set was written
apart while it did, was not opened until that round had ended and been
committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so the
fourteenth round read rooms, schools and ships named after people and other
languages' placeholder people as no one's, and refitted the vetter with the
thirteenth set's blind run; the fourteenth set (whose writer was given a
fixed list of hard negatives rather than asked to invent new kinds) was
written apart while it did, was not opened until that round had
ended and been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as well,
so the fifteenth round read person-only columns and other languages'
headers, fenced blocks of data, people beside someone's SSN or IBAN in a row,
Finnish, Hungarian, Thai, Greek and Hebrew places, islands, routes and
rivers, offices' mailboxes and national phone numbers after a phone's word,
and the famous people rooms are named after as things; the fifteenth set
(whose writer was also given a fixed list of hard negatives) was written
apart while it did, was not opened until that round had ended and been
committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
the sixteenth round read street addresses, payees in capitals, more Czech
and Polish endings and buildings named after writers; the sixteenth set
(with a fixed list of hard negatives too) was written apart while it did,
was not opened until that round had ended and been committed, and was then
run once, under the example config and the defaults, and reported as it
came out. It had then been seen as well, so the seventeenth round read
foods and suites named after places as things, protected two of the
vetter's drops and mended what a review of the session found;
the seventeenth set was written apart while it did, was not opened until it
had been committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so the
eighteenth round asked a language identifier which language a line is in
(the lower-case reader's cues, prepositions and case endings of places in
eleven languages, a language's common words opening a sentence) and read
stadiums, trains, roses and exhibitions named after people as things;
the eighteenth set was written apart while it did, was not opened until that
round had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well, so the nineteenth round read more endings and chat's cues (Latvian,
Lithuanian, Danish places, a table's `given` column, titles without their
dot, introductions, Korean given names), set aside other languages' mail
header keys, German's capitalised pronoun and places in institutions'
names, refitted the vetter with the seventeenth and eighteenth sets' blind
runs, made published test values no one's by default (allow_test_values)
and applied the step's judgement of what is no one's to answers too;
the nineteenth set was written apart while it did, was not opened until that
round had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well, so the twentieth round read towns before sites people work at, more
of chat's cues and a US town's state, and refitted the vetter with the
nineteenth set's blind run; the twentieth set was written apart while it
did, was not opened until that round had been committed, and was then run
once, under the example config and the defaults, and reported as it came
out. It had then been seen as well, so the twenty-first round read places
after another language's `of`, streets as more countries write them, a
record's place fields and a person's record's state, set aside
libphonenumber's example numbers and typefaces, and refitted the vetter with
the twentieth set's blind run; the twenty-first set was written apart
while it did, was not opened until that round had been committed, and was
then run once, under the example config and the defaults, and reported as
it came out. It had then been seen as well, so the twenty-second round
read names with an initial, people's rows without a header, more place
fields and prefixes, and refitted the vetter with the twenty-first set's
blind run; the twenty-second set was written apart while it did, was not
opened until that round had been committed, and was then run once, under
the example config and the defaults, and reported as it came out. It had
then been seen as well, so the twenty-third round read addresses by their
postcode and town and more place fields, and refitted the vetter with the
twenty-second set's blind run; the twenty-third set was written apart while
it did, was not opened until that round had been committed, and was then
run once, under the example config and the defaults, and reported as it
came out. It had then been seen as well, so the twenty-fourth round read
accented names with their surnames, display names, 19-digit cards, large
places few people are named after, mended what a review found, and refitted
the vetter with the twenty-third set's blind run; the twenty-fourth set was
written apart while it did, was not opened until that round had been
committed, and was then run once, under the example config and the defaults,
and reported as it came out. It had then been seen as well, so the
twenty-fifth round read HTML and COPY rows, other scripts' case endings,
large cities by their own languages' names and more place fields, and
refitted the vetter with the twenty-fourth set's blind run; the twenty-fifth
set was written apart while it did, was not opened until that round had been
committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
the twenty-sixth round read chat speakers, lists of places, phones beside
names and Irish and Welsh mutations, and refitted the vetter with the
twenty-fifth set's blind run; the twenty-sixth set was written apart while
it did, was not opened until that round had been committed, and was then
run once, under the example config and the defaults, and reported as it
came out. It had then been seen as well, so the twenty-seventh round read
`Mc` names, a system's noun on its line only, chat speakers as no one and
other languages' town fields, and refitted the vetter with the
twenty-sixth set's blind run; the twenty-seventh set was written apart
while it did, was not opened until that round had been committed, and was
then run once, under the example config and the defaults, and reported as
it came out. It had then been seen as well, so the twenty-eighth round read
other languages' titles and port fields, typesetting and HAProxy's
counters, and refitted the vetter with the twenty-seventh set's blind run;
the twenty-eighth set was written apart while it did, was not opened until
that round had been committed, and was then run once, under the example
config and the defaults, and reported as it came out. It had then been seen
as well, so the twenty-ninth round read tables without a header by their
columns and businesses by their own word, and refitted the vetter with the
twenty-eighth set's blind run; the twenty-ninth set was written apart
while it did, was not opened until that round had been committed, and was
then run once, under the example config and the defaults, and reported as
it came out. It had then been seen as well, so the thirtieth round read
`O'Brien` as one capitalised word (it had never been), quoted names written
surname first, more place and people's fields, cities of 100,000 people on
sight, and refitted the vetter with the twenty-ninth set's blind run; the
thirtieth set was written apart while it did, was not opened until that
round had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well, so the thirty-first round read Mir and Troy cards, a role in brackets
after a name, typefaces, and refitted the vetter with the thirtieth set's
blind run; the thirty-first set was written apart while it did, was not
opened until that round had been committed, and was then run once, under
the example config and the defaults, and reported as it came out. It had
then been seen as well, so the thirty-second round read Chinese names, South
Asia's honorifics, Thai's `คุณ`, places with other scripts' endings, a chat
log's speakers as handles, and refitted the vetter with the thirty-first
set's blind run; the thirty-second set was written apart while it did, was
not opened until that round had been committed, and was then run once,
under the example config and the defaults, and reported as it came out. It
had then been seen as well, so the thirty-third round read phones after
other languages' `call`, 18-digit cards, towns beside names before a dash,
LDAP localities, the Turkic languages' `city`, and refitted the vetter with
the thirty-second set's blind run; the thirty-third set was written apart
while it did, was not opened until that round had been committed, and was
then run once, under the example config and the defaults, and reported as
it came out. It had then been seen as well, so the thirty-fourth round read
Discord's speaker lines, taxpayer numbers, and with a review's mends
refitted the vetter with the thirty-third set's blind run; the
thirty-fourth set was written apart while it did, was not opened until that
round had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well, so the thirty-fifth round read other languages' name, owner and
customer fields, titles and families, lower-case names in fields and on
English lines, Welsh mutations, SSNs in a row's column, and refitted the
vetter with the thirty-fourth set's blind run; the thirty-fifth set was
written apart while it did, was not opened until that round had been
committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
the thirty-sixth round read Teams' speaker lines, Swahili's titles,
`Surname, Given` unquoted, surnames opening a chat message or beside an
SSN, and refitted the vetter with the thirty-fifth set's blind run; the
thirty-sixth set was written apart while it did, was not opened until that
round had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well; no rule was written from it, and the vetter alone was refitted with
its blind run; the thirty-seventh set was written apart while the
thirty-sixth round was built, was not opened until that refit had been
committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
the thirty-seventh round read place fields no lexicon knows, places in
brackets after a person, names after another language's `a`, a ФИО whole,
and refitted the vetter with the thirty-seventh set's blind run; the
thirty-eighth set was written apart while it did, was not opened until
that round and refit had been committed, and was then run once, under the
example config and the defaults, and reported as it came out. It had then
been seen as well, so the thirty-eighth round read people naming
themselves in other scripts, surnames with Cyrillic initials, other
languages' titles and kin, and refitted the vetter with the thirty-eighth
set's blind run; the thirty-ninth set was written apart by another writer
at the same time as the thirty-eighth, was not opened until that round and
refit had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well, so the thirty-ninth round read other languages' role mailboxes, an
SSN under its key, national numbers after a phone's word, more place
keys and columns, and refitted the vetter with the thirty-ninth set's
blind run; the fortieth set was written apart while the thirty-eighth
round was built, was not opened until the thirty-ninth round and refit had
been committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
the fortieth round read national numbers after more languages' phone
words, SSNs in brackets beside a name, under an INSERT's column and after
the SSN's name in words, and refitted the vetter with the fortieth set's
blind run; the forty-first set was written apart while it did, was not
opened until that round and refit had been committed, and was then run
once, under the example config and the defaults, and reported as it came
out. It had then been seen as well, so the forty-first round read more
phone words, SSNs under a table's `ssn` column, places people play at, no
place inside a team's name, and refitted the vetter with the forty-first
set's blind run; the forty-second set was written apart while it did,
was not opened until that round and refit had been committed, and was
then run once, under the example config and the defaults, and reported as
it came out. It had then been seen as well, so the forty-second round read
towns in other scripts with a place's cue, places people eat, drink and
stay at, someone there by a personal mailbox's address, and refitted the
vetter with the forty-second set's blind run; the forty-third set was
written apart while it did, was not opened until that round and refit had
been committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
the forty-third round read businesses' names, a chat copy's speakers over
their messages, more languages' role mailboxes, Arabic and Persian
titles, cards under a table's card column, and refitted the vetter with
the forty-third set's blind run; the forty-fourth set was written apart
at the same time as the forty-third, was not opened until that round and
refit had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well, so the forty-fourth round read places with their case endings on
short lines, a review's mends were made, and the vetter was refitted with
the forty-fourth set's blind run; the forty-fifth set was written apart
while the forty-third round was built, was not opened until the
forty-fourth round, the mends and the refit had been committed, and was
then run once, under the example config and the defaults, and reported
as it came out. It had then been seen as well, so the vetter was refitted
with its blind run and the forty-fifth round read towns before where
people are, other languages' keys of place, Greek and Cyrillic titles,
Korean and Burmese places with their particles, and a product line's
names as no one's; the forty-sixth set was written apart while the refit
and that round were built, was not opened until both had been committed,
and was then run once, under the example config and the defaults, and
reported as it came out. It had then been seen as well, so the vetter was
refitted with its blind run and the forty-sixth round read fields as
Android resources, Clojure maps, Ruby blocks and R vectors write them, a
town before its state's code in the next cell, a whole name beside a
street's number, other languages' closings, and more languages' role
mailboxes; the forty-seventh set was written apart at the same time as
the forty-sixth, was not opened until that round and refit had been
committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
the vetter was refitted with its blind run, the forty-seventh round read
single-quoted dicts, setters, CSV towns and states, Irish counties and
Uzbek endings, and a review's mends were made; the forty-eighth set was
written apart while that round was built, was not opened until the round,
the mends and the refit had been committed, and was then run once, under
the example config and the defaults, and reported as it came out. It had
then been seen as well, so the vetter was refitted with its blind run and
the forty-eighth round read E.164 phones over cards, SSNs written again,
psql headers, Polish plural endings and streets with no number; the
forty-ninth set was written apart before that round was built, was not
opened until the round, its review's mends and the refit had been
committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
the vetter was refitted with its blind run and the forty-ninth round read
names in Indic scripts by their surnames, titles written onto names,
Lithuanian cases and address markup, and a review's mends were made; the
fiftieth set was written apart while the forty-eighth round was built, was
not opened until the forty-ninth round, its review's mends and the refit
had been committed, and was then run once, under the example config and
the defaults, and reported as it came out. It had then been seen as well,
so the vetter was refitted with its blind run and the fiftieth round read
Uzbek's dative and PHP's state keys (a review removed the rest); the
fifty-first set was written apart while the forty-ninth round was built,
was not opened until the fiftieth round and the refit had been committed,
and was then run once, under the example config and the defaults, and
reported as it came out. It had then been seen as well; the fiftieth
round's review's mends were made, and the fifty-second set, written apart
meanwhile, was not opened until they had been committed, and was then run
once, under the example config and the defaults, and reported as it came
out. It had then been seen as well, so the vetter was refitted with its
blind run and the fifty-first round read Czech and Slovak lines as one,
more cities by their own language's names, places in text about systems
where a person is named in lower case, and a script's places over the NER
model's guess, and a review's mends were made; the fifty-third set was
written apart meanwhile, was not opened until the round and the mends had
been committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
the vetter was refitted with its blind run and the fifty-second round
read Maestro's ranges, phones' words in unspaced scripts, mobiles by
their country's shape and cards under payment keys, and a review's mends
were made; the fifty-fourth set was written apart meanwhile, was not
opened until the round and the mends had been committed, and was then run
once, under the example config and the defaults, and reported as it came
out: the first run to meet every target. So the fifty-fifth set was
written apart after that run, to measure the same rules again: nothing
was changed and the vetter was not refitted between the two runs. It was
then run once, under the example config and the defaults, and reported as
it came out. It had then been seen as well, so the vetter was refitted
with both runs, its misses were read (Croatian's fleeting a, Polish's
verbs of calling, a W-2's number) and a review's mends were made; the
fifty-sixth set was written apart meanwhile, was not opened until they
had been committed, and was then run once, under the example config and
the defaults, and reported as it came out. It had then been seen as well,
so the vetter was refitted with its blind run and its misses were read
(record keys for places, a key and its value apart, an address field's
street with no street's word, kin words, Teams' stamped lines), and a
review's mends were made; the fifty-seventh set was written apart
meanwhile, was not opened until they had been committed, and was then
run once, under the example config and the defaults, and reported as it
came out. It had then been seen as well, so the vetter was refitted with
its blind run and its misses were read (Markdown's emphasis, a call's
given name and surname, a town in a URL's query, a vector's places), and
a review's mends were made; the fifty-eighth set was written apart
meanwhile, was not opened until they had been committed, and was then
run once, under the example config and the defaults, and reported as it
came out. It had then been seen as well, so the vetter was refitted with
its blind run and its misses were read (role mailboxes, a month after a
time's word, a payment's card, another SSN a sentence offers), and a
review's mends were made; the fifty-ninth set was written apart
meanwhile, was not opened until they had been committed, and was then
run once, under the example config and the defaults, and reported as it
came out. It had then been seen as well, so the vetter was refitted with
its blind run and its misses were read (routes, sites after a town, a
courier's zone, lists of places, lower-case streets, Indic endings,
Teams' headed lines), and a review's mends were made; the sixtieth set
was written apart meanwhile, was not opened until they had been
committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
the vetter was refitted with its blind run and its misses were read
(Teams' stacked lines, greetings, message ids, a US record's town,
`gecos`, Terraform's defaults, case endings), and a review's mends were
made; the sixty-first set was written apart meanwhile, was not opened
until they had been committed, and was then run once, under the example
config and the defaults, and reported as it came out. It had then been
seen as well, so the vetter was refitted with its blind run and its
misses were read (structured values in records with no SSN word, then
places: Khmer, Lao, Burmese and Amharic cities by their running-text
names, state codes, Romance `de` after an article's noun, Polish `pod`),
and a review's mends were made; the sixty-second set was written apart
meanwhile, was not opened until they had been committed, and was then
run once, under the example config and the defaults, and reported as it
came out. It had then been seen as well, so the vetter was refitted with
its blind run and its misses were read (forms' fields, psql's expanded
rows, hyphenated towns, Vietnamese districts), and a review's mends were
made; the sixty-third set was written apart meanwhile, was not opened
until they had been committed, and was then run once, under the example
config and the defaults, and reported as it came out. It met all seven
targets, so the sixty-fourth set, written apart meanwhile, was run once
on the same rules, with no refit and no round between, and reported as
it came out. It missed two targets by one item each, so the vetter was
refitted with both blind runs and the sixty-fourth's errors were read
(cards in 6-13 groups and under a Luhn check's call, masked mail, chat
speakers, a person's city after `di`), and a review's mends were made;
the sixty-fifth set was written apart meanwhile, was not opened until
they had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well, so its wrong finds were read (role mailboxes, postal codes, time
zones' names, Teams' speakers, a product's name inflected in Cyrillic),
and a review's mends were made; the sixty-sixth set was written apart
meanwhile, was not opened until they had been committed, and was then
run once, under the example config and the defaults, and reported as it
came out. It had then been seen as well, so its errors were read (towns
named after saints, counties, Hungarian adjectives of towns, a header's
columns, Exim's message ids), and a review's mends were made; the
sixty-seventh set was written apart meanwhile, was not opened until they
had been committed, and was then run once, under the example config and
the defaults, and reported as it came out. It had then been seen as
well, so its errors were read (.mailmap handles, Discord's German
headers, a greeting, `spam@`, Portugal's mobile's word), and a review's
mends were made; the sixty-eighth set was written apart meanwhile, was
not opened until they had been committed, and was then run once, under
the example config and the defaults, and reported as it came out. It had
then been seen as well, so its errors were read (bookings' mailboxes, a
greeting before a title's letter); the sixty-ninth set was written apart
meanwhile, was not opened until those changes had been committed, and was
then run once, under the example config and the defaults, and reported as
it came out. It had then been seen as well, so its structured errors were
read (a card under a card's key, desks' mailboxes), and a review's mends
to both rounds were made; the seventieth set was written apart meanwhile,
was not opened until they had been committed, and was then run once,
under the example config and the defaults, and reported as it came out.
It had then been seen as well, so its errors were read, but the two
readings tried from them (Italian's word for calling back, an SSN's last
four marking a record) were taken out again after a review, so the rules
did not change; the seventy-first set was written apart meanwhile, was
not opened until then, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well, so its errors were read (places where a person's number is,
branches' keys, streets after `on`, a place named again), and a review's
mends were made; the seventy-second set was written apart meanwhile, was
not opened until they had been committed, and was then run once, under
the example config and the defaults, and reported as it came out. It had
then been seen as well, so its errors were read (other languages'
geographic words, long cards' brands, call words), and a review's mends
were made; the seventy-third set was written apart meanwhile, was not
opened until they had been committed, and was then run once, under the
example config and the defaults, and reported as it came out. It had
then been seen as well, so its errors were read (desks' mailboxes, a
gettext header's team list), and a review's mends were made; the
seventy-fourth set was written apart meanwhile, was not opened until
they had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well, so its errors were read (chat exports' speakers, shops' and clubs'
names, an access log's fields, IBANs of zeros), and a review's mends
were made; the seventy-fifth set was written apart meanwhile, was not
opened until they had been committed, and was then run once, under the
example config and the defaults, and reported as it came out. It had
then been seen as well, so its errors were read (Teams copies' speakers,
a product's name in Cyrillic, companies, towns' lists), and a review's
mends were made; the seventy-sixth set was written apart meanwhile, was
not opened until they had been committed, and was then run once, under
the example config and the defaults, and reported as it came out. It had
then been seen as well, so its errors were read (a city's case after
`из`, towns in R vectors, one speaker's turns), and a review's mends
were made; the seventy-seventh set was written apart meanwhile, was not
opened until they had been committed, and was then run once, under the
example config and the defaults, and reported as it came out (its first
run stopped on a bug in the Japanese name reader, which was mended first).
It had then been seen as well, so its errors were read (an acronym taken
for a kin word, a customer service's mailbox); the seventy-eighth set
was written apart meanwhile, was not opened until they had been
committed, and was then run once, under the example config and the
defaults, and reported as it came out. It had then been seen as well, so
its errors were read (RuPay's and Vietnam's cards), and, with every set's
missed values, a round on the structured types (a person's values in
their row, national phone numbers), typefaces named like places, and two
reviews' mends were made;
the seventy-ninth set was written apart meanwhile, was not opened until
they had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. The eightieth set was written apart beside
it, and was opened after that run with no change to the rules between,
then run once in the same way and reported as it came out. It had then
been seen as well, so its errors were read (an SSN masked but for the
last four and written whole, an SSN's and a card brand's keys,
placeholders' zeroed numbers, a rota's days, Discord's speakers), and a
round was made; the eighty-first set was written apart meanwhile, was
not opened until it had been committed, and was then run once, under the
example config and the defaults, and reported as it came out.
The eighty-second set was written apart beside it, and was opened after
that run with no change to the rules between, then run once in the same
way and reported as it came out. It had then been seen as well, so its
errors were read (a phone's column in a header, a comment after a row,
a holder's card, typefaces and test strings named like people and
places), and a round was made and reviewed; the eighty-third set was
written apart meanwhile, was not opened until it had been committed, and
was then run once, under the example config and the defaults, and
reported as it came out. The eighty-fourth set was written apart beside
it, and was opened after that run with no change to the rules between,
then run once in the same way and reported as it came out. It had then
been seen as well, so its errors were read (a province beside a name, a
listed SSN, a reaction's emoji), and a round was made and reviewed;
The eighty-fifth set was written apart meanwhile, was not opened until
it had been committed, and was then run once, under the example config
and the defaults, and reported as it came out. It had then been seen as
well, so its errors were read (a US record's state fields, a ferry's
route), and a round was made and reviewed; the eighty-sixth set was
written apart meanwhile, was not opened until it had been committed, and
was then run once, under the example config and the defaults, and
reported as it came out. It had then been seen as well, so its errors
were read (a town's column, a two-column CSV), and a round was made and
reviewed; the eighty-seventh set was written apart meanwhile, was not
opened until it had been committed, and was then run once, under the
example config and the defaults, and reported as it came out. It had
then been seen as well, so its errors were read (a card's record, an
IBAN run on into letters, tagged SSNs, a town before a state's cell,
Cyrillic streets, card networks, Teams copies in Japanese), and a round
was made and reviewed; the eighty-eighth set was written apart
meanwhile, was not opened until it had been committed, and was then run
once, under the example config and the defaults, and reported as it came
out. It had then been seen as well, so its errors were read (two phone
cues, a noun before a name, a rider's field, a Korean word's city), and
a round was made and reviewed; the eighty-ninth set was written apart
meanwhile, was not opened until it had been committed, and was then run
once, under the example config and the defaults, and reported as it came
out. It had then been seen as well, so its errors were read (a phone in
a two-cell table and in a list, a time zone's name, Teams guests and
call events), and a round was made and reviewed; the ninetieth set was
written apart meanwhile, was not opened until it had been committed, and
was then run once, under the example config and the defaults, and
reported as it came out. It had then been seen as well, so its errors
were read (a person's site, home and pier, Azure's regions), and a round
was made and reviewed; the ninety-first set was written apart meanwhile,
was not opened until it had been committed, and was then run once, under
the example config and the defaults, and reported as it came out. The
ninety-second set was written apart meanwhile too, and was opened after
that run with no change to the rules between, then run once in the same
way and reported as it came out. It had then been seen as well, so its
errors were read (a CI server before its build, a thing ordered by
number, a guild's name), and a round was made and reviewed; the
ninety-third set was written apart meanwhile, was not opened until it
had been committed, and was then run once, under the example config and
the defaults, and reported as it came out. It had then been seen as
well, so its errors were read (a card's key, Arabic's phone and contact,
a list's next phone), and a round was made and reviewed; the
ninety-fourth set was written apart beside the ninety-third, was not
opened until that round had been committed, and was then run once in the
same way and reported as it came out. It had then been seen as well, so
its errors were read (a card printed six and thirteen, an owner's state,
an HTML row's state, a person's shed and shop), and a round was made and
reviewed; the ninety-fifth set was written apart while the round on the
ninety-third set was made, was not opened until the round on the
ninety-fourth had been committed, and was then run once in the same way
and reported as it came out. It had then been seen as well, so its
errors were read (an address glued to Korean, Czech's `we call`, a mail
map's second address, a state before Vietnamese), and a round was made
and reviewed; `held-aside` (the ninety-sixth set) was written apart
while the round on the ninety-fourth set's errors was made, was not
opened until the round on the ninety-fifth had been committed, and was
then run once in the same way and reported as it came out. It is the set
that measures; the others are tuning data.

"Clean technical sentences flagged": of the sentences of a technical kind
(not `prose`) with nothing labelled, the share in which the step would act on
something (a finding whose type's action is not `allow` under the params:
redact, block or restrict), and the share with any finding at all.

Each sentence goes through the scanner the `guards.pii` step builds
(`Scanner(backend, entities_of(backend), threshold, ...)`, with the decoded
readings of the entity types whose action is block), one text at a time. With
`--config`, the params of the config's `guards.pii` step are used (the backend
is still the row's), and after the analysis each finding goes through the
step's own filter (guards/pii_params.py `Precision`): its type's `threshold`
(else the step's), the `allow` terms (the step's and its type's, as a whole
word in any case) and its type's `allow_patterns` (matching the whole
finding). Params the step would refuse are refused here too.

Matching: a finding matches a labelled span of the same type that it overlaps.
TP counts labelled spans matched, FN the rest; FP counts findings that match
none. Precision is the share of findings that match (a name found as two
pieces counts once for recall, twice for precision), recall TP / (TP + FN).
`strict` counts a finding only when its start and end are the span's. Types
the set does not label (IP_ADDRESS, NRP) are counted apart, not scored.

Prints the tables; saves bench/results/pii_precision.json and .png (with
--config: pii_precision-<config name>.*). Deterministic; not a test.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import needs
import yaml
from pydantic import ValidationError
from report import Bars, save

from taskgate.guards.names import Names, names_for
from taskgate.guards.pii_params import PiiParams, Precision, action_of
from taskgate.guards.presidio import PATTERN_ENTITIES, Backend, entities_of, warm
from taskgate.guards.scan import Finding, Scanner
from taskgate.guards.views import Decoding

HERE = Path(__file__).resolve().parent
SET = HERE / "pii_labelled" / "sentences.jsonl"
TECHNICAL = HERE / "pii_labelled" / "technical.jsonl"
SECOND = HERE / "pii_labelled" / "technical_held2.jsonl"  # held aside in the second round; tuning data since
THIRD = HERE / "pii_labelled" / "technical_held3.jsonl"  # held aside in the third round; tuning data since
FOURTH = HERE / "pii_labelled" / "technical_held4.jsonl"  # held aside in the fourth round; tuning data since
FIFTH = HERE / "pii_labelled" / "technical_held5.jsonl"  # held aside in the fifth round; tuning data since
SIXTH = HERE / "pii_labelled" / "technical_held6.jsonl"  # held aside in the sixth round; tuning data since
SEVENTH = HERE / "pii_labelled" / "technical_held7.jsonl"  # held aside while the vetter was fitted; tuning since
EIGHTH = HERE / "pii_labelled" / "technical_held8.jsonl"  # held aside in the eighth round; tuning data since
NINTH = HERE / "pii_labelled" / "technical_held9.jsonl"  # held aside in the ninth round; tuning data since
TENTH = HERE / "pii_labelled" / "technical_held10.jsonl"  # held aside in the tenth round; tuning data since
ELEVENTH = HERE / "pii_labelled" / "technical_held11.jsonl"  # held aside in the eleventh round; tuning since
TWELFTH = HERE / "pii_labelled" / "technical_held12.jsonl"  # held aside in the twelfth round; tuning data since
THIRTEENTH = HERE / "pii_labelled" / "technical_held13.jsonl"  # held aside in the thirteenth round; tuning since
FOURTEENTH = HERE / "pii_labelled" / "technical_held14.jsonl"  # held aside in the fourteenth round; tuning since
FIFTEENTH = HERE / "pii_labelled" / "technical_held15.jsonl"  # held aside in the fifteenth round; tuning since
SIXTEENTH = HERE / "pii_labelled" / "technical_held16.jsonl"  # held aside in the sixteenth round; tuning since
SEVENTEENTH = HERE / "pii_labelled" / "technical_held17.jsonl"  # held aside in the seventeenth round; tuning since
EIGHTEENTH = HERE / "pii_labelled" / "technical_held18.jsonl"  # held aside in the eighteenth round; tuning since
NINETEENTH = HERE / "pii_labelled" / "technical_held19.jsonl"  # held aside in the nineteenth round; tuning since
TWENTIETH = HERE / "pii_labelled" / "technical_held20.jsonl"  # held aside in the twentieth round; tuning since
TWENTY_FIRST = HERE / "pii_labelled" / "technical_held21.jsonl"  # held aside in the twenty-first round; tuning since
TWENTY_SECOND = HERE / "pii_labelled" / "technical_held22.jsonl"  # held aside in the twenty-second round; tuning since
TWENTY_THIRD = HERE / "pii_labelled" / "technical_held23.jsonl"  # held aside in the twenty-third round; tuning since
TWENTY_FOURTH = HERE / "pii_labelled" / "technical_held24.jsonl"  # held aside in the twenty-fourth round; tuning since
TWENTY_FIFTH = HERE / "pii_labelled" / "technical_held25.jsonl"  # held aside in the twenty-fifth round; tuning since
TWENTY_SIXTH = HERE / "pii_labelled" / "technical_held26.jsonl"  # held aside in the twenty-sixth round; tuning since
TWENTY_SEVENTH = HERE / "pii_labelled" / "technical_held27.jsonl"  # held aside in the 27th round; tuning since
TWENTY_EIGHTH = HERE / "pii_labelled" / "technical_held28.jsonl"  # held aside in the 28th round; tuning since
TWENTY_NINTH = HERE / "pii_labelled" / "technical_held29.jsonl"  # held aside in the 29th round; tuning since
THIRTIETH = HERE / "pii_labelled" / "technical_held30.jsonl"  # held aside in the 30th round; tuning since
THIRTY_FIRST = HERE / "pii_labelled" / "technical_held31.jsonl"  # held aside in the 31st round; tuning since
THIRTY_SECOND = HERE / "pii_labelled" / "technical_held32.jsonl"  # held aside in the 32nd round; tuning since
THIRTY_THIRD = HERE / "pii_labelled" / "technical_held33.jsonl"  # held aside in the 33rd round; tuning since
THIRTY_FOURTH = HERE / "pii_labelled" / "technical_held34.jsonl"  # held aside in the 34th round; tuning since
THIRTY_FIFTH = HERE / "pii_labelled" / "technical_held35.jsonl"  # held aside in the 35th round; tuning since
THIRTY_SIXTH = HERE / "pii_labelled" / "technical_held36.jsonl"  # held aside in the 36th round; tuning since
THIRTY_SEVENTH = HERE / "pii_labelled" / "technical_held37.jsonl"  # held aside in the 37th round; tuning since
THIRTY_EIGHTH = HERE / "pii_labelled" / "technical_held38.jsonl"  # held aside in the 38th round; tuning since
THIRTY_NINTH = HERE / "pii_labelled" / "technical_held39.jsonl"  # held aside in the 39th round; tuning since
FORTIETH = HERE / "pii_labelled" / "technical_held40.jsonl"  # held aside in the 40th round; tuning since
FORTY_FIRST = HERE / "pii_labelled" / "technical_held41.jsonl"  # held aside in the 41st round; tuning since
FORTY_SECOND = HERE / "pii_labelled" / "technical_held42.jsonl"  # held aside in the 42nd round; tuning since
FORTY_THIRD = HERE / "pii_labelled" / "technical_held43.jsonl"  # held aside in the 43rd round; tuning since
FORTY_FOURTH = HERE / "pii_labelled" / "technical_held44.jsonl"  # held aside in the 44th round; tuning since
FORTY_FIFTH = HERE / "pii_labelled" / "technical_held45.jsonl"  # held aside in the 45th round; tuning since
FORTY_SIXTH = HERE / "pii_labelled" / "technical_held46.jsonl"  # held aside in the 46th round; tuning since
FORTY_SEVENTH = HERE / "pii_labelled" / "technical_held47.jsonl"  # held aside in the 47th round; tuning since
FORTY_EIGHTH = HERE / "pii_labelled" / "technical_held48.jsonl"  # held aside in the 48th round; tuning since
FORTY_NINTH = HERE / "pii_labelled" / "technical_held49.jsonl"  # held aside in the 49th round; tuning since
FIFTIETH = HERE / "pii_labelled" / "technical_held50.jsonl"  # held aside in the 50th round; tuning since
FIFTY_FIRST = HERE / "pii_labelled" / "technical_held51.jsonl"  # held aside in the 51st run; tuning since
FIFTY_SECOND = HERE / "pii_labelled" / "technical_held52.jsonl"  # held aside in the 52nd run; tuning since
FIFTY_THIRD = HERE / "pii_labelled" / "technical_held53.jsonl"  # held aside in the 53rd run; tuning since
FIFTY_FOURTH = HERE / "pii_labelled" / "technical_held54.jsonl"  # held aside in the 54th run; tuning since
FIFTY_FIFTH = HERE / "pii_labelled" / "technical_held55.jsonl"  # held aside in the 55th run; tuning since
FIFTY_SIXTH = HERE / "pii_labelled" / "technical_held56.jsonl"  # held aside in the 56th run; tuning since
FIFTY_SEVENTH = HERE / "pii_labelled" / "technical_held57.jsonl"  # held aside in the 57th run; tuning since
FIFTY_EIGHTH = HERE / "pii_labelled" / "technical_held58.jsonl"  # held aside in the 58th run; tuning since
FIFTY_NINTH = HERE / "pii_labelled" / "technical_held59.jsonl"  # held aside in the 59th run; tuning since
SIXTIETH = HERE / "pii_labelled" / "technical_held60.jsonl"  # held aside in the 60th run; tuning since
SIXTY_FIRST = HERE / "pii_labelled" / "technical_held61.jsonl"  # held aside in the 61st run; tuning since
SIXTY_SECOND = HERE / "pii_labelled" / "technical_held62.jsonl"  # held aside in the 62nd run; tuning since
SIXTY_THIRD = HERE / "pii_labelled" / "technical_held63.jsonl"  # held aside in the 63rd run; tuning since
SIXTY_FOURTH = HERE / "pii_labelled" / "technical_held64.jsonl"  # held aside in the 64th run; tuning since
SIXTY_FIFTH = HERE / "pii_labelled" / "technical_held65.jsonl"  # held aside in the 65th run; tuning since
SIXTY_SIXTH = HERE / "pii_labelled" / "technical_held66.jsonl"  # held aside in the 66th run; tuning since
SIXTY_SEVENTH = HERE / "pii_labelled" / "technical_held67.jsonl"  # held aside in the 67th run; tuning since
SIXTY_EIGHTH = HERE / "pii_labelled" / "technical_held68.jsonl"  # held aside in the 68th run; tuning since
SIXTY_NINTH = HERE / "pii_labelled" / "technical_held69.jsonl"  # held aside in the 69th run; tuning since
SEVENTIETH = HERE / "pii_labelled" / "technical_held70.jsonl"  # held aside in the 70th run; tuning since
SEVENTY_FIRST = HERE / "pii_labelled" / "technical_held71.jsonl"  # held aside in the 71st run; tuning since
SEVENTY_SECOND = HERE / "pii_labelled" / "technical_held72.jsonl"  # held aside in the 72nd run; tuning since
SEVENTY_THIRD = HERE / "pii_labelled" / "technical_held73.jsonl"  # held aside in the 73rd run; tuning since
SEVENTY_FOURTH = HERE / "pii_labelled" / "technical_held74.jsonl"  # held aside in the 74th run; tuning since
SEVENTY_FIFTH = HERE / "pii_labelled" / "technical_held75.jsonl"  # held aside in the 75th run; tuning since
SEVENTY_SIXTH = HERE / "pii_labelled" / "technical_held76.jsonl"  # held aside in the 76th run; tuning since
SEVENTY_SEVENTH = HERE / "pii_labelled" / "technical_held77.jsonl"  # held aside in the 77th run; tuning since
SEVENTY_EIGHTH = HERE / "pii_labelled" / "technical_held78.jsonl"  # held aside in the 78th run; tuning since
SEVENTY_NINTH = HERE / "pii_labelled" / "technical_held79.jsonl"  # held aside in the 79th run; tuning since
EIGHTIETH = HERE / "pii_labelled" / "technical_held80.jsonl"  # held aside in the 80th run; tuning since
EIGHTY_FIRST = HERE / "pii_labelled" / "technical_held81.jsonl"  # held aside in the 81st run; tuning since
EIGHTY_SECOND = HERE / "pii_labelled" / "technical_held82.jsonl"  # held aside in the 82nd run; tuning since
EIGHTY_THIRD = HERE / "pii_labelled" / "technical_held83.jsonl"  # held aside in the 83rd run; tuning since
EIGHTY_FOURTH = HERE / "pii_labelled" / "technical_held84.jsonl"  # held aside in the 84th run; tuning since
EIGHTY_FIFTH = HERE / "pii_labelled" / "technical_held85.jsonl"  # held aside in the 85th run; tuning since
EIGHTY_SIXTH = HERE / "pii_labelled" / "technical_held86.jsonl"  # held aside in the 86th run; tuning since
EIGHTY_SEVENTH = HERE / "pii_labelled" / "technical_held87.jsonl"  # held aside in the 87th run; tuning since
EIGHTY_EIGHTH = HERE / "pii_labelled" / "technical_held88.jsonl"  # held aside in the 88th run; tuning since
EIGHTY_NINTH = HERE / "pii_labelled" / "technical_held89.jsonl"  # held aside in the 89th run; tuning since
NINETIETH = HERE / "pii_labelled" / "technical_held90.jsonl"  # held aside in the 90th run; tuning since
NINETY_FIRST = HERE / "pii_labelled" / "technical_held91.jsonl"  # held aside in the 91st run; tuning since
NINETY_SECOND = HERE / "pii_labelled" / "technical_held92.jsonl"  # held aside in the 92nd run; tuning since
NINETY_THIRD = HERE / "pii_labelled" / "technical_held93.jsonl"  # held aside in the 93rd run; tuning since
NINETY_FOURTH = HERE / "pii_labelled" / "technical_held94.jsonl"  # held aside in the 94th run; tuning since
NINETY_FIFTH = HERE / "pii_labelled" / "technical_held95.jsonl"  # held aside in the 95th run; tuning since
# the sets written apart and held aside in turn, each tuning data once it had been run
WRITTEN_APART = (
    ("second set", SECOND), ("third set", THIRD), ("fourth set", FOURTH), ("fifth set", FIFTH), ("sixth set", SIXTH),
    ("seventh set", SEVENTH), ("eighth set", EIGHTH), ("ninth set", NINTH), ("tenth set", TENTH),
    ("eleventh set", ELEVENTH), ("twelfth set", TWELFTH), ("thirteenth set", THIRTEENTH),
    ("fourteenth set", FOURTEENTH), ("fifteenth set", FIFTEENTH), ("sixteenth set", SIXTEENTH),
    ("seventeenth set", SEVENTEENTH), ("eighteenth set", EIGHTEENTH), ("nineteenth set", NINETEENTH),
    ("twentieth set", TWENTIETH), ("twenty-first set", TWENTY_FIRST), ("twenty-second set", TWENTY_SECOND),
    ("twenty-third set", TWENTY_THIRD), ("twenty-fourth set", TWENTY_FOURTH), ("twenty-fifth set", TWENTY_FIFTH),
    ("twenty-sixth set", TWENTY_SIXTH), ("twenty-seventh set", TWENTY_SEVENTH), ("twenty-eighth set", TWENTY_EIGHTH),
    ("twenty-ninth set", TWENTY_NINTH), ("thirtieth set", THIRTIETH), ("thirty-first set", THIRTY_FIRST),
    ("thirty-second set", THIRTY_SECOND), ("thirty-third set", THIRTY_THIRD), ("thirty-fourth set", THIRTY_FOURTH),
    ("thirty-fifth set", THIRTY_FIFTH), ("thirty-sixth set", THIRTY_SIXTH), ("thirty-seventh set", THIRTY_SEVENTH),
    ("thirty-eighth set", THIRTY_EIGHTH), ("thirty-ninth set", THIRTY_NINTH), ("fortieth set", FORTIETH),
    ("forty-first set", FORTY_FIRST),
    ("forty-second set", FORTY_SECOND),
    ("forty-third set", FORTY_THIRD),
    ("forty-fourth set", FORTY_FOURTH),
    ("forty-fifth set", FORTY_FIFTH),
    ("forty-sixth set", FORTY_SIXTH),
    ("forty-seventh set", FORTY_SEVENTH),
    ("forty-eighth set", FORTY_EIGHTH),
    ("forty-ninth set", FORTY_NINTH),
    ("fiftieth set", FIFTIETH),
    ("fifty-first set", FIFTY_FIRST),
    ("fifty-second set", FIFTY_SECOND),
    ("fifty-third set", FIFTY_THIRD),
    ("fifty-fourth set", FIFTY_FOURTH),
    ("fifty-fifth set", FIFTY_FIFTH),
    ("fifty-sixth set", FIFTY_SIXTH),
    ("fifty-seventh set", FIFTY_SEVENTH),
    ("fifty-eighth set", FIFTY_EIGHTH),
    ("fifty-ninth set", FIFTY_NINTH),
    ("sixtieth set", SIXTIETH),
    ("sixty-first set", SIXTY_FIRST),
    ("sixty-second set", SIXTY_SECOND),
    ("sixty-third set", SIXTY_THIRD),
    ("sixty-fourth set", SIXTY_FOURTH),
    ("sixty-fifth set", SIXTY_FIFTH),
    ("sixty-sixth set", SIXTY_SIXTH),
    ("sixty-seventh set", SIXTY_SEVENTH),
    ("sixty-eighth set", SIXTY_EIGHTH),
    ("sixty-ninth set", SIXTY_NINTH),
    ("seventieth set", SEVENTIETH),
    ("seventy-first set", SEVENTY_FIRST),
    ("seventy-second set", SEVENTY_SECOND),
    ("seventy-third set", SEVENTY_THIRD),
    ("seventy-fourth set", SEVENTY_FOURTH),
    ("seventy-fifth set", SEVENTY_FIFTH),
    ("seventy-sixth set", SEVENTY_SIXTH),
    ("seventy-seventh set", SEVENTY_SEVENTH),
    ("seventy-eighth set", SEVENTY_EIGHTH),
    ("seventy-ninth set", SEVENTY_NINTH),
    ("eightieth set", EIGHTIETH),
    ("eighty-first set", EIGHTY_FIRST),
    ("eighty-second set", EIGHTY_SECOND),
    ("eighty-third set", EIGHTY_THIRD),
    ("eighty-fourth set", EIGHTY_FOURTH),
    ("eighty-fifth set", EIGHTY_FIFTH),
    ("eighty-sixth set", EIGHTY_SIXTH),
    ("eighty-seventh set", EIGHTY_SEVENTH),
    ("eighty-eighth set", EIGHTY_EIGHTH),
    ("eighty-ninth set", EIGHTY_NINTH),
    ("ninetieth set", NINETIETH),
    ("ninety-first set", NINETY_FIRST),
    ("ninety-second set", NINETY_SECOND),
    ("ninety-third set", NINETY_THIRD),
    ("ninety-fourth set", NINETY_FOURTH),
    ("ninety-fifth set", NINETY_FIFTH),
)  # fmt: skip
HELD_ASIDE = HERE / "pii_labelled" / "technical_held96.jsonl"  # the ninety-sixth set: measured when it is there
EXAMPLE = HERE.parent / "examples" / "taskgate.yaml"
RESULTS = HERE / "results"
LABELLED = ("PERSON", "LOCATION", "EMAIL_ADDRESS", "PHONE_NUMBER", "IBAN_CODE", "CREDIT_CARD", "US_SSN")
STRUCTURED = tuple(t for t in LABELLED if t in PATTERN_ENTITIES)
TOP = 15


@dataclass(frozen=True, slots=True)
class Span:
    entity: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    kind: str
    spans: tuple[Span, ...]
    split: str = ""


def load(path: Path) -> list[Sentence]:
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        spans = tuple(Span(e["type"], e["start"], e["end"]) for e in row["entities"])
        for s in spans:
            if s.entity not in LABELLED or not 0 <= s.start < s.end <= len(row["text"]):
                raise SystemExit(f"{path.name}:{number}: bad span {s}")
        out.append(Sentence(row["text"], row["kind"], spans, row.get("split", "")))
    return out


def sets(split: str, path: Path | None) -> dict[str, list[Sentence]]:
    """The sets to measure, by name: one `--set`, or the tuning sets (the labelled set, the technical set's
    splits, the second to ninety-fifth sets) and the held-aside set (the ninety-sixth, once it is there)."""
    if path is not None:
        return {path.stem: load(path)}
    out: dict[str, list[Sentence]] = {}
    if split != "held-aside":
        technical = load(TECHNICAL)
        out["labelled"] = load(SET)
        out["technical tune"] = [s for s in technical if s.split == "tune"]
        out["technical held"] = [s for s in technical if s.split == "held"]
        out.update((name, load(path)) for name, path in WRITTEN_APART)
    if split == "held-aside" and not HELD_ASIDE.exists():
        raise SystemExit(f"{HELD_ASIDE} is missing: the ninety-sixth set is not written yet")
    if split in ("held-aside", "all") and HELD_ASIDE.exists():
        out["held-aside"] = load(HELD_ASIDE)
    return out


# the step's params, from a config or the defaults


def pii_step_params(config: Path, step: str | None) -> dict[str, Any]:
    raw = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    steps = [s for s in raw.get("steps") or [] if isinstance(s, dict) and s.get("type") == "guards.pii"]
    if step is not None:
        steps = [s for s in steps if s.get("name") == step]
    if not steps:
        which = f"named {step!r} " if step else ""
        raise SystemExit(f"{config}: no guards.pii step {which}under `steps`")
    params = steps[0].get("params") or {}
    if not isinstance(params, dict):
        raise SystemExit(f"{config}: the guards.pii step's params are not a mapping")
    return params


def params_for(raw: dict[str, Any], backend: Backend) -> PiiParams:
    """The step's params for this backend (rules for types it cannot find dropped), validated as the step does."""
    data = {**raw, "backend": backend}
    if isinstance(data.get("entities"), dict):
        data["entities"] = {e: r for e, r in data["entities"].items() if e in entities_of(backend)}
    try:
        return PiiParams.model_validate(data)
    except ValidationError as exc:
        raise SystemExit(f"guards.pii params: {exc}") from None


def describe(params: PiiParams) -> dict[str, Any]:
    rules = params.entities
    return {
        "threshold": params.threshold,
        "thresholds": {e: r.threshold for e, r in rules.items() if r.threshold is not None},
        "allow": len(params.allow),
        "allow_per_type": {e: len(r.allow) for e, r in rules.items() if r.allow},
        "allow_patterns": {e: len(r.allow_patterns) for e, r in rules.items() if r.allow_patterns},
        "ner_scope": params.ner_scope,
        "names": params.names,
        "allow_test_values": params.allow_test_values,
        "vetter": params.vetter and (params.vetter_threshold if params.vetter_threshold is not None else "fitted"),
    }


def scanner_for(params: PiiParams, precision: Precision, names: Names | None) -> Scanner:
    """The scanner the step builds for these params (its cache off: every sentence is analysed)."""
    blocked = tuple(e for e in PATTERN_ENTITIES if action_of(params.entities, params.default_action, e) == "block")
    d = params.decode
    decode = Decoding(blocked, d.max_runs, d.max_chars) if d.enabled and blocked else None
    low = precision.lowest
    return Scanner(params.backend, entities_of(params.backend), low, 0, decode, params.ner_scope, names)


def acting(params: PiiParams) -> frozenset[str]:
    """The entity types the step acts on under these params (redact, block, restrict): not `allow`."""
    return frozenset(e for e in LABELLED if action_of(params.entities, params.default_action, e) != "allow")


# measuring


def run(backend: Backend, sentences: list[Sentence], raw: dict[str, Any]) -> dict[str, Any]:
    params = params_for(raw, backend)
    warm(backend)
    warm("patterns")
    names = names_for(params)
    precision = Precision(params, names.mailbox_part if names is not None else None)  # the step's own filter
    scanner = scanner_for(params, precision, names)
    started = time.perf_counter()
    found: list[list[Finding]] = []
    for s in sentences:
        kept = list(precision.kept(s.text, scanner.analyze(s.text)))
        found.append(kept)
    seconds = time.perf_counter() - started
    result = score(backend, sentences, found, acting(params))
    result |= {"seconds": round(seconds, 2), "params": describe(params)}
    return result


def _overlaps(a: Span | Finding, b: Span | Finding) -> bool:
    return a.start < b.end and b.start < a.end


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def _f1(p: float | None, r: float | None) -> float | None:
    if p is None or r is None:
        return None
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def counts(tp: int, fp: int, fn: int, matched: int, found: int, stp: int, sfound: int) -> dict[str, Any]:
    p, r = _ratio(matched, found), _ratio(tp, tp + fn)
    sp, sr = _ratio(stp, sfound), _ratio(stp, tp + fn)
    return {
        "spans": tp + fn,
        "found": found,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "precision": p,
        "recall": r,
        "f1": _f1(p, r),
        "strict": {"tp": stp, "precision": sp, "recall": sr, "f1": _f1(sp, sr)},
    }


def score(
    backend: Backend, sentences: list[Sentence], found: list[list[Finding]], acts: frozenset[str]
) -> dict[str, Any]:
    looked_for = set(entities_of(backend))
    tally: dict[str, Counter[str]] = defaultdict(Counter)
    false_positives: list[dict[str, Any]] = []
    false_negatives: list[dict[str, Any]] = []
    unscored: dict[str, Counter[str]] = defaultdict(Counter)
    by_kind: dict[str, Counter[str]] = {k: Counter() for k in sorted({s.kind for s in sentences})}
    for index, (s, findings) in enumerate(zip(sentences, found, strict=True)):
        kind = by_kind[s.kind]
        kind["sentences"] += 1
        kind["with_entities"] += bool(s.spans)
        wrong = 0
        for f in findings:
            value = s.text[f.start : f.end]
            if f.entity not in LABELLED:
                unscored[f.entity][value] += 1
                continue
            t = tally[f.entity]
            t["found"] += 1
            gold = [g for g in s.spans if g.entity == f.entity]
            if any(_overlaps(f, g) for g in gold):
                t["matched"] += 1
            else:
                t["fp"] += 1
                wrong += 1
                false_positives.append(
                    {
                        "sentence": index,
                        "kind": s.kind,
                        "entity": f.entity,
                        "value": value,
                        "score": round(f.score, 2),
                        "via": f.via,
                    }
                )
            t["strict_found"] += 1
            t["strict_tp"] += any((g.start, g.end) == (f.start, f.end) for g in gold)
        for g in s.spans:
            t = tally[g.entity]
            same = [f for f in findings if f.entity == g.entity]
            if any(_overlaps(f, g) for f in same):
                t["tp"] += 1
            else:
                t["fn"] += 1
                other = [f.entity for f in findings if _overlaps(f, g)]
                false_negatives.append(
                    {
                        "sentence": index,
                        "kind": s.kind,
                        "entity": g.entity,
                        "value": s.text[g.start : g.end],
                        "found_as": other,
                    }
                )
        kind["fp"] += wrong
        kind["clean_flagged"] += bool(wrong) and not s.spans
        kind["clean_acted"] += not s.spans and any(f.entity in acts for f in findings)
        kind["clean"] += not s.spans
    types = {
        e: counts(t["tp"], t["fp"], t["fn"], t["matched"], t["found"], t["strict_tp"], t["strict_found"])
        | {"looked_for": e in looked_for}
        for e in LABELLED
        for t in [tally[e]]
    }
    overall = {name: _sum(types, group) for name, group in (("all", LABELLED), ("structured", STRUCTURED))}
    top = Counter((fp["value"], fp["entity"]) for fp in false_positives).most_common(TOP)
    kinds_of: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for fp in false_positives:
        kinds_of[(fp["value"], fp["entity"])][fp["kind"]] += 1
    technical = [c for k, c in by_kind.items() if k != "prose"]
    clean = sum(c["clean"] for c in technical)
    return {
        "backend": backend,
        "clean_technical": {
            "sentences": clean,
            "acted": sum(c["clean_acted"] for c in technical),
            "flagged": sum(c["clean_flagged"] for c in technical),
            "acted_share": _ratio(sum(c["clean_acted"] for c in technical), clean),
        },
        "types": types,
        "overall": overall,
        "by_kind": {k: dict(v) for k, v in by_kind.items()},
        "top_false_positives": [
            {"value": v, "entity": e, "count": n, "kinds": dict(kinds_of[(v, e)])} for (v, e), n in top
        ],
        "unscored": {e: {"count": sum(c.values()), "values": dict(c.most_common(10))} for e, c in unscored.items()},
        "false_positives": false_positives,
        "false_negatives": false_negatives,
    }


def _sum(types: dict[str, Any], group: Iterable[str]) -> dict[str, Any]:
    keys = ("tp", "fp", "fn", "found")
    total = {k: sum(types[e][k] for e in group) for k in keys}
    matched = sum(types[e]["found"] - types[e]["fp"] for e in group)
    strict_tp = sum(types[e]["strict"]["tp"] for e in group)
    return counts(total["tp"], total["fp"], total["fn"], matched, total["found"], strict_tp, total["found"])


# reporting


def _pct(x: float | None) -> str:
    return "   -" if x is None else f"{100 * x:4.0f}"


def table(result: dict[str, Any]) -> str:
    """One run (a config, a backend, a set) in full: every type, the kinds, the most frequent false positives."""
    backend = result["backend"]
    head = (
        f"{'type':14s} {'spans':>5s} {'found':>5s} {'TP':>4s} {'FP':>4s} {'FN':>4s}   {'P%':>4s} {'R%':>4s} {'F1%':>4s}"
    )
    lines = [
        f"backend {backend}: {result['seconds']:.1f} s, params {json.dumps(result['params'])}",
        head + f"   strict {'P%':>4s} {'R%':>4s} {'F1%':>4s}",
    ]

    def row(name: str, m: dict[str, Any], note: str = "") -> str:
        st = m["strict"]
        return (
            f"{name:14s} {m['spans']:5d} {m['found']:5d} {m['tp']:4d} {m['fp']:4d} {m['fn']:4d}   "
            f"{_pct(m['precision'])} {_pct(m['recall'])} {_pct(m['f1'])}          "
            f"{_pct(st['precision'])} {_pct(st['recall'])} {_pct(st['f1'])}{note}"
        )

    for e, m in result["types"].items():
        lines.append(row(e, m, "" if m["looked_for"] else "   (not looked for by this backend)"))
    lines.append(row("all", result["overall"]["all"]))
    lines.append(row("structured", result["overall"]["structured"], "   (the pattern types)"))
    lines.append(f"\n{'kind':7s} {'sentences':>9s} {'with PII':>8s} {'FP':>4s} {'clean, any finding':>19s} "
                 f"{'clean, acted on':>16s}")  # fmt: skip
    for k, c in result["by_kind"].items():
        clean = c.get("clean", 0)
        share = f"{c.get('clean_flagged', 0)}/{clean} ({_pct(_ratio(c.get('clean_flagged', 0), clean)).strip()}%)"
        acted = f"{c.get('clean_acted', 0)}/{clean} ({_pct(_ratio(c.get('clean_acted', 0), clean)).strip()}%)"
        lines.append(
            f"{k:7s} {c.get('sentences', 0):9d} {c.get('with_entities', 0):8d} {c.get('fp', 0):4d} {share:>19s} "
            f"{acted:>16s}"
        )
    if result["top_false_positives"]:
        lines.append(f"\nmost frequent false positives ({backend}):")
        for fp in result["top_false_positives"]:
            where = ", ".join(f"{k} {n}" for k, n in fp["kinds"].items())
            lines.append(
                f"  {fp['count']:3d}  {fp['entity']:13s} {json.dumps(fp['value'], ensure_ascii=False):30s} ({where})"
            )
    for e, u in result["unscored"].items():
        sample = ", ".join(json.dumps(v, ensure_ascii=False) for v in list(u["values"])[:5])
        lines.append(f"not labelled, not scored: {e} x{u['count']} ({sample})")
    return "\n".join(lines)


def side_by_side(config: str, runs: dict[str, dict[str, Any]]) -> str:
    """Each set (split) in a column: precision and recall per type, and clean technical sentences acted on."""
    names = list(runs)
    lines = [f"\n== {config}: precision / recall % per type (overlap match), by set", f"{'type':14s}" + "".join(
        f" {n:>20s}" for n in names)]  # fmt: skip
    for e in [*LABELLED, "structured"]:
        cells = []
        for n in names:
            m = runs[n]["overall"]["structured"] if e == "structured" else runs[n]["types"][e]
            cells.append(f"{_pct(m['precision']).strip():>4s} / {_pct(m['recall']).strip():>4s}  (n={m['spans']:3d})")
        lines.append(f"{e:14s}" + "".join(f" {c:>20s}" for c in cells))
    acted = []
    for n in names:
        c = runs[n]["clean_technical"]
        acted.append(f"{c['acted']}/{c['sentences']} ({_pct(c['acted_share']).strip()}%)")
    lines.append(f"{'clean tech.':14s}" + "".join(f" {a:>20s}" for a in acted) + "   acted on (redact/block/restrict)")
    return "\n".join(lines)


def summary(sentences: list[Sentence]) -> dict[str, Any]:
    kinds = Counter(s.kind for s in sentences)
    with_entities = Counter(s.kind for s in sentences if s.spans)
    spans = Counter(g.entity for s in sentences for g in s.spans)
    return {
        "sentences": len(sentences),
        "with_entities": sum(with_entities.values()),
        "kinds": {k: {"sentences": kinds[k], "with_entities": with_entities[k]} for k in sorted(kinds)},
        "spans": {e: spans[e] for e in LABELLED},
    }


def plot(result: dict[str, Any], path: Path) -> None:
    """Per config: precision and recall per name type and the structured types by set, and clean text acted on."""
    panels = []
    for config, runs in result["configs"].items():
        names = list(runs)
        groups = [f"{e} {m}" for e in ("PERSON", "LOCATION", "structured") for m in ("precision", "recall")]

        def value(run: dict[str, Any], group: str) -> float | None:
            entity, metric = group.split()
            m = run["overall"]["structured"] if entity == "structured" else run["types"][entity]
            return None if m[metric] is None else 100 * m[metric]

        series = {n: [value(runs[n], g) for g in groups] for n in names}
        panels.append(Bars(f"{config}: precision and recall by set", "%", groups, series, "{:.0f}"))
        shares = {n: [100 * (runs[n]["clean_technical"]["acted_share"] or 0)] for n in names}
        panels.append(
            Bars(f"{config}: clean technical sentences acted on", "% of clean technical sentences",
                 ["acted on"], shares, "{:.1f}")
        )  # fmt: skip
    title = f"taskgate guards.pii on labelled sets ({platform.machine()})"
    save(path, title, panels, columns=2)


def main() -> int:
    needs.plotting()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=("ner", "patterns"), default="ner")
    parser.add_argument("--config", type=Path, help="a taskgate config: its guards.pii step's params, alone")
    parser.add_argument("--step", help="the guards.pii step's name, when the config has more than one")
    parser.add_argument("--set", type=Path, help="one labelled set (JSON lines) instead of the two")
    parser.add_argument(
        "--split", choices=("tune", "held-aside", "all"), default="all",
        help="the tuning sets (the labelled set, the technical set's splits, the second to ninety-fifth sets), or "
        "the held-aside (ninety-sixth) set",
    )  # fmt: skip
    parser.add_argument("--ner-scope", choices=("capitalised", "all"), help="override the params' ner_scope")
    parser.add_argument("--names", choices=("lexicon", "ner"), help="override the params' names")
    parser.add_argument("--vetter", choices=("on", "off"), help="override the params' vetter (guards/vetting.py)")
    parser.add_argument(
        "--test-values", choices=("allow", "personal"), help="override the params' allow_test_values (testvalues.py)"
    )
    parser.add_argument("--details", action="store_true", help="print each run in full, not only the summary")
    args = parser.parse_args()
    configs: dict[str, dict[str, Any]] = (
        {str(args.config): pii_step_params(args.config, args.step)}
        if args.config
        else {"the step's defaults": {}, str(EXAMPLE.relative_to(HERE.parent)): pii_step_params(EXAMPLE, None)}
    )
    measured = sets(args.split, args.set)
    result: dict[str, Any] = {"sets": {n: summary(s) for n, s in measured.items()}, "configs": {}}
    for name, s in result["sets"].items():
        print(f"{name}: {s['sentences']} sentences, {s['with_entities']} with labelled entities; spans: "
              + ", ".join(f"{e} {n}" for e, n in s["spans"].items()))  # fmt: skip
    for config, raw in configs.items():
        overrides = {k: v for k, v in (("ner_scope", args.ner_scope), ("names", args.names)) if v}
        if args.vetter:
            overrides["vetter"] = args.vetter == "on"
        if args.test_values:
            overrides["allow_test_values"] = args.test_values == "allow"
        raw = {**raw, **overrides}
        runs = {name: run(args.backend, sentences, raw) for name, sentences in measured.items()}
        result["configs"][config] = runs
        if args.details:
            for name, r in runs.items():
                print(f"\n--- {config}, {name}\n" + table(r))
        print(side_by_side(config, runs))
    RESULTS.mkdir(exist_ok=True)
    stem = "pii_precision" if args.config is None else f"pii_precision-{args.config.stem}"
    stem += "".join(f"-{v}" for v in (args.backend if args.backend != "ner" else None, args.names, args.ner_scope,
                                      f"vetter-{args.vetter}" if args.vetter else None,
                                      f"test-values-{args.test_values}" if args.test_values else None,
                                      args.split if args.split != "all" else None) if v)  # fmt: skip
    (RESULTS / f"{stem}.json").write_text(json.dumps(result, indent=2, ensure_ascii=False))
    plot(result, RESULTS / f"{stem}.png")
    print(f"\nsaved {RESULTS / stem}.png and {stem}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
