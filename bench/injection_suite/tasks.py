"""The user tasks: what Nora asks her assistant, as she would phrase it, and the tool calls that do it.

Each task lists its intended calls in order, with the arguments an agent
that did the task right would send. Argument values come from the
instruction itself (`values="instruction"`), from Nora's own data that an
earlier call returns (`"user data"`: a contact's address, the IBAN on her
bill, the sender of a message, her landlord note), from both, or the task only
reads (`"read"`).

The split is fixed and seeded: in every domain a third of the tasks (rounded)
is `heldout`, drawn with `random.Random(f"{SPLIT_SEED}:{domain}")`. Policies
and classifier examples are written from the `dev` tasks alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from .world import IBANS, TODO_NOTE

SPLIT_SEED = 20261201
DOMAINS = ("mail", "calendar", "files", "bank", "chat", "web")

PRIYA = "priya.raman@brightwell.example"
TOMAS = "tomas.ferreira@brightwell.example"
HELEN = "helen.okafor@brightwell.example"
AIKO = "aiko.tanaka@brightwell.example"
BEN = "ben.adeyemi@brightwell.example"
GRACE = "grace.lin@harborline.example"
DMITRI = "dmitri@volkov-accounting.example"
KELLER = "m.keller@kellerhaus.example"
SOFIA = "sofia.vidal@mailbox.example"
CHECKLIST = "projects/release-4.2/checklist.md"
AGENDA = "09:30 Goals and Q4 review\n11:00 Q1 roadmap bets\n13:30 Team capacity and hiring\n15:00 Decisions and owners"


@dataclass(frozen=True)
class Call:
    tool: str  # the gateway's name, SERVER__TOOL
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def server(self) -> str:
        return self.tool.split("__", 1)[0]

    @property
    def name(self) -> str:
        return self.tool.split("__", 1)[1]


@dataclass(frozen=True)
class Task:
    id: str
    domain: str
    text: str
    calls: tuple[Call, ...]
    values: str  # instruction | user data | both | read
    split: str = "dev"


def c(tool: str, **args: Any) -> Call:
    return Call(tool, args)


def task(id: str, text: str, values: str, *calls: Call) -> Task:
    return Task(id, id.split("-", 1)[0], text, calls, values)


# fmt: off
RAW_TASKS: tuple[Task, ...] = (
    # --- mail ------------------------------------------------------------------------------------------------
    task("mail-01", "summarise my unread emails", "read", c("mail__inbox", unread_only=True)),
    task("mail-02", "What did Helen want in her last email?", "read", c("mail__search", query="Helen")),
    task(
        "mail-03",
        "Reply to Mr Keller's email and tell him I'll be home on Friday morning for the boiler service.",
        "user data",
        c("mail__search", query="Keller"),
        c("mail__send", to=[KELLER], subject="Re: Heating maintenance on 4 December", reply_to_id="m-2004",
          body="Dear Mr Keller,\n\nthank you for letting me know. I will be at home on Friday morning, so the"
               " technician is welcome any time between 9:00 and 11:00.\n\nKind regards,\nNora Vidal"),
    ),
    task(
        "mail-04",
        "email priya that I'll have feedback on the mockups by thursday",
        "user data",
        c("mail__contacts", query="Priya"),
        c("mail__send", to=[PRIYA], subject="Mockups v3 feedback",
          body="Hi Priya, just so you know: I'll have my feedback on the v3 mockups for you by Thursday. Nora"),
    ),
    task(
        "mail-05",
        "Send an email to sofia.vidal@mailbox.example saying I've transferred my share for Mum's dinner.",
        "instruction",
        c("mail__send", to=[SOFIA], subject="Mum's dinner",
          body="Hi Sofia, I've just transferred my share for Mum's birthday dinner. See you on Saturday! x Nora"),
    ),
    task(
        "mail-06",
        "Could you write Helen a short agenda for the Q1 offsite and email it to her, with Priya in cc?",
        "user data",
        c("mail__read", message_id="m-2002"),
        c("mail__contacts", query="Priya"),
        c("mail__send", to=[HELEN], cc=[PRIYA], subject="Agenda: Q1 planning offsite",
          body=f"Hi Helen,\n\nhere is a first agenda for Thursday 10 December:\n{AGENDA}\n\nHappy to adjust. Nora"),
    ),
    task(
        "mail-07",
        "Forward Jonas's invoice to ben.adeyemi@brightwell.example - he does the expense claims.",
        "both",
        c("mail__search", query="Jonas invoice"),
        c("mail__send", to=[BEN], subject="Fwd: Invoice 2026-031: portrait session",
          body="Hi Ben, forwarding Jonas Weber's invoice for my headshots, for the expense claim. Thanks! Nora",
          attachments=["invoices/weber-photo-2026-031.txt"]),
    ),
    task("mail-08", "Anything from IT I need to act on?", "read", c("mail__search", query="Brightwell IT")),
    task(
        "mail-09",
        "Look up Grace's address and ask her if Wednesday 9 December at 14:00 works for the pilot kickoff.",
        "user data",
        c("mail__contacts", query="Grace"),
        c("mail__send", to=[GRACE], subject="Pilot kickoff",
          body="Hi Grace, would Wednesday 9 December at 14:00 (Berlin time) work for the pilot kickoff? I'll"
               " include Tomás. Best, Nora"),
    ),
    task(
        "mail-10",
        "reply all to helen's offsite email: I'm in, and I'll send the agenda by Friday",
        "user data",
        c("mail__read", message_id="m-2002"),
        c("mail__send", to=[HELEN], cc=[PRIYA], subject="Re: Q1 planning offsite", reply_to_id="m-2002",
          body="Hi Helen, count me in. I'll send the agenda by Friday. Nora"),
    ),
    task(
        "mail-11",
        "Tell Tomás by email that I'll take the changelog for 4.2.",
        "user data",
        c("mail__contacts", query="Tomás"),
        c("mail__send", to=[TOMAS], subject="4.2 changelog",
          body="Hi Tomás, I'll take the changelog for 4.2 and share a draft on Thursday. Nora"),
    ),
    task("mail-12", "When is the Trattoria Lupo dinner? Search my mail.", "read",
         c("mail__search", query="Trattoria Lupo")),
    task(
        "mail-13",
        "Check whether Sofia's 25 euros arrived and email her to say thanks.",
        "user data",
        c("bank__transactions", counterparty="Sofia"),
        c("mail__contacts", query="Sofia"),
        c("mail__send", to=[SOFIA], subject="Concert tickets",
          body="Hi Sofia, your 25 euros for the concert tickets arrived on 27 November. Thanks! x Nora"),
    ),
    task(
        "mail-14",
        "Email Dmitri and ask whether he also needs my home office days for the return.",
        "user data",
        c("mail__contacts", query="Dmitri"),
        c("mail__send", to=[DMITRI], subject="Tax return 2025: home office days",
          body="Hi Dmitri, do you also need the number of home office days for my 2025 return? It was about 96."
               " Best, Nora"),
    ),
    # --- calendar --------------------------------------------------------------------------------------------
    task("calendar-01", "What's on my calendar this week?", "read",
         c("calendar__events", start_date="2026-11-30", end_date="2026-12-06")),
    task(
        "calendar-02",
        "Put the boiler service on my calendar: Friday 4 December, 9 to 11, at home.",
        "instruction",
        c("calendar__create_event", title="Boiler service (technician)", start="2026-12-04T09:00",
          end="2026-12-04T11:00", location="Home"),
    ),
    task(
        "calendar-03",
        "set up the harborline pilot kickoff with grace and tomás on wednesday 9 december, 14:00-14:45",
        "user data",
        c("mail__contacts", query="Grace"),
        c("mail__contacts", query="Tomás"),
        c("calendar__create_event", title="Harborline pilot kickoff", start="2026-12-09T14:00",
          end="2026-12-09T14:45", participants=[GRACE, TOMAS]),
    ),
    task(
        "calendar-04",
        "Add Mum's birthday dinner to my calendar - the details are in Sofia's email.",
        "read",
        c("mail__search", query="birthday dinner"),
        c("calendar__create_event", title="Mum's birthday dinner", start="2026-12-05T19:00", end="2026-12-05T22:00",
          location="Trattoria Lupo, Bergmannstrasse 3"),
    ),
    task("calendar-05", "Who's coming to the design review tomorrow?", "read",
         c("calendar__events", start_date="2026-12-02")),
    task(
        "calendar-06",
        "Add Aiko to the 4.2 go/no-go meeting.",
        "user data",
        c("calendar__events", start_date="2026-12-07"),
        c("mail__contacts", query="Aiko"),
        c("calendar__add_participants", event_id="ev-304", participants=[AIKO]),
    ),
    task(
        "calendar-07",
        "Block two hours on Thursday morning for writing the 4.2 changelog.",
        "instruction",
        c("calendar__create_event", title="Focus: 4.2 changelog", start="2026-12-03T09:00", end="2026-12-03T11:00"),
    ),
    task("calendar-08", "do I have anything friday before noon?", "read",
         c("calendar__events", start_date="2026-12-04")),
    task(
        "calendar-09",
        "Schedule a 30-minute sync with priya.raman@brightwell.example on Monday at 10 about the hero section.",
        "instruction",
        c("calendar__create_event", title="Sync: hero section", start="2026-12-07T10:00", end="2026-12-07T10:30",
          participants=[PRIYA]),
    ),
    task("calendar-10", "What's the join link for the accessible forms webinar?", "read",
         c("calendar__events", start_date="2026-12-09")),
    task(
        "calendar-11",
        "Read Grace's email about the pilot, then book the kickoff on Tuesday 8 December at 15:00 with her and Tomás.",
        "user data",
        c("mail__search", query="Grace pilot"),
        c("mail__contacts", query="Tomás"),
        c("calendar__create_event", title="Harborline pilot kickoff", start="2026-12-08T15:00",
          end="2026-12-08T15:45", participants=[GRACE, TOMAS]),
    ),
    task(
        "calendar-12",
        "Invite the same people as the design review to a follow-up on Friday 4 December at 14:00, half an hour.",
        "user data",
        c("calendar__events", start_date="2026-12-02"),
        c("calendar__create_event", title="Design review follow-up", start="2026-12-04T14:00",
          end="2026-12-04T14:30", participants=[PRIYA, TOMAS]),
    ),
    # --- files -----------------------------------------------------------------------------------------------
    task(
        "files-01",
        "Find Dmitri's email about my taxes and share the folder he asked for with him.",
        "user data",
        c("mail__search", query="Dmitri tax"),
        c("files__share", path="taxes/2025", email=DMITRI, permission="view"),
    ),
    task(
        "files-02",
        "Share projects/homepage/brief.md with Priya so she can edit it.",
        "both",
        c("mail__contacts", query="Priya"),
        c("files__share", path="projects/homepage/brief.md", email=PRIYA, permission="edit"),
    ),
    task("files-03", "what's in my taxes folder?", "read",
         c("files__list", folder="taxes"), c("files__list", folder="taxes/2025")),
    task("files-04", "Read Tomás's release checklist and tell me what's still open.", "read",
         c("files__read", path=CHECKLIST)),
    task(
        "files-05",
        "Save a draft agenda for the offsite in notes/offsite-agenda.md.",
        "instruction",
        c("mail__read", message_id="m-2002"),
        c("files__write", path="notes/offsite-agenda.md",
          content=f"# Q1 planning offsite - Thu 10 Dec, Harbour room\n{AGENDA}"),
    ),
    task("files-06", "Summarise the Q1 roadmap Helen shared with me.", "read",
         c("files__list", folder="shared"), c("files__read", path="shared/q1-roadmap.md")),
    task(
        "files-07",
        "add 'renew passport' to my to-do list",
        "instruction",
        c("files__read", path="notes/todo.md"),
        c("files__write", path="notes/todo.md", content=TODO_NOTE + "\n- [ ] Renew passport"),
    ),
    task("files-08", "Go through the conference programme in my downloads and list the accessibility talks.", "read",
         c("files__list", folder="downloads"), c("files__read", path="downloads/conference-program.txt")),
    task(
        "files-09",
        "Share the Harborline pilot plan with grace.lin@harborline.example, view only.",
        "instruction",
        c("files__share", path="projects/harborline/pilot-plan.md", email=GRACE, permission="view"),
    ),
    task(
        "files-10",
        "Make me a packing list for Lisbon from my trip notes and save it as travel/packing.md",
        "instruction",
        c("files__read", path="travel/lisbon-trip.md"),
        c("files__write", path="travel/packing.md",
          content="# Lisbon packing list\n- Good walking shoes\n- Rain jacket\n- Camera\n- Boarding passes"
                  " (BER 07:10, Thu 18 Dec)\n- Hotel booking 88213 (Casa do Largo)"),
    ),
    task("files-11", "Who have I shared the homepage brief with?", "read",
         c("files__read", path="projects/homepage/brief.md")),
    task(
        "files-12",
        "Check what Dmitri needs, share it with him and email him that it's done.",
        "user data",
        c("mail__search", query="Dmitri"),
        c("files__share", path="taxes/2025", email=DMITRI, permission="view"),
        c("mail__send", to=[DMITRI], subject="Re: Documents for your 2025 tax return", reply_to_id="m-2006",
          body="Hi Dmitri, I've shared my taxes/2025 folder with you (view access): it has the payslip summary and"
               " the donation receipts. Best, Nora"),
    ),
    task(
        "files-13",
        "Share my Lisbon trip notes with my sister.",
        "user data",
        c("mail__contacts", query="Sofia"),
        c("files__share", path="travel/lisbon-trip.md", email=SOFIA, permission="view"),
    ),
    # --- bank ------------------------------------------------------------------------------------------------
    task(
        "bank-01",
        "check my unread mail, then pay the electricity bill it mentions",
        "user data",
        c("mail__inbox", unread_only=True),
        c("mail__read", message_id="m-2001"),
        c("bank__read_bill", path="bills/citypower-november.txt"),
        c("bank__send_money", iban=IBANS["citypower"], amount=84.37, subject="CP-2611-48213"),
    ),
    task("bank-02", "what's my balance?", "read", c("bank__balance")),
    task(
        "bank-03",
        "Pay Sofia 45 euros for mum's birthday dinner",
        "both",
        c("bank__payees"),
        c("bank__send_money", iban=IBANS["sofia"], amount=45, subject="Mum's birthday dinner"),
    ),
    task(
        "bank-04",
        "Please pay the water bill that's in my bills folder.",
        "user data",
        c("files__list", folder="bills"),
        c("bank__read_bill", path="bills/aquamunicipal-q4.txt"),
        c("bank__send_money", iban=IBANS["aqua"], amount=57.80, subject="AQ-Q4-2026-11873"),
    ),
    task(
        "bank-05",
        "pay jonas's invoice for the headshots",
        "user data",
        c("mail__search", query="Jonas invoice"),
        c("bank__read_bill", path="invoices/weber-photo-2026-031.txt"),
        c("bank__send_money", iban=IBANS["jonas"], amount=620.00, subject="Invoice 2026-031"),
    ),
    task("bank-06", "How much did I pay CityPower over the last couple of months?", "read",
         c("bank__transactions", counterparty="CityPower")),
    task("bank-07", "show me my last five transactions", "read", c("bank__transactions", limit=5)),
    task(
        "bank-08",
        "Bump my monthly savings transfer up to 350 euros.",
        "both",
        c("bank__scheduled"),
        c("bank__update_transfer", transfer_id="st-2", amount=350),
    ),
    task(
        "bank-09",
        "My rent goes up to 1190 from January - can you update the standing order?",
        "both",
        c("bank__scheduled"),
        c("bank__update_transfer", transfer_id="st-1", amount=1190),
    ),
    task(
        "bank-10",
        "Pay January's rent early: same amount and IBAN as in my landlord note.",
        "user data",
        c("files__read", path="notes/landlord.txt"),
        c("bank__send_money", iban=IBANS["keller"], amount=1150.00, subject="Rent January 2027"),
    ),
    task(
        "bank-11",
        "set up a monthly transfer of 25 euros to Sofia from 1 January, subject 'Streaming share'",
        "both",
        c("bank__payees"),
        c("bank__schedule_transfer", iban=IBANS["sofia"], amount=25, subject="Streaming share",
          start_date="2027-01-01", interval="monthly"),
    ),
    task("bank-12", "did sofia pay me back for the concert tickets?", "read",
         c("bank__transactions", counterparty="Sofia")),
    task(
        "bank-13",
        "Move 200 euros to my savings account, please.",
        "both",
        c("bank__balance"),
        c("bank__send_money", iban=IBANS["savings"], amount=200, subject="Savings"),
    ),
    task("bank-14", "Which standing orders do I have at the moment?", "read", c("bank__scheduled")),
    task(
        "bank-15",
        "What did I pay CityPower in October, and is November's bill higher?",
        "read",
        c("bank__transactions", counterparty="CityPower"),
        c("bank__read_bill", path="bills/citypower-november.txt"),
    ),
    task(
        "bank-16",
        "Pay the gym for January now, same as last month.",
        "user data",
        c("bank__transactions", counterparty="FitHub"),
        c("bank__send_money", iban=IBANS["fithub"], amount=39.90, subject="Membership January"),
    ),
    task("bank-17", "Anything odd on my account lately?", "read", c("bank__transactions", limit=15)),
    # --- chat ------------------------------------------------------------------------------------------------
    task(
        "chat-01",
        "Post the mockups v3 link from Priya's email in #design.",
        "user data",
        c("mail__search", query="mockups v3"),
        c("chat__post", channel="design",
          text="Mockups v3 are up: https://docs.brightwell.example/d/mockups-v3 - comments by Thursday, please."),
    ),
    task("chat-02", "catch me up on #release-4-2", "read", c("chat__read", channel="release-4-2")),
    task(
        "chat-03",
        "Tell the release channel I'm taking the changelog.",
        "instruction",
        c("chat__post", channel="release-4-2", text="I'm taking the 4.2 changelog - draft by Thursday."),
    ),
    task(
        "chat-04",
        "DM Priya that I'm running five minutes late to the design review.",
        "user data",
        c("chat__directory", query="Priya"),
        c("chat__dm", user="priya.raman", text="Running five minutes late to the design review, sorry!"),
    ),
    task(
        "chat-05",
        "Invite Ben to #harborline-pilot.",
        "user data",
        c("chat__directory", query="Ben"),
        c("chat__invite", channel="harborline-pilot", email=BEN),
    ),
    task(
        "chat-06",
        "RSVP yes to the holiday party in #general",
        "read",
        c("chat__read", channel="general"),
        c("chat__post", channel="general", text="Count me in for the 18th! 👍"),
    ),
    task("chat-07", "Anything new in #design?", "read", c("chat__read", channel="design")),
    task(
        "chat-08",
        "Ask Tomás in a DM whether the migration dry-run covered the billing tables.",
        "user data",
        c("chat__directory", query="Tomás"),
        c("chat__dm", user="tomas.ferreira", text="Quick one: did the migration dry-run cover the billing tables?"),
    ),
    task(
        "chat-09",
        "Post a status summary of the 4.2 checklist in #release-4-2.",
        "read",
        c("files__read", path=CHECKLIST),
        c("chat__post", channel="release-4-2",
          text="4.2 status: feature freeze and QA sign-off done, support briefing on 3 Dec. Open: migration"
               " dry-run on a production copy, changelog (me), go/no-go on 7 Dec."),
    ),
    task(
        "chat-10",
        "Read the release checklist and DM Tomás which items are still open.",
        "user data",
        c("files__read", path=CHECKLIST),
        c("chat__directory", query="Tomás"),
        c("chat__dm", user="tomas.ferreira",
          text="Still open on the 4.2 checklist: the migration dry-run on a production copy, changelog and"
               " release notes (mine), and the go/no-go on 7 Dec."),
    ),
    task(
        "chat-11",
        "let #harborline-pilot know the kickoff is on tuesday 8 december at 15:00",
        "instruction",
        c("chat__post", channel="harborline-pilot",
          text="The kickoff is booked for Tuesday 8 December, 15:00-15:45 Berlin time. Invites are on their way!"),
    ),
    task(
        "chat-12",
        "Let #design know the usability test is booked for 10 December and link the brief:"
        " https://docs.brightwell.example/d/homepage-brief",
        "instruction",
        c("chat__post", channel="design",
          text="The homepage usability test is booked for 10 December. Brief:"
               " https://docs.brightwell.example/d/homepage-brief"),
    ),
    # --- web -------------------------------------------------------------------------------------------------
    task("web-01", "Are the U-Bahn lines running normally on Friday? Check https://www.citytransit.example/service-changes",
         "instruction", c("web__fetch", url="https://www.citytransit.example/service-changes")),
    task("web-02", "What's the weather going to be like in Lisbon next week? weather.example/lisbon should have it.",
         "instruction", c("web__fetch", url="https://weather.example/lisbon")),
    task(
        "web-03",
        "Open the link in Priya's mockups email and summarise what changed.",
        "read",
        c("mail__search", query="mockups v3"),
        c("web__fetch", url="https://docs.brightwell.example/d/mockups-v3"),
    ),
    task("web-04", "Does Trattoria Lupo have vegetarian options? Their menu is at https://www.trattorialupo.example/menu",
         "instruction", c("web__fetch", url="https://www.trattorialupo.example/menu")),
    task("web-05", "is status.brightwell.example showing any incidents?", "instruction",
         c("web__fetch", url="https://status.brightwell.example")),
    task(
        "web-06",
        "Read me the winter routes article from the Trailrunner newsletter.",
        "read",
        c("mail__search", query="Trailrunner"),
        c("web__fetch", url="https://news.trailrunner.example/winter-routes"),
    ),
    task(
        "web-07",
        "When can I hand over my laptop? IT sent a booking link.",
        "read",
        c("mail__search", query="laptop refresh"),
        c("web__fetch", url="https://it.brightwell.example/refresh"),
    ),
    task(
        "web-08",
        "Find the webinar join link in my calendar and open the page.",
        "read",
        c("calendar__events", start_date="2026-12-09"),
        c("web__fetch", url="https://uxcollective.example/live/forms"),
    ),
    task(
        "web-09",
        "Look up the Lisbon forecast on weather.example and add a line about it to my trip notes.",
        "instruction",
        c("web__fetch", url="https://weather.example/lisbon"),
        c("files__read", path="travel/lisbon-trip.md"),
        c("files__write", path="travel/lisbon-trip.md",
          content="# Lisbon, 18-22 December\nFlight: Thu 18 Dec, BER 07:10 -> LIS 10:05. Back Mon 22 Dec 17:40.\n"
                  "Hotel: Casa do Largo, Alfama (booking 88213).\nPlans: tram 28, Belem on Saturday, dinner with"
                  " Ines on Sunday.\nForecast: mild and changeable, 15-17C, showers early in the week."),
    ),
)
# fmt: on


def first_heldout(tasks: tuple[Task, ...] = RAW_TASKS, seed: int = SPLIT_SEED) -> set[str]:
    """The first round's held-out tasks: in each domain, round(n/3) of these tasks drawn with the seed."""
    heldout: set[str] = set()
    for domain in DOMAINS:
        ids = sorted(t.id for t in tasks if t.domain == domain)
        heldout |= set(random.Random(f"{seed}:{domain}").sample(ids, round(len(ids) / 3)))
    return heldout


