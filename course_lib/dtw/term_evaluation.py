"""Measuring discovered pairs against known word spans (Unit 1): bookkeeping, not discovery.

Term discovery uses no labels; only afterwards are they used to judge it. Given each utterance's
word spans (start and end frame of every word token), a fragment's *word* is the token that
overlaps most of its frames (:func:`fragment_word`). A pair is *right* when both fragments have
the same word (:func:`evaluate_discoveries`). Precision is the fraction of right pairs; coverage
the fraction of all word tokens that are the word of a fragment in at least one right pair (as
Park & Glass 2008 judge their discovered clusters by the words under them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .term_discovery import Fragment, _check_pairs
from ..validation import as_float_array

__all__ = ["DiscoveryReport", "fragment_word", "evaluate_discoveries"]


@dataclass(frozen=True, eq=False)
class DiscoveryReport:
    """How many discovered pairs are right, judged by known word spans.

    ``words[k]`` is the (first, second) word of pair k (see :func:`fragment_word`), ``correct[k]``
    whether they agree; ``found_tokens[u]`` flags the word tokens of utterance u that are the word
    of a fragment in a right pair.
    """

    words: list[tuple]
    correct: np.ndarray
    found_tokens: list[np.ndarray]

    @property
    def n_pairs(self) -> int:
        return int(self.correct.size)

    @property
    def precision(self) -> float:
        """Fraction of the pairs whose two fragments have the same word (NaN without pairs)."""
        return float(np.mean(self.correct)) if self.correct.size else float("nan")

    @property
    def coverage(self) -> float:
        """Fraction of all word tokens found by at least one right pair."""
        return float(np.mean(np.concatenate(self.found_tokens)))


def _check_spans(word_spans, transcripts):
    if isinstance(word_spans, (str, bytes)) or not hasattr(word_spans, "__len__"):
        raise TypeError(f"word_spans: expected one (W_u, 2) array per utterance, got "
                        f"{type(word_spans).__name__}")
    if isinstance(transcripts, (str, bytes)) or not hasattr(transcripts, "__len__"):
        raise TypeError(f"transcripts: expected one word sequence per utterance, got "
                        f"{type(transcripts).__name__}")
    if len(transcripts) != len(word_spans):
        raise ValueError(f"transcripts: expected one per utterance of word_spans "
                         f"({len(word_spans)}), got {len(transcripts)}")
    spans = []
    for u, (s, words) in enumerate(zip(word_spans, transcripts)):
        s = as_float_array(s, f"word_spans[{u}]", ndim=2)
        if s.shape != (len(words), 2) or np.any(s != np.round(s)) or np.any(s[:, 1] < s[:, 0]):
            raise ValueError(f"word_spans[{u}]: expected {len(words)} rows [start, end] of "
                             f"frame numbers with start <= end (one per word of "
                             f"transcripts[{u}]), got shape {s.shape}")
        spans.append(s.astype(np.int64))
    return spans


def fragment_word(fragment: Fragment, word_spans, transcripts):
    """``(word, token)``: the word token of the fragment's utterance that overlaps most of its
    frames (the first on ties), or ``(None, -1)`` if it overlaps none."""
    if not isinstance(fragment, Fragment):
        raise TypeError(f"fragment: expected a Fragment, got {type(fragment).__name__}")
    spans = _check_spans(word_spans, transcripts)
    if not 0 <= fragment.utterance < len(spans):
        raise ValueError(f"fragment: utterance {fragment.utterance} is not one of the "
                         f"{len(spans)} utterances of word_spans")
    return _word_of(fragment, spans[fragment.utterance], transcripts[fragment.utterance])


def _word_of(fragment, spans, words):
    shared = np.minimum(spans[:, 1], fragment.end) - np.maximum(spans[:, 0], fragment.start) + 1
    token = int(np.argmax(shared))
    return (words[token], token) if shared[token] > 0 else (None, -1)


def evaluate_discoveries(pairs, word_spans, transcripts) -> DiscoveryReport:
    """Judge discovered ``pairs`` with the known word spans of every utterance.

    ``word_spans[u]`` is a (W_u, 2) array of [start, end] frames (inclusive) of the words
    ``transcripts[u]`` (a sequence of W_u words or digits). A pair is right when both fragments
    have the same :func:`fragment_word`; a fragment that overlaps no word never is.
    """
    pairs = _check_pairs(pairs)
    spans = _check_spans(word_spans, transcripts)
    found = [np.zeros(len(s), dtype=bool) for s in spans]
    words, correct = [], []
    for k, pair in enumerate(pairs):
        labelled = []
        for f in (pair.first, pair.second):
            if not 0 <= f.utterance < len(spans):
                raise ValueError(f"pairs[{k}]: utterance {f.utterance} is not one of the "
                                 f"{len(spans)} utterances of word_spans")
            labelled.append(_word_of(f, spans[f.utterance], transcripts[f.utterance]))
        (word_a, token_a), (word_b, token_b) = labelled
        right = word_a is not None and word_a == word_b
        if right:
            found[pair.first.utterance][token_a] = True
            found[pair.second.utterance][token_b] = True
        words.append((word_a, word_b))
        correct.append(right)
    return DiscoveryReport(words, np.array(correct, dtype=bool), found)
