# ruff: noqa: E501  (the templates are data: one sentence a line)
"""Write sentences.jsonl: the labelled set bench/pii_precision.py measures the PII step against.

    python bench/pii_labelled/make.py            # rewrite sentences.jsonl (deterministic: seed 13)
    python bench/pii_labelled/make.py --check    # exit 1 if the committed file differs from what this writes

Each line is {"text", "entities": [{"type", "start", "end"}], "kind"}. Templates
are filled from the vocabularies below; a slot `«TYPE:pool#tag»` is labelled
as TYPE, a slot `«pool#tag»` is not. Slots with the same tag in one sentence
are the same person (a name and that person's email, say). Every span is
checked after filling: its text is the value put there, IBANs pass mod 97,
card numbers pass Luhn, SSNs are issuable, phone numbers are valid in their
country's plan.

What is labelled: names of people (first names alone, full names, surnames
after a title), places a person is in, from or going to (LOCATION), and the
structured types. What is not: products, projects and models named like
people (Jenkins, Hugo, Luigi, Claude), words that are also names used as
words ("Will the job...", "mark as done"), service and role addresses that
are not an address at all (`git@github.com:org/repo`), user handles, IP
addresses (not a type this set labels), datacenter regions.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import unicodedata
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import phonenumbers

SEED = 13
OUT = Path(__file__).resolve().parent / "sentences.jsonl"
KINDS = ("prose", "code", "log", "tech", "mixed")
Row = dict[str, Any]
TYPES = ("PERSON", "LOCATION", "EMAIL_ADDRESS", "PHONE_NUMBER", "IBAN_CODE", "CREDIT_CARD", "US_SSN")

# people: (first, last, full as written); full is "first last" unless the culture orders it otherwise
PEOPLE = [
    ("Priya", "Raman", None), ("Wei", "Zhang", None), ("Oluwaseun", "Adeyemi", None), ("Mateo", "Fernández", None),
    ("Siobhan", "O'Connell", None), ("Yuki", "Tanaka", None), ("Ahmed", "Haddad", None), ("Fatima", "Benali", None),
    ("Dmitri", "Volkov", None), ("Ingrid", "Solberg", None), ("Kwame", "Mensah", None), ("Aroha", "Ngata", None),
    ("Lan", "Nguyen", "Nguyen Thi Lan"), ("Kenji", "Watanabe", None), ("Sofia", "Lindqvist", None),
    ("Daniel", "Okoro", None), ("Tomás", "Herrera", None), ("Aisha", "Bello", None), ("Lars", "Eriksen", None),
    ("Mei", "Chen", None), ("Rafael", "Souza", None), ("Ana", "Pereira", None), ("Hannah", "Schmidt", None),
    ("Jakub", "Nowak", None), ("Chiara", "Romano", None), ("Emeka", "Nwosu", None), ("Leila", "Karimi", None),
    ("Omar", "Farouk", None), ("Anya", "Petrova", None), ("Sipho", "Dlamini", None), ("Thandiwe", "Moyo", None),
    ("Arjun", "Mehta", None), ("Kavya", "Iyer", None), ("Hiroshi", "Sato", None), ("Min-jun", "Kim", None),
    ("Seo-yeon", "Park", None), ("Carlos", "Mendoza", None), ("Lucía", "Torres", None), ("Élodie", "Martin", None),
    ("Jean-Baptiste", "Moreau", None), ("Giulia", "Bianchi", None), ("Marek", "Dvořák", None),
    ("Zeynep", "Yılmaz", None), ("Mehmet", "Demir", None), ("Nadia", "Rahman", None), ("Tariq", "Hussain", None),
    ("Bongani", "Khumalo", None), ("Ngozi", "Eze", None), ("Mariana", "Costa", None), ("Diego", "Alvarez", None),
    ("Freya", "Hansen", None), ("Ravi", "Kulkarni", None), ("Liam", "Doherty", None), ("Emily", "Carter", None),
    ("James", "Whitaker", None), ("Olivia", "Bennett", None), ("Noah", "Fischer", None), ("Chloé", "Dubois", None),
    ("Sarah", "Goldberg", None), ("David", "Cohen", None), ("Duc", "Pham", "Pham Minh Duc"),
    ("Alejandro", "Ruiz", None), ("Valentina", "Greco", None), ("Björn", "Andersson", None),
    ("Kalani", "Akana", None), ("Aleksandra", "Wiśniewska", None), ("Youssef", "El Amrani", None),
    ("Xiaoling", "Wu", None), ("Rohan", "Desai", None), ("Camille", "Laurent", None),
]  # fmt: skip
# first names that are also English words
WORD_PEOPLE = [
    ("Rose", "Kimani"), ("Will", "Harding"), ("Grace", "Okafor"), ("Hope", "Mwangi"), ("Mark", "Jensen"),
    ("Bill", "Novak"), ("Jack", "Reyes"), ("June", "Park"), ("April", "Nakamura"), ("Summer", "Lee"),
    ("Hunter", "Blake"), ("Chase", "Morgan"), ("Amber", "Singh"), ("Joy", "Adeyemi"), ("Dawn", "Fletcher"),
    ("Penny", "Walsh"), ("Ruby", "Castillo"), ("Frank", "Osei"), ("Ray", "Gallo"), ("Drew", "Patel"),
    ("Robin", "Hale"), ("Iris", "Kowalski"), ("Faith", "Omondi"), ("Sky", "Larsen"), ("Violet", "Ahmed"),
]  # fmt: skip
CITIES = [
    "Lisbon", "Nairobi", "Osaka", "São Paulo", "Toronto", "Kraków", "Melbourne", "Lagos", "Bangalore", "Reykjavik",
    "Marrakesh", "Cape Town", "Buenos Aires", "Edinburgh", "Montreal", "Auckland", "Hanoi", "Istanbul", "Seville",
    "Porto", "Rotterdam", "Gdańsk", "Accra", "Kyoto", "Busan", "Tbilisi", "Valparaíso", "Brisbane", "Galway",
    "Tucson", "Denver", "Manchester", "Lyon", "Turin", "Bergen", "Uppsala", "Cork", "Chicago", "Boston", "Hamburg",
]  # fmt: skip
COUNTRIES = [
    "Portugal", "Kenya", "Japan", "Brazil", "Canada", "Poland", "Australia", "Nigeria", "India", "Iceland",
    "Morocco", "Argentina", "Scotland", "New Zealand", "Vietnam", "Turkey", "Spain", "Ghana", "South Korea",
    "Georgia", "Chile", "Ireland", "Norway", "Sweden", "Mexico", "Peru", "Germany", "Italy",
]  # fmt: skip
PERSONAL_DOMAINS = ["gmail.com", "outlook.com", "proton.me", "fastmail.fm", "yahoo.co.uk", "icloud.com", "web.de",
                    "gmx.net", "hotmail.fr", "libero.it", "hey.com"]  # fmt: skip
WORK_DOMAINS = ["example.com", "example.org", "example.net", "kestrel-labs.com", "orbitfreight.co.uk",
                "brightlane.io", "northwind-logistics.com", "helio-health.org", "tidepool.dev", "fernbank.edu"]  # fmt: skip

TOOLS = {
    "obs": ["Grafana", "Kibana", "Datadog", "Prometheus", "Loki", "Jaeger", "Tempo", "Sentry", "New Relic",
            "Honeycomb"],
    "ci": ["Jenkins", "GitLab CI", "GitHub Actions", "Buildkite", "Drone", "TeamCity", "CircleCI", "Tekton"],
    "queue": ["Kafka", "RabbitMQ", "Redis Streams", "NATS", "Pulsar", "SQS"],
    "orch": ["Airflow", "Dagster", "Luigi", "Prefect", "Argo Workflows", "Celery beat"],
    "web": ["Django", "Flask", "FastAPI", "Rails", "Express", "Laravel", "Spring Boot", "Phoenix"],
    "iac": ["Terraform", "Pulumi", "Ansible", "Chef", "Puppet", "Salt", "Crossplane"],
    "mesh": ["Istio", "Linkerd", "Consul Connect", "Cilium", "Kuma"],
    "db": ["Postgres", "MySQL", "MariaDB", "CockroachDB", "Cassandra", "ClickHouse", "MongoDB", "Redis"],
    "llm": ["Claude", "Gemini", "Llama 3", "Mistral", "Qwen", "Gemma", "Phi-3", "Mixtral", "Falcon"],
    "k8stool": ["Helm", "Kustomize", "Argo CD", "Flux", "Velero", "Skaffold", "Tilt", "Rancher"],
}  # fmt: skip
POOLS: dict[str, list[str]] = {
    **TOOLS,
    "tool": sorted({t for group in TOOLS.values() for t in group}),
    "svc": ["checkout-api", "billing-worker", "auth-gateway", "search-indexer", "notifications", "ledger",
            "payments-api", "inventory-sync", "report-builder", "web-frontend", "edge-proxy", "feature-flags"],
    "ns": ["prod", "staging", "payments", "observability", "data-platform", "ml-serving", "monitoring",
           "ingress-nginx"],
    "env": ["prod", "staging", "dev", "eu-prod", "us-canary", "perf"],
    "branch": ["main", "release/2.14", "feature/replica-failover", "fix/celery-retry", "chore/bump-helm-chart",
               "hotfix/grafana-datasource", "renovate/kafka-3.x"],
    "dag": ["nightly_etl", "refresh_materialized_views", "export_invoices", "sync_crm_contacts", "train_ranker"],
    "task": ["extract_orders", "load_to_warehouse", "dbt_run", "notify_slack", "compute_features"],
    "metric": ["container_memory_working_set_bytes", "node_cpu_seconds_total", "http_request_duration_seconds_bucket",
               "kafka_consumergroup_lag", "pg_replication_lag_seconds", "redis_connected_clients",
               "celery_tasks_failed_total", "jvm_memory_used_bytes", "istio_requests_total",
               "process_resident_memory_bytes"],
    "alert": ["KubePodCrashLooping", "HighReplicaLag", "KafkaConsumerLagHigh", "NodeMemoryPressure", "TargetDown",
              "CeleryQueueBacklog", "CertificateExpiringSoon", "PostgresTooManyConnections"],
    "image": ["grafana/grafana", "bitnami/redis", "apache/airflow", "confluentinc/cp-kafka", "prom/prometheus",
              "hashicorp/terraform", "python", "node", "nginx", "postgres"],
    "host": ["db-replica-02", "ip-10-0-3-17.ec2.internal", "worker-eu-3", "kafka-1.kafka-headless", "node-7f3a",
             "build-agent-12", "edge-fra-04", "pg-primary-01", "cache-b.internal", "gke-prod-pool-2-9c1d"],
    "error_word": ["TimeoutError", "ConnectionResetError", "KeyError", "ValidationError", "OperationalError",
                   "DeadlockDetected"],
}  # fmt: skip

LOG_LINES = [
    "2024-06-14 03:12:44,118 ERROR celery.app.trace: Task tasks.sync_crm[1f0c2a9e] raised TimeoutError after 300s",
    "level=warn ts=2024-06-14T03:12:44.118Z caller=manager.go:214 msg=\"rule evaluation took longer than interval\"",
    "E0614 03:12:44.123456       1 reflector.go:138] watch of *v1.Endpoints ended with: too old resource version",
    "[error] 31#31: *4471 upstream timed out (110: Connection timed out) while reading response header from upstream",
    "kafka.server.ReplicaFetcherThread: [ReplicaFetcher replicaId=2, leaderId=1] Error sending fetch request",
]  # fmt: skip
SQL = [
    "SELECT o.id, c.region FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.created_at > now() - interval '7 days';",
    "SELECT * FROM events WHERE payload->>'type' = 'signup' ORDER BY ts DESC;",
    "DELETE FROM sessions WHERE last_seen < now() - interval '30 days';",
]  # fmt: skip
CODE = [
    "def fetch(url):\n    r = requests.get(url, timeout=5)\n    r.raise_for_status()\n    return r.json()",
    "for replica in replicas:\n    lag = replica.lag_bytes()\n    if lag > MAX_LAG:\n        replica.resync()",
    "def handler(event, context):\n    body = json.loads(event['body'])\n    return {'statusCode': 200, 'body': body['id']}",
]  # fmt: skip
YAML = [
    "services:\n  redis:\n    image: redis:7.2\n    ports: [\"6379:6379\"]\n  worker:\n    build: .\n    command: celery -A app worker",
    "web:\n  image: ghcr.io/acme/web:1.8.3\n  environment:\n    DJANGO_SETTINGS_MODULE: app.settings.prod\n  depends_on: [db]",
]  # fmt: skip
TRACES = [
    "Traceback (most recent call last):\n  File \"/app/worker.py\", line 88, in run\n    result = handler(payload)\nKeyError: 'tenant_id'",
    "java.lang.IllegalStateException: Connection pool shut down\n\tat org.apache.http.impl.conn.PoolingHttpClientConnectionManager.requestConnection(PoolingHttpClientConnectionManager.java:269)",
]  # fmt: skip
POOLS |= {"log_line": LOG_LINES, "sql": SQL, "code": CODE, "yaml": YAML, "trace": TRACES}

# (kind, template, instances)
WITH_ENTITIES: list[tuple[str, str, int]] = [
    ("prose", "Hi «PERSON:first#a», could you send the signed contract to «EMAIL_ADDRESS:email#b» before Friday?", 2),
    ("prose", "«PERSON:full#a» will join the platform team in our «LOCATION:city» office on Monday.", 2),
    ("prose", "Please call «PERSON:first#a» at «PHONE_NUMBER:phone» if the delivery is late.", 2),
    ("prose", "My name is «PERSON:full#a» and I'd like to update the card on file to «CREDIT_CARD:card».", 1),
    ("prose", "Wire the deposit to «IBAN_CODE:iban» (account holder: «PERSON:full#a»).", 2),
    ("prose", "For the background check, «PERSON:first#a»'s SSN is «US_SSN:ssn».", 1),
    ("prose", "Thanks «PERSON:first#a»! I'll forward the slides to «PERSON:first#b» tonight.", 2),
    ("prose", "«PERSON:wordfirst#a» said the offsite moved from «LOCATION:city» to «LOCATION:city».", 2),
    ("prose", "Can you ask «PERSON:wordfirst#a» whether the invoice went out?", 2),
    ("prose", "«PERSON:wordfull#a» is out until the 14th; reach them at «PHONE_NUMBER:phone» if it's urgent.", 2),
    ("prose", "We met «PERSON:full#a» at the conference in «LOCATION:city» last spring.", 1),
    ("prose", "Dear Dr. «PERSON:last#a», your refund of €42.90 was sent to «IBAN_CODE:iban».", 1),
    ("prose", "I grew up in «LOCATION:city» but moved to «LOCATION:country» after university.", 2),
    ("prose", "Send the reimbursement form to «PERSON:first#a» («EMAIL_ADDRESS:email#a»).", 2),
    ("prose", "«PERSON:first#a» and «PERSON:first#b» are pairing on the onboarding doc today.", 1),
    ("prose", "The customer, «PERSON:full#a», called from «PHONE_NUMBER:phone» about a double charge on «CREDIT_CARD:card».", 1),
    ("prose", "Happy birthday «PERSON:wordfirst#a»! Cake in the kitchen at 3.", 2),
    ("prose", "Reminder: «PERSON:first#a» presents the Q3 numbers and «PERSON:wordfirst#b» takes notes.", 1),
    ("prose", "My SSN is «US_SSN:ssn» and my date of birth is 12 March 1986.", 1),
    ("prose", "Please change my payout account to «IBAN_CODE:iban»; the old one in «LOCATION:country» is closed.", 1),
    ("prose", "If anything breaks overnight, text «PERSON:first#a» on «PHONE_NUMBER:phone».", 1),
    ("prose", "«PERSON:full#a» from «LOCATION:city» won the hackathon with a tiny Rust compiler.", 1),
    ("prose", "Lunch with «PERSON:wordfirst#a» and «PERSON:first#b» moved to Thursday.", 1),
    ("prose", "I've attached «PERSON:first#a»'s CV; they're relocating from «LOCATION:city» to «LOCATION:city».", 1),
    ("prose", "Could you charge the conference fee to «CREDIT_CARD:card», expiry 09/27?", 1),
    ("prose", "«PERSON:first#a» asked me to tell you the flat viewing in «LOCATION:city» is at 6pm.", 1),
    ("prose", "The tenant's social security number, «US_SSN:ssn», is needed for the credit check.", 1),
    ("prose", "Our neighbour «PERSON:wordfirst#a» turns ninety in «LOCATION:city» this June.", 1),
    ("prose", "Our new hire «PERSON:full#a» starts next week; the badge request goes to «EMAIL_ADDRESS:email#b».", 1),
    ("prose", "Text me at «PHONE_NUMBER:phone» when you land in «LOCATION:city».", 1),
    ("prose", "«PERSON:first#a» wrote: \"I can cover the Saturday shift if «PERSON:wordfirst#b» takes Sunday.\"", 1),
    ("prose", "Use «CREDIT_CARD:card» for the hotel, not the company card.", 1),
    ("prose", "Rent for the flat in «LOCATION:city» goes to «PERSON:full#a», IBAN «IBAN_CODE:iban».", 1),
    ("prose", "We're flying «PERSON:first#a»'s parents in from «LOCATION:country» for the wedding.", 1),
    ("prose", "I spoke with «PERSON:full#a» this morning and they agreed to review the draft.", 1),
    ("prose", "Can someone give «PERSON:wordfirst#a» access to the shared drive? Their email is «EMAIL_ADDRESS:email#a».", 1),
    ("prose", "Congratulations to «PERSON:full#a» and «PERSON:full#b» on ten years with the company!", 1),
    ("prose", "Emergency contact: «PERSON:full#a», «PHONE_NUMBER:phone».", 1),
    ("prose", "For payroll, use SSN «US_SSN:ssn» and IBAN «IBAN_CODE:iban».", 1),
    ("prose", "«PERSON:first#a» from accounts says the card «CREDIT_CARD:card» was declined at checkout.", 1),
    ("prose", "The interview panel is «PERSON:first#a», «PERSON:first#b» and «PERSON:wordfirst#c».", 1),
    ("prose", "Dr. «PERSON:last#a» will see you at the clinic in «LOCATION:city» at 10:30.", 1),
    ("prose", "Sorry «PERSON:wordfirst#a», I won't make it to «LOCATION:city» this weekend.", 1),
    ("prose", "Write to «EMAIL_ADDRESS:email» if you want to join the book club.", 1),
    ("prose", "«PERSON:full#a» (born in «LOCATION:city», now living in «LOCATION:country») leads the research group.", 1),
    ("prose", "Write a warm thank-you note to «PERSON:full#a» for hosting us in «LOCATION:city».", 1),
    ("prose", "Summarise this email from «PERSON:full#a»: \"Please move my appointment; call «PHONE_NUMBER:phone».\"", 1),
    ("prose", "Mr. «PERSON:last#a» disputes the charge; his card number is «CREDIT_CARD:card».", 1),
    ("code", "__author__ = \"«PERSON:full#a»\"\n__email__ = \"«EMAIL_ADDRESS:email#a»\"", 1),
    ("code", "INSERT INTO customers (name, email, phone) VALUES ('«PERSON:full#a»', '«EMAIL_ADDRESS:email#a»', '«PHONE_NUMBER:phone»');", 1),
    ("code", "test_user = {\"name\": \"«PERSON:full#a»\", \"iban\": \"«IBAN_CODE:iban_compact»\"}", 1),
    ("code", "charge(card_number=\"«CREDIT_CARD:card_compact»\", cvc=\"314\", amount=4999, currency=\"usd\")", 1),
    ("code", "maintainers:\n  - name: «PERSON:full#a»\n    email: «EMAIL_ADDRESS:email#a»", 1),
    ("code", "# Copyright 2023 «PERSON:full#a». Licensed under the Apache License, Version 2.0.", 1),
    ("code", "authors = [{ name = \"«PERSON:full#a»\", email = \"«EMAIL_ADDRESS:email#a»\" }]", 1),
    ("code", "send_sms(to=\"«PHONE_NUMBER:phone_intl»\", body=\"Your verification code is 482913\")", 1),
    ("code", "UPDATE employees SET ssn = '«US_SSN:ssn»' WHERE employee_id = 4412;", 1),
    ("code", "const owner = { name: '«PERSON:full#a»', city: '«LOCATION:city»' };", 1),
    ("code", "# TODO(«PERSON:first#a»): drop this shim once the «queue» client is upgraded", 1),
    ("code", "customer = Customer(first_name=\"«PERSON:first#a»\", last_name=\"«PERSON:last#a»\", email=\"«EMAIL_ADDRESS:email#a»\")", 1),
    ("log", "«ts» INFO auth: login failed for «EMAIL_ADDRESS:email#a» from «ip»", 2),
    ("log", "«ts» WARN billing: card «CREDIT_CARD:card» declined for customer «num»", 1),
    ("log", "level=info ts=«tsiso» msg=\"password reset requested\" email=«EMAIL_ADDRESS:email#a»", 1),
    ("log", "«ts» DEBUG sms-gateway: sending OTP to «PHONE_NUMBER:phone_intl»", 1),
    ("log", "«ts» ERROR payouts: IBAN «IBAN_CODE:iban_compact» rejected by bank: account closed", 1),
    ("log", "«ts» INFO crm: contact updated name=\"«PERSON:full#a»\" city=«LOCATION:city»", 1),
    ("log", "commit «sha»\nAuthor: «PERSON:full#a» <«EMAIL_ADDRESS:email#a»>\nDate:   Fri Jun 14 03:12:44 2024 +0200", 1),
    ("log", "«ts» WARN kyc: ssn=«US_SSN:ssn» failed verification for applicant «num»", 1),
    ("log", "«ts» INFO mailer: delivered message to «EMAIL_ADDRESS:email#a» (msg-id «uuid»)", 1),
    ("log", "«ts» INFO support: ticket «num» opened by «PERSON:full#a», callback «PHONE_NUMBER:phone»", 1),
    ("log", "«tssys» «host» postfix/smtp[«pid»]: to=<«EMAIL_ADDRESS:email#a»>, relay=mx1.«domain»[«ip»]:25, status=sent", 1),
    ("tech", "git commit --author=\"«PERSON:full#a» <«EMAIL_ADDRESS:email#a»>\" -m \"Fix flaky test\"", 1),
    ("tech", "Escalation for «svc»: page «PERSON:first#a» first, then «PERSON:full#b» on «PHONE_NUMBER:phone».", 1),
    ("tech", "The «obs» dashboards for «svc» are owned by «PERSON:full#a»; ask them before changing panels.", 1),
    ("tech", "«PERSON:full#a» wrote the original «queue» consumer, so route review requests to «EMAIL_ADDRESS:email#a».", 1),
    ("mixed", "«PERSON:first#a», the «svc» pod in «ns» is in CrashLoopBackOff again, can you look?", 2),
    ("mixed", "Ping «PERSON:first#a» if «alert» fires tonight; I'm off until Monday.", 1),
    ("mixed", "Hey «PERSON:wordfirst#a», `kubectl get pods -n «ns»` shows two pending, is that expected?", 1),
    ("mixed", "«PERSON:first#a» suggested swapping «obs#x» for «obs#y», thoughts?", 1),
    ("mixed", "Can you explain this error? My email is «EMAIL_ADDRESS:email» if you need more logs:\n«log_line»", 1),
    ("mixed", "Here's the stack trace «PERSON:first#a» sent me:\n«trace»", 1),
    ("mixed", "Jenkins failed again on «branch»; «PERSON:first#a» thinks it's the Gradle cache.", 1),
    ("mixed", "Onboarding checklist for «PERSON:full#a»: laptop, VPN, Grafana access, PagerDuty rotation.", 1),
    ("mixed", "«PERSON:wordfirst#a»'s PR bumps «k8stool» to «version» and fixes the flaky test.", 2),
    ("mixed", "Summarise this incident for «PERSON:first#a»:\n«log_line»", 1),
    ("mixed", "The on-call phone is «PHONE_NUMBER:phone»; escalate in PagerDuty first.", 1),
    ("mixed", "«PERSON:full#a» (SRE, «LOCATION:city») owns the «db» failover runbook.", 1),
    ("mixed", "Ask «llm» to rewrite this for «PERSON:first#a», who is new to «web»:\n«code»", 1),
    ("mixed", "Refund failed for «EMAIL_ADDRESS:email», Stripe says: card_declined (card «CREDIT_CARD:card»).", 1),
    ("mixed", "«PERSON:wordfirst#a» can't log into «obs» since the SSO change; their address is «EMAIL_ADDRESS:email#a».", 1),
    # structured values in forms, requests and chat
    ("prose", "Name: «PERSON:full#a»\nEmail: «EMAIL_ADDRESS:email#a»\nPhone: «PHONE_NUMBER:phone»", 2),
    ("prose", "Card: «CREDIT_CARD:card»  Exp: 11/26  CVV: 417", 2),
    ("prose", "Beneficiary IBAN: «IBAN_CODE:iban», reference INV-20931.", 2),
    ("prose", "SSN «US_SSN:ssn» belongs to the applicant on page 2 of the form.", 1),
    ("prose", "Can you check whether «IBAN_CODE:iban» is a valid IBAN?", 2),
    ("prose", "Is «CREDIT_CARD:card» a Visa or a Mastercard?", 2),
    ("prose", "Validate this phone number for me: «PHONE_NUMBER:phone»", 2),
    ("prose", "My new number is «PHONE_NUMBER:phone», the old one no longer works.", 2),
    ("prose", "I was charged twice on «CREDIT_CARD:card» for order 88213, please refund one of them.", 1),
    ("prose", "Please pay the invoice to «IBAN_CODE:iban» within 30 days.", 2),
    ("prose", "Employee «PERSON:full#a», SSN «US_SSN:ssn», starts on 1 July.", 2),
    ("prose", "Reach the front desk at «PHONE_NUMBER:phone» or email «EMAIL_ADDRESS:email».", 1),
    ("prose", "Refund it to «IBAN_CODE:iban» instead of the card ending 4242.", 1),
    ("prose", "Fill in the W-4 with SSN «US_SSN:ssn»; I've lived in «LOCATION:city» since March.", 1),
    ("prose", "Update the shipping contact to «PHONE_NUMBER:phone_intl».", 1),
    ("prose", "Here is my social security number: «US_SSN:ssn». Is it safe to put it in this form?", 1),
    # names and places in prose
    ("prose", "«PERSON:wordfirst#a» and I are driving to «LOCATION:city» on Saturday.", 1),
    ("prose", "«PERSON:wordfull#a» will chair the meeting while «PERSON:first#b» is on leave.", 2),
    ("prose", "Tell «PERSON:wordfirst#a» the keys are under the mat.", 1),
    ("prose", "Book a table for «PERSON:first#a» and «PERSON:first#b» at 8, near the station in «LOCATION:city».", 1),
    ("prose", "Write a short bio for «PERSON:full#a», a nurse from «LOCATION:country» who now teaches in «LOCATION:city».", 1),
    ("prose", "«PERSON:first#a» moved to «LOCATION:country» in 2019 and opened a bakery.", 1),
    ("prose", "Please add «PERSON:full#a» to the guest list; they're flying in from «LOCATION:city».", 1),
    ("prose", "Translate this for «PERSON:first#a»: \"The package will arrive on Tuesday.\"", 1),
    ("prose", "Ms. «PERSON:last#a» asked for a copy of the lease.", 1),
    ("prose", "My colleague «PERSON:wordfull#a» recommended this course.", 1),
    ("prose", "Can «PERSON:wordfirst#a» cover the support queue while I'm at the dentist?", 1),
    # structured values in logs, code and tooling
    ("log", "«ts» INFO checkout: payment authorised card=«CREDIT_CARD:card_compact» amount=129.00 EUR", 1),
    ("log", "«ts» WARN sepa: mandate created for «IBAN_CODE:iban_compact» creditor_id=DE98ZZZ09999999999", 1),
    ("log", "level=error ts=«tsiso» msg=\"duplicate account\" ssn=«US_SSN:ssn» tenant=«num»", 1),
    ("log", "«ts» INFO voice: call from «PHONE_NUMBER:phone_intl» routed to queue support-emea", 1),
    ("log", "«ts» INFO signup: new user «EMAIL_ADDRESS:email» plan=pro referrer=newsletter", 1),
    ("code", "PAYMENT_TEST_CARD = \"«CREDIT_CARD:card_compact»\"  # never a real card here", 1),
    ("code", "iban = \"«IBAN_CODE:iban_spaced»\".replace(\" \", \"\")", 1),
    ("code", "{\"customer\": {\"name\": \"«PERSON:full#a»\", \"phone\": \"«PHONE_NUMBER:phone_intl»\", \"email\": \"«EMAIL_ADDRESS:email#a»\"}}", 1),
    ("code", "admins:\n  - email: «EMAIL_ADDRESS:email»\n    role: owner", 1),
    ("code", "ssn,first_name,last_name\n«US_SSN:ssn»,«PERSON:first#a»,«PERSON:last#a»", 1),
    ("tech", "curl -X POST https://api.example.com/v1/payouts -d '{\"iban\": \"«IBAN_CODE:iban_compact»\", \"amount\": 2500}'", 1),
    ("tech", "Add «EMAIL_ADDRESS:email» to the PagerDuty escalation policy for «svc».", 1),
    ("tech", "The «iac» state has «PERSON:full#a»'s phone number («PHONE_NUMBER:phone») in an output; remove it.", 1),
    ("tech", "kubectl create secret generic smtp -n «ns» --from-literal=user=«EMAIL_ADDRESS:email»", 1),
    ("tech", "The Stripe test card «CREDIT_CARD:card» works in «env» but not in prod.", 1),
    ("tech", "Our «ci» notifications go to «EMAIL_ADDRESS:email#a»; «PERSON:first#a» set that up.", 1),
    ("tech", "Terraform wants to change the billing contact to «PERSON:full#a» <«EMAIL_ADDRESS:email#a»>.", 1),
    ("tech", "Rotate the «db» password; «PERSON:first#a» in «LOCATION:city» has the break-glass account.", 1),
    ("mixed", "Why does my regex not match «EMAIL_ADDRESS:email»? I use ^[a-z]+@[a-z]+\\.[a-z]{2,}$", 1),
    ("mixed", "Mask the card number in this log line:\n«ts» INFO card=«CREDIT_CARD:card_compact» status=declined", 1),
    ("mixed", "This Kafka message fails schema validation: {\"user\": \"«PERSON:full#a»\", \"phone\": \"«PHONE_NUMBER:phone»\"}", 1),
    ("mixed", "«PERSON:first#a» from the «LOCATION:city» team will demo the new Grafana panels on Friday.", 1),
    ("mixed", "Turn this into a SQL insert: «PERSON:full#a», «EMAIL_ADDRESS:email#a», «LOCATION:city»", 1),
    ("mixed", "Airflow sent the failure email to «EMAIL_ADDRESS:email» instead of the team list.", 1),
    ("mixed", "Redact the IBAN before pasting this into Jira: payout failed for «IBAN_CODE:iban_compact» (error AC04).", 1),
]  # fmt: skip

WITHOUT_ENTITIES: list[tuple[str, str, int]] = [
    # prose: everyday prompts and chat, with words that are also names
    ("prose", "Will the migration finish before the change freeze on Friday?", 1),
    ("prose", "Mark the ticket as done once the hotfix is deployed.", 1),
    ("prose", "Grace period for expired certificates is 30 days, after which requests fail.", 1),
    ("prose", "CPU usage rose to 92% after the deploy, then dropped back.", 1),
    ("prose", "Hope this helps, let me know if the build still fails.", 1),
    ("prose", "Bill the customer for the extra seats at the end of the month.", 1),
    ("prose", "The April release adds dark mode and fixes the login loop.", 1),
    ("prose", "Please review the PR when you get a chance; it touches the billing module.", 1),
    ("prose", "Summer interns start in two weeks, so set up their laptops before then.", 1),
    ("prose", "Can we chase the vendor about the SLA credits?", 1),
    ("prose", "Frank feedback from the retro: the on-call rotation is too thin.", 1),
    ("prose", "Dawn deploys are risky because nobody is awake to watch them.", 1),
    ("prose", "Drew up a quick plan for the schema change, comments welcome.", 1),
    ("prose", "Ray tracing support landed in the renderer behind a flag.", 1),
    ("prose", "Amber means the service is degraded, red means it is down.", 1),
    ("prose", "Jack up the timeout to 60 seconds and retry the job.", 1),
    ("prose", "Faith in the staging environment is low after last week's outage.", 1),
    ("prose", "Patience, please: the index rebuild takes about forty minutes on the big table.", 1),
    ("prose", "The meeting notes are in the shared folder under 2024/retros.", 1),
    ("prose", "Let's keep the scope small and ship the first version on Tuesday.", 1),
    ("prose", "I'll be offline this afternoon for a dentist appointment.", 1),
    ("prose", "Thanks for the quick turnaround on the contract review!", 1),
    ("prose", "Our budget for the quarter is tight, so we postpone the hardware refresh.", 1),
    ("prose", "Could you summarise this article in three bullet points?", 1),
    ("prose", "Write a polite reply declining the invitation and mention a scheduling conflict.", 1),
    ("prose", "Translate the following paragraph into Spanish and keep the formatting.", 1),
    ("prose", "What is the difference between a mutex and a semaphore?", 1),
    ("prose", "Explain like I'm five why the sky looks blue.", 1),
    ("prose", "Draft a job ad for a senior backend engineer, remote-friendly.", 1),
    ("prose", "The new coffee machine on the third floor is finally working.", 1),
    ("prose", "Remind everyone that expense reports are due by the 5th.", 1),
    ("prose", "Penny for your thoughts on the new pricing page?", 1),
    ("prose", "Joy is not the word I'd use for migrating three hundred cron jobs.", 1),
    ("prose", "Sunny or not, the standup is at 9:15 sharp.", 1),
    ("prose", "Give me five ideas for a team-building activity that works remotely.", 1),
    ("prose", "Rewrite this paragraph so it sounds less formal and more friendly.", 1),
    ("prose", "Who will own the follow-up actions from the incident review?", 1),
    ("prose", "Chase up the security questionnaire, the customer is waiting on it.", 1),
    ("prose", "The June newsletter goes out on the first Monday of the month.", 1),
    ("prose", "List the pros and cons of a four-day work week for a support team.", 1),
    ("prose", "Is it better to pay off the loan early or invest the money?", 1),
    ("prose", "Violet and amber LEDs on the rack mean the PSU needs attention.", 1),
    ("prose", "Iris recognition is out of scope for the badge system.", 1),
    # tech: technical prose, CLI, metrics
    ("tech", "We moved the dashboards from «obs#x» to «obs#y» last sprint.", 3),
    ("tech", "«web» keeps restarting because the liveness probe hits /healthz before migrations finish.", 2),
    ("tech", "Upgrade «k8stool» to «version» before bumping the «queue» chart.", 2),
    ("tech", "kubectl -n «ns» rollout restart deployment/«svc»", 2),
    ("tech", "helm upgrade --install «svc#s» ./charts/«svc#s» -n «ns» --set image.tag=«version»", 2),
    ("tech", "terraform plan -var-file=envs/«env#e».tfvars -out=«env#e».plan", 1),
    ("tech", "ansible-playbook -i inventory/«env» site.yml --limit «host» --check --diff", 1),
    ("tech", "docker run --rm -p 8080:8080 «image»:«version»", 2),
    ("tech", "Jenkins builds time out when the Gradle daemon runs out of heap.", 1),
    ("tech", "The Celery workers drain the Redis queue slower than Kafka fills it.", 1),
    ("tech", "Airflow DAG «dag» failed on task «task» after three retries.", 2),
    ("tech", "Is Istio's sidecar adding the extra 4 ms we see at p99?", 1),
    ("tech", "Prometheus scrapes «metric» every 15s and Grafana averages it over 5m.", 2),
    ("tech", "alert «alert» fires when «metric» stays above 0.9 for 10m", 2),
    ("tech", "Check metric memory metric on the replica dashboard before you scale down.", 1),
    ("tech", "replica lag, memory metric, queue depth and cache hit ratio are on the overview row.", 1),
    ("tech", "Flask app behind Gunicorn with four gevent workers and a Redis session store.", 1),
    ("tech", "Django migrations ran twice because two pods started at once.", 1),
    ("tech", "Ask «llm#x» or «llm#y» to draft the release notes, then edit them by hand.", 2),
    ("tech", "Route long prompts to Llama 3 70B and short ones to Mistral 7B.", 1),
    ("tech", "Hugo rebuilds the docs site in 300 ms; Sphinx took 40 s for the same pages.", 1),
    ("tech", "Luigi and Dagster both model pipelines as graphs of tasks with explicit dependencies.", 1),
    ("tech", "Cassandra compaction stalls when the disks are more than 80% full.", 1),
    ("tech", "Julia is faster than Python for the simulation, but the team knows pandas.", 1),
    ("tech", "Gerrit wants a Change-Id footer in every commit message.", 1),
    ("tech", "The old Hudson plugin API still shows up in Jenkins stack traces.", 1),
    ("tech", "Vault issues short-lived Postgres credentials to each pod through the agent injector.", 1),
    ("tech", "Consul marks the node critical after three failed health checks.", 1),
    ("tech", "Nomad schedules the batch jobs while Kubernetes runs the long-lived services.", 1),
    ("tech", "Argo CD reports the app as OutOfSync because a mutating webhook adds a label.", 1),
    ("tech", "Enable Hubble in Cilium to see which packets get dropped between namespaces.", 1),
    ("tech", "Keycloak realm export fails once the realm has more than ten thousand users.", 1),
    ("tech", "Sentry groups these errors under one fingerprint, so the count looks low.", 1),
    ("tech", "pip install 'celery[redis]==5.3.6' flower==2.0.1", 1),
    ("tech", "npm run build && npx playwright test --project=chromium --workers=4", 1),
    ("tech", "git rebase -i HEAD~5 && git push --force-with-lease origin «branch»", 2),
    ("tech", "export KUBECONFIG=~/.kube/«env#e».yaml && kubectl config use-context «env#e»", 1),
    ("tech", "curl -s http://«svc».«ns».svc.cluster.local:9090/metrics | grep «metric»", 2),
    ("tech", "The replica fell 4 GB of WAL behind during the vacuum.", 1),
    ("tech", "Set max_connections to 200 and put PgBouncer in front in transaction mode.", 1),
    ("tech", "Our SLO is 99.9% of requests under 300 ms over a rolling 28 days.", 1),
    ("tech", "Tempo, Loki and Mimir replaced Jaeger and Elasticsearch for us.", 1),
    ("tech", "Thanos sidecar uploads blocks to object storage every two hours.", 1),
    ("tech", "Fluent Bit drops logs when the buffer hits mem_buf_limit.", 1),
    ("tech", "Alertmanager routes severity=page to PagerDuty and everything else to Slack.", 1),
    ("tech", "Spark executors OOM on the join; bump spark.executor.memory to 8g.", 1),
    ("tech", "Trino queries over the Iceberg tables got faster after compaction.", 1),
    ("tech", "Too many parts in ClickHouse usually means the inserts are too small.", 1),
    ("tech", "Rancher shows the node as cordoned but kubectl says Ready.", 1),
    ("tech", "The Envoy filter chain rejects requests whose headers exceed 60 KB.", 1),
    ("tech", "Traefik picks up the new IngressRoute without a restart.", 1),
    ("tech", "Pulumi preview shows 3 to create and 1 to replace in «env».", 1),
    ("tech", "Packer builds the AMI; Vagrant is only for local testing.", 1),
    ("tech", "Tilt live-updates the container on save, Skaffold rebuilds the whole image.", 1),
    ("tech", "Storybook snapshots broke after the Vite upgrade.", 1),
    ("tech", "Velero backs up the «ns» namespace nightly at 02:00 UTC.", 1),
    ("tech", "The OpenTelemetry collector exports traces over OTLP/gRPC on port 4317.", 1),
    ("tech", "Redis Sentinel promoted the replica after the master missed five pings.", 1),
    ("tech", "RabbitMQ's memory alarm blocked the publishers at the 40% watermark.", 1),
    ("tech", "Kafka 3.7 runs in KRaft mode, so ZooKeeper is gone from the Helm chart.", 1),
    ("tech", "Terraform state is locked by another run; wait for it or force-unlock «uuid».", 1),
    ("tech", "Selenium grid nodes register with the hub on port 4444.", 1),
    ("tech", "The Jira automation closes stale tickets after 30 days without activity.", 1),
    ("tech", "Jupyter kernels die when the notebook loads the whole parquet file into memory.", 1),
    ("tech", "Pydantic v2 is stricter about coercing strings to ints.", 1),
    ("tech", "FastAPI's dependency injection makes the auth check reusable across routes.", 1),
    ("tech", "SQLAlchemy warns about a cartesian product in this query.", 1),
    ("tech", "git clone git@github.com:acme/«svc#s».git && cd «svc#s» && make dev", 1),
    ("tech", "docker pull «image»@sha256:«sha64»", 1),
    ("tech", "celery -A proj worker -l INFO -Q default,emails --concurrency=8", 1),
    ("tech", "We pin Ada and SPARK toolchains for the flight software, Rust for the ground station.", 1),
    ("tech", "Phoenix LiveView pushes diffs over a websocket, so the «svc» page feels instant.", 1),
    ("tech", "Grafana Mimir needs its own object storage bucket per tenant here.", 1),
    ("tech", "Heap usage on «host» keeps climbing until the JVM does a full GC.", 1),
    ("tech", "Move the «dag» DAG from «orch#x» to «orch#y» and keep the same schedule.", 2),
    ("tech", "Our «ci» pipeline caches node_modules, but «iac» still re-downloads providers every run.", 2),
    ("tech", "Is «mesh» worth it for twelve services, or is mTLS in the app enough?", 1),
    ("tech", "«db» connection pool exhausted on «svc»; raise pool_size or fix the leak?", 2),
    # code
    ("code", "def get_user(user_id: int) -> User | None:\n    return session.get(User, user_id)", 1),
    ("code", "for replica in replicas:\n    replica.sync(timeout=30)", 1),
    ("code", "metrics.gauge(\"memory.metric\", value, tags=[\"replica:\" + name])", 1),
    ("code", "const client = new Redis({ host: process.env.REDIS_HOST, port: 6379 });", 1),
    ("code", "app = Flask(__name__)\napp.config.from_prefixed_env()", 1),
    ("code", "class Order(models.Model):\n    status = models.CharField(max_length=16, default=\"new\")\n    created_at = models.DateTimeField(auto_now_add=True)", 1),
    ("code", "SELECT id, status, created_at FROM jobs WHERE status = 'failed' ORDER BY created_at DESC LIMIT 50;", 1),
    ("code", "UPDATE accounts SET plan = 'pro' WHERE trial_ends_at < now();", 1),
    ("code", "CREATE INDEX CONCURRENTLY idx_events_tenant ON events (tenant_id, ts);", 1),
    ("code", "image: «image»:«version»\nimagePullPolicy: IfNotPresent", 2),
    ("code", "replicas: 3\nresources:\n  limits:\n    memory: 512Mi\n    cpu: 500m", 1),
    ("code", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: «svc»\n  namespace: «ns»", 2),
    ("code", "@celery.task(bind=True, max_retries=5)\ndef send_digest(self, tenant_id):\n    ...", 1),
    ("code", "with DAG(\"«dag»\", schedule=\"0 2 * * *\", catchup=False) as dag:", 1),
    ("code", "resource \"aws_s3_bucket\" \"artifacts\" {\n  bucket = \"acme-ci-artifacts\"\n}", 1),
    ("code", "export default defineConfig({ plugins: [react()], server: { port: 5173 } });", 1),
    ("code", "useEffect(() => { fetchMetrics(range).then(setData); }, [range]);", 1),
    ("code", "if err != nil {\n\treturn fmt.Errorf(\"open %s: %w\", path, err)\n}", 1),
    ("code", "let cfg = Config::from_env().expect(\"missing DATABASE_URL\");", 1),
    ("code", "pipeline { agent any; stages { stage('Build') { steps { sh 'make' } } } }", 1),
    ("code", "logger.info(\"replica %s lagging by %d bytes\", replica_id, lag)", 1),
    ("code", "assert response.status_code == 200, response.text", 1),
    ("code", "df = pd.read_parquet(\"s3://lake/events/2024/05/\").query(\"kind == 'click'\")", 1),
    ("code", "consumer = KafkaConsumer(\"orders\", group_id=\"billing\", auto_offset_reset=\"earliest\")", 1),
    ("code", "REQUEST_SECONDS = Histogram(\"request_seconds\", \"Request latency\", [\"route\", \"method\"])", 1),
    ("code", "sum(rate(http_requests_total{job=\"api\", code=~\"5..\"}[5m])) / sum(rate(http_requests_total{job=\"api\"}[5m]))", 1),
    ("code", "histogram_quantile(0.99, sum by (le) (rate(grpc_server_handling_seconds_bucket[5m])))", 1),
    ("code", "- name: Install deps\n  run: pip install -r requirements.txt\n- name: Test\n  run: pytest -q", 1),
    ("code", "ENV PYTHONUNBUFFERED=1\nRUN pip install --no-cache-dir gunicorn==21.2.0", 1),
    ("code", "server {\n  listen 443 ssl;\n  server_name api.internal;\n  location / { proxy_pass http://upstream; }\n}", 1),
    ("code", "redis.set(f\"session:{sid}\", payload, ex=3600)", 1),
    ("code", "SELECT name FROM users WHERE email LIKE '%@example.com';", 1),
    ("code", "user = User(name=name, email=email)\ndb.session.add(user)\ndb.session.commit()", 1),
    ("code", "if will_retry:\n    backoff = min(backoff * 2, MAX_BACKOFF)", 1),
    ("code", "mark_as_read(message_id)\nbill(customer, amount=seats * price)", 1),
    ("code", "import pandas as pd\nimport numpy as np\nfrom sklearn.model_selection import train_test_split", 1),
    ("code", "@app.route(\"/api/v1/metrics\", methods=[\"GET\"])\ndef metrics():", 1),
    ("code", "const [replica, setReplica] = useState<Replica | null>(null);", 1),
    ("code", "@pytest.fixture\ndef client(app):\n    return app.test_client()", 1),
    ("code", "ALTER TABLE invoices ADD COLUMN paid_at timestamptz;", 1),
    ("code", "helm = { source = \"hashicorp/helm\", version = \"~> 2.12\" }", 1),
    ("code", "spec:\n  containers:\n    - name: istio-proxy\n      image: docker.io/istio/proxyv2:1.21.0", 1),
    ("code", "SELECT grace_days, will_renew FROM subscriptions WHERE plan_id = 42;", 1),
    ("code", "jobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4", 1),
    ("code", "from airflow.operators.python import PythonOperator\nfrom airflow.providers.postgres.hooks.postgres import PostgresHook", 1),
    ("code", "producer.send(\"«svc»-events\", key=tenant_id.encode(), value=json.dumps(event).encode())", 1),
    ("code", "@Retryable(maxAttempts = 3, backoff = @Backoff(delay = 500))\npublic Invoice charge(Order order) {", 1),
    ("code", "rose_by = (current - previous) / previous\nif rose_by > 0.2: alert(\"memory\")", 1),
    ("code", "\"dependencies\": { \"express\": \"^4.19.2\", \"ioredis\": \"^5.4.1\", \"pino\": \"^9.1.0\" }", 1),
    # logs
    ("log", "«ts» INFO  [«pod»] GET /api/v1/orders 200 12ms request_id=«reqid»", 3),
    ("log", "«ts» WARN  replica «host» lagging by «num» bytes", 2),
    ("log", "«ts» ERROR celery.worker.job: Task tasks.send_digest[«uuid»] raised «error_word»", 2),
    ("log", "level=error ts=«tsiso» caller=scrape.go:1292 component=\"scrape manager\" msg=\"Scrape failed\" target=«svc»:9100", 1),
    ("log", "«tssys» «host» kernel: [«num».482113] Out of memory: Killed process «pid» (java)", 1),
    ("log", "«pod»   0/1     CrashLoopBackOff   7 (2m ago)   41m", 2),
    ("log", "«trace»", 1),
    ("log", "django.db.utils.OperationalError: could not connect to server: Connection refused", 1),
    ("log", "«tssys» «host» nginx: [error] 31#31: *«num» upstream timed out (110: Connection timed out) while reading response header from upstream", 1),
    ("log", "Started by timer. Building in workspace /var/lib/jenkins/workspace/«svc»-«env» (build #«build»)", 1),
    ("log", "[«tsiso»] {taskinstance.py:1138} INFO - Marking task as SUCCESS. dag_id=«dag», task_id=«task»", 2),
    ("log", "logger=context userId=0 orgId=1 t=«tsiso» level=info msg=\"Request Completed\" method=GET path=/api/live/ws status=200", 1),
    ("log", "[ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Error sending fetch request to node 1", 1),
    ("log", "Error: Error acquiring the state lock: ConditionalCheckFailedException: The conditional request failed", 1),
    ("log", "«ts» WARN  [main] o.a.k.clients.NetworkClient: Bootstrap broker kafka-0.kafka-headless:9092 disconnected", 1),
    ("log", "E0614 03:12:44.123456       1 reflector.go:138] Failed to watch *v1.Pod: the server has asked for the client to provide credentials", 1),
    ("log", "\tat com.acme.billing.InvoiceService.charge(InvoiceService.java:212)\n\tat com.acme.billing.Worker.run(Worker.java:88)", 1),
    ("log", "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree", 1),
    ("log", "redis.exceptions.ConnectionError: Error 111 connecting to redis-master:6379. Connection refused.", 1),
    ("log", "«ts» DEBUG sqlalchemy.engine: SELECT jobs.id FROM jobs WHERE jobs.status = %(status_1)s", 1),
    ("log", "Warning  FailedScheduling  «pod»  0/6 nodes are available: 3 Insufficient memory, 3 node(s) had untolerated taint", 1),
    ("log", "«tsiso» [INFO]  consul: member '«host»' joined, marking health alive", 1),
    ("log", "fatal: [«host»]: UNREACHABLE! => {\"changed\": false, \"msg\": \"Failed to connect to the host via ssh\", \"unreachable\": true}", 1),
    ("log", "Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress", 1),
    ("log", "[«tsiso»] \"POST /v1/chat/completions HTTP/1.1\" 503 UF upstream_reset_before_response_started «num» 0 «svc».«ns»", 1),
    ("log", "«ts» INFO gunicorn.error: Booting worker with pid: «pid»", 1),
    ("log", " * Running on http://127.0.0.1:5000 (Press CTRL+C to quit)", 1),
    ("log", "ts=«tsiso» level=warn component=tsdb msg=\"Head GC took longer than expected\" duration=2.31s", 1),
    ("log", "audit: user=system:serviceaccount:«ns»:default verb=list resource=secrets allowed=false", 1),
    ("log", "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x4a5f2e]", 1),
    ("log", "OOMKilled: container «svc» in pod «pod» exceeded its memory limit (512Mi)", 1),
    ("log", "«ts» INFO trace_id=«reqid» span_id=«span» order=«num» shipped carrier=dhl", 2),
    ("log", "«ts» INFO invoice INV-2024-«num» exported, offset=«num» epoch=1718335964", 1),
    ("log", "«tssys» «host» sshd[«pid»]: Accepted publickey for deploy from «ip» port 52144 ssh2", 1),
    ("log", "«ts» WARN  memory metric above threshold on «host»: rss=«num»kB limit=2097152kB", 1),
    ("log", "«ts» INFO  Will retry in 30s (attempt 3/5) after «error_word»", 1),
    ("log", "«ts» INFO  Mark sweep finished: reclaimed 412 MB in 87 ms", 1),
    ("log", "helm.go:84: [debug] Release \"«svc»\" does not exist. Installing it now.", 1),
    ("log", "«ts» ERROR Luigi scheduler: task «task»(date=2024-06-13) failed, will be retried", 1),
    # mixed: prose around pasted technical material
    ("mixed", "Summarise this log for the postmortem:\n«log_line»", 2),
    ("mixed", "Why does this query scan the whole table?\n«sql»", 2),
    ("mixed", "Rewrite this function to be async:\n«code»", 2),
    ("mixed", "Our Grafana board shows memory metric spikes every hour; is that the cron job?", 1),
    ("mixed", "I think Django's ORM is generating N+1 queries here, can you check?\n«code»", 1),
    ("mixed", "After upgrading Helm, `helm diff` shows every resource as changed. Why?", 1),
    ("mixed", "Explain what `rate(http_requests_total[5m])` means to a new team member.", 1),
    ("mixed", "Convert this docker-compose file to Kubernetes manifests:\n«yaml»", 2),
    ("mixed", "Will Terraform destroy the bucket if I rename the resource?", 1),
    ("mixed", "Please review: we replaced Celery beat with Airflow for the nightly jobs.", 1),
    ("mixed", "The Kafka consumer lag alert fired, but Prometheus shows a lag of 0. Which one is right?", 1),
    ("mixed", "What does this stack trace mean?\n«trace»", 2),
    ("mixed", "Explain this error from «svc» in plain words: «error_word» while talking to «db».", 2),
    ("mixed", "Write a Grafana alert rule for when «metric» doubles within an hour.", 1),
    ("mixed", "Here's our Jenkinsfile; why does the Deploy stage run even when tests fail?\n«code»", 1),
]  # fmt: skip

SLOT = re.compile(r"«(?:([A-Z_]+):)?([a-z_0-9]+)(?:#(\w+))?»")


@dataclass
class Person:
    first: str
    last: str
    full: str


@dataclass
class Fill:
    """One sentence being filled: who is who, which values were used."""

    rng: random.Random
    people: dict[str, Person] = field(default_factory=dict)
    tagged: dict[tuple[str, str], str] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)


def ascii_fold(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.replace("ı", "i").replace("ł", "l"))
    return "".join(c for c in folded if c.isascii() and (c.isalnum())).lower()


def person(fill: Fill, tag: str, words: bool) -> Person:
    if tag not in fill.people:
        taken = {p.full for p in fill.people.values()}
        while True:
            if words:
                first, last = fill.rng.choice(WORD_PEOPLE)
                candidate = Person(first, last, f"{first} {last}")
            else:
                first, last, full = fill.rng.choice(PEOPLE)
                candidate = Person(first, last, full or f"{first} {last}")
            if candidate.full not in taken:
                break
        fill.people[tag] = candidate
    return fill.people[tag]


def email_of(rng: random.Random, p: Person) -> str:
    first, last = ascii_fold(p.first), ascii_fold(p.last)
    shape = rng.randrange(6)
    local = [f"{first}.{last}", f"{first}{last}", f"{first[0]}.{last}", f"{first}_{last}",
             f"{first}.{last}{rng.randrange(70, 99)}", f"{first}"][shape]  # fmt: skip
    domain = rng.choice(PERSONAL_DOMAINS if shape in (1, 4, 5) else WORK_DOMAINS)
    if shape == 5:
        domain = f"{last}.dev"
    return f"{local}@{domain}"


def luhn_ok(number: str) -> bool:
    digits = [int(c) for c in number if c.isdigit()][::-1]
    total = sum(d if i % 2 == 0 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(digits))
    return total % 10 == 0


def luhn_complete(prefix: str, length: int, rng: random.Random) -> str:
    body = prefix + "".join(str(rng.randrange(10)) for _ in range(length - len(prefix) - 1))
    return next(body + str(d) for d in range(10) if luhn_ok(body + str(d)))


# issuer prefixes and lengths: Visa, Mastercard (51-55 and 2221-2720), Amex, Discover, JCB
CARD_PREFIXES = [("4", 16), ("4", 16), ("51", 16), ("53", 16), ("55", 16), ("2223", 16), ("2720", 16),
                 ("34", 15), ("37", 15), ("6011", 16), ("65", 16), ("3530", 16)]  # fmt: skip
TEST_CARDS = ["4111111111111111", "4242424242424242", "5555555555554444", "5105105105105100", "378282246310005",
              "6011111111111117", "3530111333300000", "4000056655665556", "2223003122003222"]  # fmt: skip


def card(rng: random.Random, style: str) -> str:
    number = rng.choice(TEST_CARDS) if rng.random() < 0.4 else luhn_complete(*rng.choice(CARD_PREFIXES), rng)
    if style == "compact":
        return number
    groups = (
        [number[:4], number[4:10], number[10:]] if len(number) == 15 else [number[i : i + 4] for i in (0, 4, 8, 12)]
    )
    return rng.choice([" ", " ", "-", ""]).join(groups)


# BBAN layouts: n digits, a upper-case letters, c alphanumerics
IBAN_LAYOUTS = {"DE": "8n10n", "GB": "4a6n8n", "FR": "5n5n11c2n", "NL": "4a10n", "ES": "4n4n2n10n", "IT": "1a5n5n12c",
                "BE": "3n7n2n", "PT": "4n4n11n2n", "IE": "4a6n8n", "AT": "5n11n", "CH": "5n12c", "PL": "8n16n",
                "SE": "3n16n1n", "FI": "3n11n", "DK": "4n9n1n"}  # fmt: skip
BANK_CODES = {"GB": ["WEST", "NWBK", "BARC", "HBUK", "MIDL"], "NL": ["ABNA", "INGB", "RABO", "TRIO"],
              "IE": ["AIBK", "BOFI"]}  # fmt: skip


def iban_check(country: str, bban: str) -> str:
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{98 - int(digits) % 97:02d}"


def iban_ok(iban: str) -> bool:
    compact = iban.replace(" ", "")
    return int("".join(str(int(c, 36)) for c in compact[4:] + compact[:4])) % 97 == 1


def iban(rng: random.Random, style: str) -> str:
    country = rng.choice(sorted(IBAN_LAYOUTS))
    parts = []
    for count, what in re.findall(r"(\d+)([nac])", IBAN_LAYOUTS[country]):
        n = int(count)
        if what == "a" and country in BANK_CODES and n == 4:
            parts.append(rng.choice(BANK_CODES[country]))
        else:
            alphabet = {"n": "0123456789", "a": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "c": "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"}
            parts.append("".join(rng.choice(alphabet[what] if what != "c" or rng.random() < 0.2 else "0123456789")
                                 for _ in range(n)))  # fmt: skip
    bban = "".join(parts)
    compact = country + iban_check(country, bban) + bban
    if style == "compact" or (style == "any" and rng.random() < 0.3):
        return compact
    return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


def ssn(rng: random.Random) -> str:
    while True:
        area, group, serial = rng.randrange(1, 900), rng.randrange(1, 100), rng.randrange(1, 10_000)
        digits = f"{area:03d}{group:02d}{serial:04d}"
        if area != 666 and len(set(digits)) > 1 and digits not in ("123456789", "078051120"):
            break
    sep = rng.choice(["-", "-", "-", " "])
    return f"{area:03d}{sep}{group:02d}{sep}{serial:04d}"


def digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(n))


# (region, how a number is written); # is a random digit
PHONE_SHAPES = [
    ("US", "(415) 555-01##"), ("US", "312-555-01##"), ("US", "+1 646 555 01##"), ("US", "(206) 555-01##"),
    ("US", "617.555.01##"), ("CA", "+1 (604) 555-01##"), ("GB", "+44 20 7946 0###"), ("GB", "020 7946 0###"),
    ("GB", "0161 496 0###"), ("DE", "+49 30 9018####"), ("DE", "+49 151 2345####"), ("FR", "+33 1 42 68 ## ##"),
    ("FR", "+33 6 12 ## ## ##"), ("IN", "+91 98765 4####"), ("BR", "+55 11 91234-####"), ("JP", "+81 3-1234-####"),
    ("AU", "+61 2 9374 ####"), ("AU", "+61 412 345 ###"), ("NG", "+234 803 123 ####"), ("KE", "+254 712 345###"),
    ("NL", "+31 6 1234####"), ("ES", "+34 612 34 ## ##"), ("IT", "+39 347 123 ####"), ("PL", "+48 512 345 ###"),
    ("ZA", "+27 82 123 ####"), ("KR", "+82 10-1234-####"), ("MX", "+52 55 1234 ####"), ("IE", "+353 85 123 ####"),
    ("SE", "+46 70 123 ## ##"), ("NO", "+47 412 34 ###"), ("GH", "+233 24 123 ####"), ("NZ", "+64 21 123 ####"),
]  # fmt: skip


def phone(rng: random.Random, which: str) -> str:
    shapes = [s for s in PHONE_SHAPES if which != "intl" or s[1].startswith("+")]
    while True:
        region, shape = rng.choice(shapes)
        number = "".join(str(rng.randrange(10)) if c == "#" else c for c in shape)
        if phonenumbers.is_valid_number(phonenumbers.parse(number, region)):
            return number


def timestamp(rng: random.Random) -> datetime:
    return datetime(2024, 6, 14) + timedelta(seconds=rng.randrange(86_400 * 20), microseconds=rng.randrange(10**6))


def pod(rng: random.Random) -> str:
    chars = "bcdfghjklmnpqrstvwxz2456789"
    return (f"{rng.choice(POOLS['svc'])}-{''.join(rng.choice(chars) for _ in range(rng.choice([9, 10])))}"
            f"-{''.join(rng.choice(chars) for _ in range(5))}")  # fmt: skip


def version(rng: random.Random) -> str:
    return f"{rng.randrange(1, 12)}.{rng.randrange(0, 30)}.{rng.randrange(0, 15)}"


def hexs(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


GENERATED: dict[str, Callable[[random.Random], str]] = {
    "ts": lambda r: timestamp(r).strftime("%Y-%m-%d %H:%M:%S,") + f"{r.randrange(1000):03d}",
    "tsiso": lambda r: timestamp(r).strftime("%Y-%m-%dT%H:%M:%S.") + f"{r.randrange(1000):03d}Z",
    "tssys": lambda r: timestamp(r).strftime("%b %d %H:%M:%S"),
    "pod": pod,
    "version": version,
    "reqid": lambda r: hexs(r, 32),
    "span": lambda r: hexs(r, 16),
    "sha": lambda r: hexs(r, 40),
    "sha64": lambda r: hexs(r, 64),
    "uuid": lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4)),
    "pid": lambda r: str(r.randrange(100, 65_536)),
    "build": lambda r: str(r.randrange(40, 9_000)),
    "num": lambda r: str(r.randrange(10 ** r.randrange(2, 6), 10 ** r.randrange(6, 10))),
    "ip": lambda r: r.choice(["10.{}.{}.{}", "172.16.{}.{}", "192.168.{}.{}"]).format(
        *(r.randrange(1, 255) for _ in range(3))
    ),
    "domain": lambda r: r.choice(WORK_DOMAINS + PERSONAL_DOMAINS),
}


def value(fill: Fill, entity: str | None, pool: str, tag: str | None) -> str:
    """The text a slot gets."""
    rng = fill.rng
    if entity == "PERSON":
        who = person(fill, tag or f"_{len(fill.people)}", pool.startswith("word"))
        return {"first": who.first, "last": who.last, "full": who.full}[pool.removeprefix("word")]
    if tag is not None and (pool, tag) in fill.tagged:
        return fill.tagged[(pool, tag)]
    if entity == "EMAIL_ADDRESS":
        who = person(fill, tag if tag is not None else f"_{len(fill.people)}", False)
        out = email_of(rng, who)
    elif entity == "LOCATION":
        choices = {"city": CITIES, "country": COUNTRIES}[pool]
        out = rng.choice([c for c in choices if c not in fill.used])
    elif entity == "PHONE_NUMBER":
        out = phone(rng, pool.removeprefix("phone").lstrip("_") or "any")
    elif entity == "CREDIT_CARD":
        out = card(rng, "compact" if pool == "card_compact" else "any")
    elif entity == "IBAN_CODE":
        out = iban(rng, {"iban_compact": "compact", "iban_spaced": "spaced"}.get(pool, "any"))
    elif entity == "US_SSN":
        out = ssn(rng)
    elif pool in GENERATED:
        out = GENERATED[pool](rng)
    else:
        out = rng.choice([v for v in POOLS[pool] if v not in fill.used] or POOLS[pool])
    fill.used.add(out)
    if tag is not None:
        fill.tagged[(pool, tag)] = out
    return out


def instantiate(template: str, kind: str, rng: random.Random) -> Row:
    fill = Fill(rng)
    text, entities, last = "", [], 0
    for m in SLOT.finditer(template):
        entity, pool, tag = m.group(1), m.group(2), m.group(3)
        text += template[last : m.start()]
        surface = value(fill, entity, pool, tag)
        if entity is not None:
            entities.append({"type": entity, "start": len(text), "end": len(text) + len(surface), "value": surface})
        text += surface
        last = m.end()
    text += template[last:]
    return {"text": text, "entities": entities, "kind": kind}


def check(row: Row) -> Row:
    """Every span is the text it was filled with and a valid value of its type; spans never overlap."""
    text, entities, kind = row["text"], row["entities"], row["kind"]
    assert isinstance(text, str), row
    assert isinstance(entities, list), row
    assert kind in KINDS, row
    out, end = [], -1
    for e in sorted(entities, key=lambda e: e["start"]):
        surface = text[e["start"] : e["end"]]
        assert surface == e["value"], (text, e)
        assert e["type"] in TYPES, (text, e)
        assert e["start"] >= end, (text, e)
        assert surface, (text, e)
        assert surface == surface.strip(), (text, e)
        if e["type"] == "CREDIT_CARD":
            assert luhn_ok(surface), surface
            assert 15 <= sum(c.isdigit() for c in surface) <= 16, surface
        elif e["type"] == "IBAN_CODE":
            assert iban_ok(surface), surface
        elif e["type"] == "US_SSN":
            assert re.fullmatch(r"\d{3}([- ])\d{2}\1\d{4}", surface), surface
            assert not surface.startswith(("000", "666", "9")), surface
        elif e["type"] == "EMAIL_ADDRESS":
            assert re.fullmatch(r"[a-z0-9._+]+@[a-z0-9-]+(\.[a-z0-9-]+)+", surface), surface
        elif e["type"] == "PERSON":
            assert surface[0].isupper(), surface
        end = e["end"]
        out.append({"type": e["type"], "start": e["start"], "end": e["end"]})
    return {"text": text, "entities": out, "kind": kind}


def build() -> list[Row]:
    rng = random.Random(SEED)
    rows: list[Row] = []
    for kind, template, count in WITH_ENTITIES + WITHOUT_ENTITIES:
        labelled = "«" in template and SLOT.search(template) and any(m.group(1) for m in SLOT.finditer(template))
        assert bool(labelled) == ((kind, template, count) in WITH_ENTITIES), template
        seen = 0
        while seen < count:
            row = check(instantiate(template, kind, rng))
            if all(row["text"] != r["text"] for r in rows):
                rows.append(row)
                seen += 1
    rng.shuffle(rows)
    return rows


def render(rows: list[Row]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def summary(rows: list[Row]) -> str:
    kinds = Counter(str(r["kind"]) for r in rows)
    with_entities = Counter(str(r["kind"]) for r in rows if r["entities"])
    types: Counter[str] = Counter()
    for r in rows:
        entities = r["entities"]
        assert isinstance(entities, list)
        types.update(e["type"] for e in entities)
    lines = [f"{len(rows)} sentences, {sum(with_entities.values())} with entities "
             f"({100 * sum(with_entities.values()) / len(rows):.0f}%)"]  # fmt: skip
    lines += [f"  {k:6s} {kinds[k]:4d} sentences, {with_entities[k]:3d} with entities" for k in KINDS]
    lines += [f"  {t:14s} {types[t]:4d} spans" for t in TYPES]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    args = parser.parse_args()
    rows = build()
    text = render(rows)
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT.name} is {'up to date' if same else 'NOT what make.py writes'}")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(summary(rows))
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
