"""The local intent model: TF-IDF features and logistic regression, fitted once, predicted without scikit-learn.

scikit-learn fits the model; it is imported only to fit. The model of the
bundled examples is fitted when the package is built and shipped as
`data/intents_model.json` (vocabularies, IDF weights, coefficients; a test
fails when it is stale), so a gateway without examples of its own starts
without fitting anything. Prediction reads those numbers directly, in tens
of microseconds (scikit-learn's per-call overhead is about a millisecond).

Features are word uni- and bigrams and character 3- and 4-grams within words
of the request, normalised first: addresses, links, file paths, amounts,
times, dates, numbers and channel names become one token each (`emailaddr`,
`weblink`, ...), so a request generalises over the values it names.

    python -m taskgate.guards.classifier    # refit the bundled model and write data/intents_model.json
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from taskgate.errors import TaskgateError

DATA = files("taskgate.guards") / "data"
TRAINING = "intents.jsonl"
HELD_OUT = "intents_heldout.jsonl"
ARTIFACT = "intents_model.json"
FEATURES_VERSION = 2  # bump when normalise() or the analyzers change: the artifact is then stale
MAX_CHARS = 2_000  # the request's instruction is at its start; the rest of a long paste adds cost, not signal


class DatasetError(TaskgateError):
    """A labelled-examples file is unreadable or malformed; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class Example:
    text: str
    label: str


def read_examples(source: Path | str, text: str | None = None) -> list[Example]:
    """Examples from a JSON-lines file of {"text": ..., "label": ...}."""
    name = str(source)
    try:
        raw = text if text is not None else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{name}: cannot read the examples: {exc}") from None
    out: list[Example] = []
    for number, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise DatasetError(f"{name}, line {number}: not JSON: {exc}") from None
        if not (isinstance(row, dict) and isinstance(row.get("text"), str) and isinstance(row.get("label"), str)):
            raise DatasetError(f'{name}, line {number}: expected {{"text": "...", "label": "..."}}')
        if not row["label"].strip() or not row["text"].strip():
            raise DatasetError(f"{name}, line {number}: empty text or label")
        out.append(Example(row["text"], row["label"].strip()))
    return out


def bundled(name: str = TRAINING) -> list[Example]:
    resource = DATA / name
    return read_examples(f"taskgate/guards/data/{name}", resource.read_text(encoding="utf-8"))


_NORMAL = [
    (re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+"), " emailaddr "),
    (re.compile(r"(?i)\b(?:https?://|www\.)\S+|\b[\w\-]+\.(?:com|org|net|io|example|dev)(?:/\S*)?"), " weblink "),
    (re.compile(r"(?<!\w)(?:[\w.\-]+/)+[\w.\-]+\.\w{1,5}\b"), " filepath "),
    (re.compile(r"(?i)(?:[€$£]\s?\d[\d.,]*|\b\d[\d.,]*\s?(?:eur|euros?|usd|dollars?|gbp|€))"), " moneyamount "),
    (re.compile(r"\b\d{1,2}:\d{2}\b"), " clocktime "),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), " datestamp "),
    (re.compile(r"\b\d+(?:[.,]\d+)?\b"), " number "),
    (re.compile(r"(?<![\w&])#[\w\-]+"), " channelname "),
]
_TOKEN = re.compile(r"(?u)\b\w\w+\b")


def normalise(text: str) -> str:
    """Lower case, with each value a request names (address, link, path, amount, ...) as one placeholder."""
    text = text[:MAX_CHARS]
    for pattern, token in _NORMAL:
        text = pattern.sub(token, text)
    return text.lower()


def words(text: str) -> list[str]:
    """Word unigrams and bigrams of the normalised text (as scikit-learn's `word` analyzer would make them)."""
    tokens = _TOKEN.findall(normalise(text))
    return tokens + [f"{a} {b}" for a, b in itertools.pairwise(tokens)]


def chars(text: str) -> list[str]:
    """Character 3- and 4-grams inside each word, padded with a space (scikit-learn's `char_wb`)."""
    out = []
    for word in normalise(text).split():
        padded = f" {word} "
        for n in (3, 4):
            out += [padded[i : i + n] for i in range(len(padded) - n + 1)]
            if len(padded) < n:
                break
    return out


ANALYZERS: dict[str, Callable[[str], list[str]]] = {"words": words, "chars": chars}
Part = tuple[Callable[[str], list[str]], dict[str, int], np.ndarray, np.ndarray]


