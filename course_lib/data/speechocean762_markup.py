"""How speechocean762's five experts judged each word: the markup of ``utt2score`` read.

Every sentence's record in the corpus's ``utt2score`` holds, for each word, the five experts'
word accuracy (0-10) and what each expert wrote of its phones, in a phone set of their own
(ARPAbet with stress digits, plus symbols for British vowels and consonant clusters) with
brackets for what they heard: ``(X)`` mispronounced or missed, ``{X}`` accented, ``[X]`` heard
but not in the word, and a phone outside every bracket correct (``data/speechocean762/README.md``
says how the course reads it). This module turns that markup into scores of each word's
canonical phones (:class:`WordJudgement`):

* :func:`_expert_phones` reads one expert's markup of one word as (CMU phone, score 0-2) pairs
  and the number of phones heard inserted;
* :func:`align_phones` aligns two phone sequences by edit distance (a gap costs 1, a
  substitution :func:`_phone_cost`), which chooses the word's canonical pronunciation from the
  corpus's lexicon and gives each canonical phone the score of the phone aligned with it
  (:func:`course_lib.pronunciation.word_scores.expert_phone_scores` aligns our phones the same way);
* :func:`_word_judgements` judges every word of the loader's sentences (:func:`_judged_word`
  one word).

:meth:`course_lib.data.speechocean762.PanelSet.word_judgements` gives them for the whole
corpus, read from its copy and memoised by the files' content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from course_lib.data import DataError
from course_lib.data.speechocean762_source import (_COMMIT, _CORPUS_SPLITS, _LEXICON, _N_RATERS,
                                                  _SCALE)

# The corpus's lexicon writes its words in the 39 phones of the CMU dictionary (ARPAbet, stress
# digits dropped here), the phone set of the course's GOP scorer too
# (tests/pronunciation/test_corpus_scorer.py holds the two equal).
_CMU_PHONES = frozenset("AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P "
                        "R S SH T TH UH UW V W Y Z ZH".split())
_CMU_VOWELS = frozenset("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())
# The experts wrote what they heard in a phone set of their own: ARPAbet with stress digits plus
# symbols for British vowels and for consonant clusters. Each symbol as the CMU phones that say
# the same sound (our reading of the symbols, by their sound: AX the schwa, AXR and EE the vowel
# of "bird", OO the short o of "hot", AR / IR / UR the centring diphthongs of "bear", "near" and
# "tour", which the CMU dictionary writes as a vowel and R).
_EXPERT_TO_CMU = {**{phone: (phone,) for phone in _CMU_PHONES},
                  "AX": ("AH",), "AXR": ("ER",), "EE": ("ER",), "OO": ("AA",),
                  "AR": ("EH", "R"), "IR": ("IH", "R"), "UR": ("UH", "R"),
                  "TS": ("T", "S"), "TR": ("T", "R"), "DR": ("D", "R"), "DZ": ("D", "Z")}
# markup: (X) mispronounced or missed (score 0), {X} accented (1), [X] heard but not in the
# word (inserted, no score); a phone outside every bracket is correct (2)
_GROUP_SCORE = {"(": 0, "{": 1, "[": None}
_CLOSING = {")": "(", "}": "{", "]": "["}
_MARKUP_TOKEN = re.compile(r"[(){}\[\]]|[^\s(){}\[\]]+")


@dataclass(frozen=True)
class WordJudgement:
    """One word of one sentence as the five experts judged it.

    ``item`` and ``word_index`` (its place in the item's text) and ``word`` (as in the text);
    ``accuracy`` (5,) each expert's score of the word, 0-10; ``phones`` the word's canonical
    phones (CMU phones without stress, the corpus lexicon's pronunciation of the word nearest to
    what the experts wrote); ``phone_scores`` (n_phones, 5) each expert's score of each
    canonical phone: 2 correct, 1 accented, 0 mispronounced or missed, NaN where the expert
    wrote no phone in that place or wrote brackets that do not pair (then the whole column);
    ``inserted`` (5,) how many phones each expert heard that the word does not have;
    ``total`` (5,) each expert's total score of the word, 0-10 (not always whole: the corpus
    stores it computed from the expert's other scores).
    """

    item: int
    word_index: int
    word: str
    accuracy: np.ndarray
    phones: tuple[str, ...]
    phone_scores: np.ndarray
    inserted: np.ndarray
    total: np.ndarray


def _expert_phones(text, where: str) -> tuple[list[tuple[str, int]], int] | None:
    """What one expert wrote for a word: [(CMU phone, score 0-2), ...] for the word's own phones
    in order (an expert's symbol may stand for two CMU phones, which share its score; "" for a
    phone the expert marked without naming it, an empty "()" or "{}"), and the number of phones
    heard inserted. None when the brackets do not pair. A symbol outside the experts' phone set
    is a DataError naming ``where``."""
    if not isinstance(text, str):
        raise DataError(f"{where}: expected the phones as a string, got {text!r}")
    phones: list[tuple[str, int]] = []
    inserted, groups = 0, []            # groups: [opening bracket, phones named inside]
    for token in _MARKUP_TOKEN.findall(text):
        if token in _GROUP_SCORE:
            groups.append([token, 0])
        elif token in _CLOSING:
            if not groups or groups[-1][0] != _CLOSING[token]:
                return None
            bracket, named = groups.pop()
            brackets = [bracket] + [group[0] for group in groups]
            if named == 0 and "[" not in brackets:
                phones.append(("", _markup_score(brackets)))
        else:
            symbol = token.rstrip("012")
            if symbol not in _EXPERT_TO_CMU:
                raise DataError(f"{where}: {token!r} in {text!r} is not a phone of the experts' "
                                f"set ({' '.join(sorted(_EXPERT_TO_CMU))}, with stress digits)")
            for group in groups:
                group[1] += 1
            score = _markup_score([group[0] for group in groups])
            if score is None:
                inserted += 1
            else:
                phones.extend((phone, score) for phone in _EXPERT_TO_CMU[symbol])
    return None if groups else (phones, inserted)


def _markup_score(brackets: list[str]) -> int | None:
    """The score of a phone inside these brackets: inserted (None) beats missed (0) beats
    accented (1); no bracket, correct (2)."""
    scores = [_GROUP_SCORE[bracket] for bracket in brackets]
    return None if None in scores else min(scores, default=2)


def _phone_cost(first: str, second: str) -> float:
    """What substituting one phone for another costs an alignment: 0 for the same phone or an
    unnamed one (""), 1 between two vowels or two consonants, 1.5 between a vowel and a
    consonant (still below a deletion plus an insertion, 2)."""
    if first == second or not first or not second:
        return 0.0
    return 1.0 if (first in _CMU_VOWELS) == (second in _CMU_VOWELS) else 1.5


@lru_cache(maxsize=1 << 16)   # the corpus's 160,000 transcriptions repeat a few thousand pairs
def align_phones(first: tuple[str, ...], second: tuple[str, ...]
                 ) -> tuple[float, tuple[tuple[int | None, int | None], ...]]:
    """The edit-distance alignment of two phone sequences (a gap costs 1, a substitution
    :func:`_phone_cost`): its cost and its pairs in order, (i, j) for first[i] against
    second[j], (i, None) or (None, j) for a phone with no partner. Ties take a pair first,
    then a phone of ``first`` left alone."""
    n, m = len(first), len(second)
    # plain lists: these tables are a few cells wide, where numpy's indexing costs more
    cost = [[float(i + j) if not (i and j) else 0.0 for j in range(m + 1)]
            for i in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost[i][j] = min(cost[i - 1][j - 1] + _phone_cost(first[i - 1], second[j - 1]),
                             cost[i - 1][j] + 1.0, cost[i][j - 1] + 1.0)
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i or j:
        if i and j and cost[i][j] == cost[i - 1][j - 1] + _phone_cost(first[i - 1],
                                                                      second[j - 1]):
            i, j = i - 1, j - 1
            pairs.append((i, j))
        elif i and cost[i][j] == cost[i - 1][j] + 1.0:
            i -= 1
            pairs.append((i, None))
        else:
            j -= 1
            pairs.append((None, j))
    return cost[n][m], tuple(pairs[::-1])


def _whole_scores(scores, where: str, high: int) -> np.ndarray:
    """Five whole-number scores 0..``high`` (some stored as floats, 9.0) as floats."""
    if not isinstance(scores, list) or len(scores) != _N_RATERS or any(
            isinstance(s, bool) or not isinstance(s, (int, float)) or s != int(s)
            or not 0 <= s <= high for s in scores):
        raise DataError(f"{where}: expected {_N_RATERS} experts' whole scores 0-{high}, got "
                        f"{scores!r}")
    return np.array(scores, dtype=np.float64)


def _scores(scores, where: str, high: int) -> np.ndarray:
    """Five numbers 0..``high`` (whole or not) as floats."""
    if not isinstance(scores, list) or len(scores) != _N_RATERS or any(
            isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= high
            for s in scores):
        raise DataError(f"{where}: expected {_N_RATERS} experts' scores 0-{high}, got "
                        f"{scores!r}")
    return np.array(scores, dtype=np.float64)


def _judged_word(item: int, index: int, word: str, record, pronunciations: dict,
                 where: str) -> WordJudgement:
    """One word's :class:`WordJudgement`: the canonical phones are the lexicon's
    pronunciation with the least total alignment cost to what the readable experts wrote (the
    first on a tie), and each expert's score of a canonical phone is that of the phone aligned
    with it."""
    # the records write an apostrophe as U+02C8 (IT\u02c8S), the texts as ' (IT'S)
    if not isinstance(record, dict) or str(record.get("text", "")).replace(
            "\u02c8", "'").upper() != word:
        raise DataError(f"{where}: expected the word record of {word!r}, got "
                        f"{str(record)[:80]!r}")
    accuracy = _whole_scores(record.get("accuracy"), where, _SCALE[1])
    total = _scores(record.get("total"), where, _SCALE[1])
    texts = record.get("phones")
    if not isinstance(texts, list) or len(texts) != _N_RATERS:
        raise DataError(f"{where}: expected {_N_RATERS} experts' phones, got {texts!r}")
    heard = [_expert_phones(text, f"{where}, expert {e + 1}") for e, text in enumerate(texts)]
    if word not in pronunciations:
        raise DataError(f"{where}: {word!r} is not in the corpus's lexicon {_LEXICON}")
    said = [tuple(phone for phone, _ in h[0]) for h in heard if h is not None]
    canonical = min(pronunciations[word],
                    key=lambda phones: sum(align_phones(phones, s)[0] for s in said))
    scores = np.full((len(canonical), _N_RATERS), np.nan)
    inserted = np.full(_N_RATERS, np.nan)
    for expert, h in enumerate(heard):
        if h is not None:
            inserted[expert] = h[1]
            for i, j in align_phones(canonical, tuple(phone for phone, _ in h[0]))[1]:
                if i is not None and j is not None:
                    scores[i, expert] = h[0][j][1]
    for array in (accuracy, scores, inserted, total):
        array.setflags(write=False)
    return WordJudgement(item, index, word, accuracy, canonical, scores, inserted, total)


def _word_judgements(sentences: list[dict], pronunciations: dict) -> tuple[WordJudgement, ...]:
    """Every word of :func:`_sentences`' rows (item order) with its experts' judgements."""
    judgements = []
    for item, row in enumerate(sentences):
        where = f"{_COMMIT}/{_CORPUS_SPLITS[row['split']]}/utt2score, utterance {row['utt']}"
        words, records = row["text"].split(), row.get("words")
        if not isinstance(records, list) or len(records) != len(words):
            raise DataError(f"{where}: expected a word record for each of the {len(words)} "
                            f"words of its text")
        judgements += [_judged_word(item, index, word, record, pronunciations,
                                    f"{where}, word {index + 1}")
                       for index, (word, record) in enumerate(zip(words, records))]
    return tuple(judgements)