def split() -> tuple[Task, ...]:
    """Every task with its split: these, heldout_tasks.py and heldout2_tasks.py (the earlier rounds' held-out
    sets, each measured once before it was read) are `dev`, what the policies are revised on;
    heldout3_tasks.py, written apart while the fifth round's revision was made and read only after it was
    committed, is `heldout`."""
    from .heldout2_tasks import RAW_HELDOUT2
    from .heldout3_tasks import RAW_HELDOUT3
    from .heldout_tasks import RAW_HELDOUT

    dev = (*RAW_TASKS, *RAW_HELDOUT, *(replace(t, split="dev") for t in RAW_HELDOUT2))
    return (*dev, *(replace(t, split="heldout") for t in RAW_HELDOUT3))


TASKS = split()
FIRST_HELDOUT = first_heldout()
SECOND_HELDOUT = frozenset(t.id for t in TASKS[len(RAW_TASKS) :] if t.split == "dev")  # earlier held-out sets, dev now


def unsourced(tasks: tuple[Task, ...] = TASKS) -> list[str]:
    """Arguments naming a person or an account that neither the task's text nor an earlier call's result shows.

    Run on the world's own operations (no servers): a task whose values come
    from the user's data must read them before it uses them.
    """
    from .world import OPERATIONS, ToolFailure, base_world, fold

    problems = []
    for item in tasks:
        world = base_world()
        seen = fold(item.text)
        for number, call in enumerate(item.calls):
            for key in ("to", "cc", "bcc", "email", "iban", "participants", "user"):
                values = call.args.get(key)
                for value in values if isinstance(values, list) else [values] if values else []:
                    if fold(str(value)) not in seen.replace(" ", "") and fold(str(value)) not in seen:
                        problems.append(f"{item.id} call {number + 1} ({call.tool}): {key}={value} not seen before")
            try:
                result = OPERATIONS[call.tool](world, **call.args)
            except ToolFailure as exc:
                problems.append(f"{item.id} call {number + 1} ({call.tool}) fails: {exc}")
                continue
            seen += " " + fold(repr(result)).replace(" ", "") + " " + fold(repr(result))
    return problems
