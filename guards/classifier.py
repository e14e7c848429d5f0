"""The local intent model: TF-IDF features and logistic regression, trained at start-up.

scikit-learn fits the model (a fraction of a second on the bundled data set),
but its per-call overhead (sparse matrices, input checks) costs about a
millisecond for one text. Prediction therefore reads the fitted vocabularies,
IDF weights and coefficients directly: the same numbers, in tens of
microseconds. A test checks the two agree.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import FeatureUnion, Pipeline

from taskgate.errors import TaskgateError

DATA = files("taskgate.guards") / "data"
TRAINING = "intents.jsonl"
HELD_OUT = "intents_heldout.jsonl"
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


class LocalModel:
    """A fitted intent model; `predict` is the hot path."""

    def __init__(self, pipeline: Pipeline):
        union: FeatureUnion = pipeline.named_steps["features"]
        model: LogisticRegression = pipeline.named_steps["model"]
        self.pipeline = pipeline
        self.labels: tuple[str, ...] = tuple(str(c) for c in model.classes_)
        coef = np.asarray(model.coef_, dtype=np.float64)
        intercept = np.asarray(model.intercept_, dtype=np.float64)
        if len(self.labels) == 2:  # binary: one row of coefficients for the positive class
            coef, intercept = np.vstack([-coef, coef]) / 2, np.array([-intercept[0], intercept[0]]) / 2
        self._intercept = intercept
        self._parts: list[tuple[Callable[[str], list[str]], dict[str, int], np.ndarray, np.ndarray]] = []
        offset = 0
        for _, vectorizer in union.transformer_list:
            vocab = {term: int(i) for term, i in vectorizer.vocabulary_.items()}
            width = len(vocab)
            self._parts.append((vectorizer.build_analyzer(), vocab, vectorizer.idf_, coef[:, offset : offset + width]))
            offset += width

    @classmethod
    def train(cls, examples: Sequence[Example], weights: Sequence[float] | None = None) -> LocalModel:
        """Fit on `examples`; `weights` (one per example) let some count more than others."""
        if len({e.label for e in examples}) < 2:
            raise DatasetError("the intent model needs examples of at least two labels")
        pipeline = Pipeline(
            [
                (
                    "features",
                    FeatureUnion(
                        [
                            ("words", TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2)),
                            (
                                "chars",
                                TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 4), sublinear_tf=True, min_df=2),
                            ),
                        ]
                    ),
                ),
                ("model", LogisticRegression(C=10.0, max_iter=2000)),
            ]
        )
        fit: dict[str, object] = {"model__sample_weight": list(weights)} if weights is not None else {}
        pipeline.fit([e.text[:MAX_CHARS] for e in examples], [e.label for e in examples], **fit)
        return cls(pipeline)

    @classmethod
    def with_operator(cls, operator: Sequence[Example], weight: float = 0.0) -> LocalModel:
        """The bundled examples and the operator's, the operator's outweighing them.

        A bundled example whose text the operator labelled too is dropped (the
        operator's label wins), and each operator example weighs `weight`
        bundled ones; 0 means as many as make the operator's set weigh as much
        as the bundled one, and at least three.
        """
        own = {" ".join(e.text.lower().split()) for e in operator}
        base = [e for e in bundled() if " ".join(e.text.lower().split()) not in own]
        if not operator:
            return cls.train(base)
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