def digest(examples: Sequence[Example]) -> str:
    """What a fitted model was fitted on (and how): the artifact is stale when this changes."""
    text = json.dumps([FEATURES_VERSION, [[e.text, e.label] for e in examples]], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class LocalModel:
    """A fitted intent model; `predict` is the hot path."""

    def __init__(
        self, labels: Sequence[str], intercept: np.ndarray, parts: Sequence[tuple[str, dict[str, int], Any, Any]],
        pipeline: Any = None, fitted_on: str = "",
    ):  # fmt: skip
        self.labels: tuple[str, ...] = tuple(labels)
        self.pipeline = pipeline  # the scikit-learn pipeline when fitted in this process (None when loaded)
        self.fitted_on = fitted_on
        self._intercept = np.asarray(intercept, dtype=np.float64)
        self._parts: list[Part] = [
            (ANALYZERS[name], vocab, np.asarray(idf, dtype=np.float64), np.asarray(coef, dtype=np.float64))
            for name, vocab, idf, coef in parts
        ]
        self._names = [name for name, *_ in parts]

    @classmethod
    def train(cls, examples: Sequence[Example], weights: Sequence[float] | None = None) -> LocalModel:
        """Fit on `examples`; `weights` (one per example) let some count more than others."""
        if len({e.label for e in examples}) < 2:
            raise DatasetError("the intent model needs examples of at least two labels")
        from sklearn.feature_extraction.text import TfidfVectorizer  # only fitting needs scikit-learn
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import FeatureUnion, Pipeline

        union = FeatureUnion(
            [
                (name, TfidfVectorizer(analyzer=analyzer, sublinear_tf=True, min_df=2))
                for name, analyzer in ANALYZERS.items()
            ]
        )
        pipeline = Pipeline(
            [
                ("features", union),
                ("model", LogisticRegression(C=10.0, solver="saga", max_iter=200, tol=1e-3, random_state=0)),
            ]
        )
        fit: dict[str, object] = {"model__sample_weight": list(weights)} if weights is not None else {}
        pipeline.fit([e.text[:MAX_CHARS] for e in examples], [e.label for e in examples], **fit)
        model = pipeline.named_steps["model"]
        labels = [str(c) for c in model.classes_]
        coef = np.asarray(model.coef_, dtype=np.float64)
        intercept = np.asarray(model.intercept_, dtype=np.float64)
        if len(labels) == 2:  # binary: one row of coefficients for the positive class
            coef, intercept = np.vstack([-coef, coef]) / 2, np.array([-intercept[0], intercept[0]]) / 2
        parts, offset = [], 0
        for name, vectorizer in union.transformer_list:
            vocab = {term: int(i) for term, i in vectorizer.vocabulary_.items()}
            parts.append((name, vocab, vectorizer.idf_, coef[:, offset : offset + len(vocab)]))
            offset += len(vocab)
        return cls(labels, intercept, parts, pipeline, digest(examples))

    def dumps(self) -> str:
        """The model as JSON: labels, intercepts, and per feature set its vocabulary (in column order), IDF
        weights and coefficients."""
        parts = []
        for name, (_, vocab, idf, coef) in zip(self._names, self._parts, strict=True):
            terms = sorted(vocab, key=vocab.__getitem__)
            parts.append({"name": name, "terms": terms, "idf": idf.tolist(), "coef": coef.tolist()})
        body = {"version": FEATURES_VERSION, "fitted_on": self.fitted_on, "labels": list(self.labels),
                "intercept": self._intercept.tolist(), "parts": parts}  # fmt: skip
        return json.dumps(body, separators=(",", ":"))

    @classmethod
    def loads(cls, text: str) -> LocalModel:
        body = json.loads(text)
        parts = [(p["name"], {t: i for i, t in enumerate(p["terms"])}, p["idf"], p["coef"]) for p in body["parts"]]
        return cls(body["labels"], np.asarray(body["intercept"]), parts, None, body.get("fitted_on", ""))

    @classmethod
    def packaged(cls) -> LocalModel:
        """The bundled examples' model as it was fitted at build time."""
        return cls.loads((DATA / ARTIFACT).read_text(encoding="utf-8"))

    @classmethod
    def with_operator(cls, operator: Sequence[Example], weight: float = 0.0) -> LocalModel:
        """The bundled examples and the operator's, the operator's outweighing them.

        A bundled example whose text the operator labelled too is dropped (the
        operator's label wins), and each operator example weighs `weight`
        bundled ones; 0 means as many as make the operator's set weigh as much
        as the bundled one, and at least three. Without operator examples this
        is the packaged model (fitted at build time).
        """
        if not operator:
            return cls.packaged()
        own = {" ".join(e.text.lower().split()) for e in operator}
        base = [e for e in bundled() if " ".join(e.text.lower().split()) not in own]
        each = weight or max(3.0, len(base) / len(operator))
        return cls.train([*base, *operator], [1.0] * len(base) + [each] * len(operator))

    def probabilities(self, text: str) -> np.ndarray:
        """Class probabilities in `labels` order, computed as the fitted pipeline would."""
        text = text[:MAX_CHARS]
        scores = self._intercept.copy()
        for analyze, vocab, idf, coef in self._parts:
            counts = Counter(analyze(text))
            columns, weights = [], []
            for term, count in counts.items():
                column = vocab.get(term)
                if column is not None:
                    columns.append(column)
                    weights.append((1.0 + math.log(count)) * idf[column])
            if not columns:
                continue
            vector = np.asarray(weights)
            scores += coef[:, columns] @ (vector / math.sqrt(float(vector @ vector)))
        exp = np.exp(scores - scores.max())
        return np.asarray(exp / exp.sum())

    def predict(self, text: str) -> tuple[str, float]:
        probabilities = self.probabilities(text)
        best = int(probabilities.argmax())
        return self.labels[best], float(probabilities[best])

    def accuracy(self, examples: Iterable[Example]) -> float:
        rows = list(examples)
        return sum(self.predict(e.text)[0] == e.label for e in rows) / len(rows) if rows else 0.0


def build(target: Path | None = None) -> Path:
    """Fit the bundled examples' model and write it where the package reads it (run at build time)."""
    path = target or Path(str(DATA / ARTIFACT))
    path.write_text(LocalModel.train(bundled()).dumps() + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    print(f"wrote {build()}")
