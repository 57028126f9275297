"""Which word was said? Each word of the text decoded against its neighbours in one grammar pass.

A GOP score (:mod:`.gop`) says how well the written phones explain a word's sound; it does not
say what was said instead, and a one-phone change said clearly ("played" read as "prayed") costs
one phone of a word little. This module asks the question directly, with Unit 3's Viterbi
decoding over a grammar of alternatives instead of a grammar of one sentence. Each word of the
text becomes a *slot* of a finite-state grammar, and the slot may hold

- the written word (any of its dictionary pronunciations);
- its *neighbours*: the dictionary's words one phone substitution, insertion or deletion away
  from a pronunciation of it, stress ignored (:func:`neighbours`), at most twelve of them:
  a substitution within a phone class first (l/r, voicing, one vowel for another), then an
  insertion or deletion, then any other substitution, the more common word first by the en-us
  language model's unigrams (names and places it lacks left out); each at a cost of
  ``neighbour_penalty`` nats: a reader mostly says what is written, and this prior keeps the
  acoustic model's preferences among near-identical words from outvoting the text (on the ten
  development clips, 25 nats cut the words of correct readings flagged from 9 of 31 to 3, and
  caught 5 of 8 replaced words instead of 7);
- *unclear*: a pseudo-word made of the model's spoken-noise filler (its garbage model of
  speech that is no word), at a cost of ``unclear_penalty`` nats;
- *left out*: a pause pseudo-word of the silence model (30 ms or more), at a cost of
  ``omission_penalty`` nats. (An empty arc would say "nothing" more literally, but the search
  prunes an empty arc against its word beam, and a sentence whose omission penalty came near
  that beam did not decode at all.)

This is the extended recognition network of Harrison, Lo, Qian & Meng (2009, SLaTE), which
adds a learner's likely mispronunciations to a word's canonical one, used one level up: the
alternatives are whole words (the miscues of a reader), not phone rules. The written word's
homophones (a pronunciation in common with it) are not alternatives: saying one is reading the
word as written.

One pass of pocketsphinx's grammar search (the same phonetically-tied mixture HMMs and units as
:mod:`.gop`: nats per 10 ms frame) gives a word lattice, the paths the Viterbi beam kept. Over
the lattice, a max-product forward and backward pass (Unit 3's Viterbi recursion in both
directions) gives, for every lattice word, the score of the best whole-sentence path through
it. So for each slot two numbers are exact over the lattice: the best path that puts the
written word in the slot, and the best path that puts anything else there (a neighbour, the
unclear or the left-out pseudo-word). Their difference, divided by the frames of the written
word on its own best path, is the slot's ``margin`` in nats per frame; it plays the part of
Witt & Young's (2000) GOP, a log-likelihood ratio per frame, with the competitor restricted to
the grammar's alternatives instead of a free phone loop. Both paths explain the whole
recording, so the normalisation by the best senone in each frame cancels, and nothing is
exponentiated: every score stays a log. A word is *as written* when its margin is at least
``margin``; otherwise the verdict is the best competitor's: *said other* (the word heard),
*unclear*, or *left out*.
The search keeps a word end only within 46 nats of the best at its frame: when no competitor
survived in a slot the margin is +inf, and when the written word did not, -inf.

Approximation, named: the lattice merges paths that enter a word at the same frame from
different predecessors and keeps the best one's score, so a slot's competitor can be scored a
little too well or too badly where two paths meet (pocketsphinx's lattice is an approximation
of the full search space in the same way).

The margin and the two penalties are chosen on the tuning half of synthetic readings and the
corpus's training speakers (``experiments/misread_readings.py``); :class:`ReadingDecoder` reads
them from that committed result, and refuses to guess while it does not exist.

What pocketsphinx needs said its own way (its shipped files, adding words and a search to a
decoder, running the search, reading the lattice from its text format) sits in the engine
beside this module, :mod:`course_lib.pronunciation._pocketsphinx_io`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pocketsphinx

from course_lib.stated_rates import fitted_state, is_committed

from ._pocketsphinx_io import (_add_search, _add_words, _cmu_lines, _decoder_pronunciations,
                               _is_filler, _Lattice, _search_lattice, _word_log_frequency)
from .gop import (_FRAMES_PER_SECOND, _VOWELS, PHONES, PronunciationScorer, _check_recording,
                  _pcm_bytes)

_VERDICTS = ("as written", "said other", "left out", "unclear")
# Why a cap: every alternative is one more chance for a competitor to beat a word read right
# by the luck of the acoustics (a false alarm), and one more word for the search to keep
# alive. Twelve keeps every same-class one-phone substitution of most short words (the l/r,
# voicing and vowel changes of issue 58) and the grammar pass cheaper than the alignment.
_MAX_NEIGHBOURS = 12
_RESULT = "misread_readings"
_TUNING = "pronunciation.reading_decoder_tuning"     # its entry in course_lib.stated_rates
_SEARCH = "word_choice"
# The word beam of the grammar pass: a word end more than ln(1e20) = 46 nats below the best
# one at its frame is dropped. The alignment's 1e-48 kept eight times as many word ends on an
# eight-word sentence, and pocketsphinx builds the lattice in time quadratic in them (1.9 s
# against 0.09 s); a competitor that far behind would lose by more than any margin a word
# needs (46 nats over a 20-frame word is 2.3 nats per frame), and the margin says +inf.
# A recording this pass cannot explain is decoded again with the scorer's wider beams.
_GRAMMAR_WORD_BEAM = 1e-20
# The unclear alternative: a pseudo-word made of the model's spoken-noise filler (+SPN+, trained
# on speech that is no word; on espeak-ng's voices it fits worse than most words). A loop of the
# 39 phones, the other garbage model one could use, made the lattice of a six-word sentence
# 250,000 links long (206 s to build; pocketsphinx finds lattice nodes by a linear search).
_UNCLEAR_WORD = "unclear-speech"
_UNCLEAR_PHONES = "+SPN+"
# The left-out alternative: a pause pseudo-word of the silence model (at least 30 ms, its
# HMM's three states), not an empty arc: pocketsphinx prunes an empty arc's end against its
# word beam, and a sentence whose omission penalty came near that beam failed to decode at all
_LEFT_OUT_WORD = "left-out"
_LEFT_OUT_PHONES = "SIL"
# A plain word of the dictionary: letters, perhaps an apostrophe ("don't"); not its
# abbreviations ("a."), hyphenated compounds, letter names ("v", "c": only "a" and "i" are
# words) or letters' plurals ("i's"), which no reader says for a written word. No frequency
# floor: "si" and "tho" are more common in the language model than "prayed" for PLAYED.
# Known gaps, kept because every committed decoder result was measured with them: letter names
# spelled as words ("vi", "si", "fi") still pass, and spellings of one sound ("class", "klass",
# "klas"; "sea", "si") each take a place under the cap.
_PLAIN_WORD = re.compile(r"(?![b-hj-z]$|[a-z]'s$)[a-z]+(?:'[a-z]+)?")
# Phone classes for the nearest-first order: a substitution within a class (l/r, p/b, one
# vowel for another) is the nearest change, an insertion or deletion next, a substitution
# across classes last
_PHONE_CLASS = {phone: "vowel" for phone in _VOWELS}
_PHONE_CLASS.update({phone: "stop" for phone in "P B T D K G".split()})
_PHONE_CLASS.update({phone: "affricate" for phone in "CH JH".split()})
_PHONE_CLASS.update({phone: "fricative" for phone in "F V TH DH S Z SH ZH HH".split()})
_PHONE_CLASS.update({phone: "nasal" for phone in "M N NG".split()})
_PHONE_CLASS.update({phone: "liquid" for phone in "L R".split()})
_PHONE_CLASS.update({phone: "glide" for phone in "W Y".split()})
_SAME_CLASS, _INSERT_DELETE, _OTHER_CLASS = 1, 2, 3
_ORDERED_PHONES = tuple(sorted(PHONES))


@dataclass(frozen=True)
class WordChoice:
    """The verdict on the ``index``-th word of the text (``word``, upper case).

    ``verdict``: "as written", "said other", "left out" or "unclear"; ``heard``: the
    dictionary word decoded in its slot (upper case; the written word when as written; None
    when left out; "" when unclear);
    ``margin``: nats per frame, the best path with the written word in this slot minus the best
    path with anything else there, over the written word's frames (+inf when no competitor
    survived the search, -inf when the written word did not, NaN when the recording was not
    decoded); ``start``, ``end``: the heard word's span in s (NaN when left out or not decoded).
    """

    index: int
    word: str
    verdict: str
    heard: str | None
    margin: float
    start: float
    end: float


class PronouncingDictionary:
    """Words and their pronunciations (ARPAbet phones, stress ignored), indexed both ways.

    ``pronunciations``: {word: phones or [phones, ...]}, e.g. ``{"READ": ["R IY1 D", "R EH1
    D"]}``; digits (stress marks) are dropped and words compared in lower case.
    """

    def __init__(self, pronunciations: Mapping):
        if not isinstance(pronunciations, Mapping) or not pronunciations:
            raise TypeError(f"pronunciations: expected a non-empty mapping {{word: phones}}, got "
                            f"{type(pronunciations).__name__}")
        self._lines: list[str] = []
        self._by_word: dict[str, tuple[str, ...]] | None = {}
        # phones -> the words said so, space-separated (pocketsphinx's "word(2)" names kept)
        self._by_phones: dict[str, str] = {}
        for word, phones in pronunciations.items():
            if not isinstance(word, str) or not word.strip() or len(word.split()) != 1:
                raise ValueError(f"pronunciations: expected one word per key, got {word!r}")
            variants = [phones] if isinstance(phones, str) else list(phones)
            cleaned = []
            for variant in variants:
                symbols = re.sub(r"\d", "", variant).split() if isinstance(variant, str) else []
                if not symbols or any(symbol not in PHONES for symbol in symbols):
                    raise ValueError(f"pronunciations: {word!r} has {variant!r}; expected "
                                     f"ARPAbet phones from {' '.join(_ORDERED_PHONES)}")
                cleaned.append(" ".join(symbols))
            self._add(word.lower(), cleaned)

    @classmethod
    def _from_lines(cls, lines: list[str]) -> "PronouncingDictionary":
        """The fast path for pocketsphinx's dictionary file ("word(2) PH ONES" lines, no stress
        marks): only the index by phones is built, the one the decoder needs; the index by
        word waits for the first :meth:`pronunciations`."""
        dictionary = cls.__new__(cls)
        dictionary._lines, dictionary._by_word = lines, None
        by_phones: dict[str, str] = {}
        for line in lines:
            word, _, phones = line.partition(" ")
            known = by_phones.get(phones)
            by_phones[phones] = word if known is None else known + " " + word
        dictionary._by_phones = by_phones
        return dictionary

    def _add(self, word: str, variants: list[str]) -> None:
        self._by_word[word] = tuple(dict.fromkeys(self._by_word.get(word, ()) + tuple(variants)))
        for phones in variants:
            if word not in self.words_said(phones):
                known = self._by_phones.get(phones)
                self._by_phones[phones] = word if known is None else known + " " + word

    def pronunciations(self, word: str) -> tuple[str, ...]:
        """The phones of every pronunciation of ``word`` (empty when it is not in here)."""
        if self._by_word is None:
            by_word: dict[str, tuple[str, ...]] = {}
            for line in self._lines:
                name, _, phones = line.partition(" ")
                base = name.split("(", 1)[0]
                by_word[base] = by_word.get(base, ()) + (phones,)
            self._by_word = by_word
        return self._by_word.get(word.lower(), ())

    def words_said(self, phones: str) -> tuple[str, ...]:
        """The words pronounced ``phones`` (space-separated, no stress marks), lower case."""
        names = self._by_phones.get(phones)
        return tuple(dict.fromkeys(name.split("(", 1)[0] for name in names.split())) \
            if names else ()


_CMU: list[PronouncingDictionary] = []


def _cmu_dictionary() -> PronouncingDictionary:
    """The CMU dictionary that pocketsphinx's en-us model ships (no stress marks), read once per
    process (about 0.3 s) and kept."""
    if not _CMU:
        _CMU.append(PronouncingDictionary._from_lines(_cmu_lines()))
    return _CMU[0]


def _edits(phones: tuple[str, ...]):
    """(phones after one edit, the edit's nearness) for every substitution, insertion and
    deletion of one phone."""
    for position, phone in enumerate(phones):
        yield " ".join(phones[:position] + phones[position + 1:]), _INSERT_DELETE
        for other in _ORDERED_PHONES:
            if other != phone:
                nearness = _SAME_CLASS if _PHONE_CLASS[other] == _PHONE_CLASS[phone] \
                    else _OTHER_CLASS
                yield " ".join(phones[:position] + (other,) + phones[position + 1:]), nearness
    for position in range(len(phones) + 1):
        for other in _ORDERED_PHONES:
            yield " ".join(phones[:position] + (other,) + phones[position:]), _INSERT_DELETE


def _neighbour_nearness(word: str, pronunciations, dictionary: PronouncingDictionary) -> dict:
    """{neighbour: its nearest edit's nearness} of a word with these pronunciations."""
    own = set(pronunciations)
    homophones = {w for phones in own for w in dictionary.words_said(phones)} | {word.lower()}
    found: dict[str, int] = {}
    for phones in own:
        for edited, nearness in _edits(tuple(phones.split())):
            if edited in own:
                continue
            for other in dictionary.words_said(edited):
                if other not in homophones and _PLAIN_WORD.fullmatch(other) \
                        and nearness < found.get(other, _OTHER_CLASS + 1):
                    found[other] = nearness
    return found


def _check_word(word, dictionary) -> PronouncingDictionary:
    if not isinstance(word, str) or len(word.split()) != 1:
        raise ValueError(f"word: expected one word, got {word!r}")
    if dictionary is None:
        dictionary = _cmu_dictionary()
    elif isinstance(dictionary, Mapping):
        dictionary = PronouncingDictionary(dictionary)
    if not isinstance(dictionary, PronouncingDictionary):
        raise TypeError(f"dictionary: expected a PronouncingDictionary, None (the CMU one) or a "
                        f"mapping {{word: phones}}, got {type(dictionary).__name__}")
    if not dictionary.pronunciations(word):
        raise ValueError(f"word: {word!r} is not in the dictionary")
    return dictionary


def neighbours(word: str, dictionary: PronouncingDictionary | Mapping | None = None
               ) -> tuple[str, ...]:
    """The dictionary's plain words (letters, perhaps an apostrophe) one phone substitution,
    insertion or deletion away from any pronunciation of ``word``, stress ignored; sorted, in
    lower case. The word itself and its homophones (a pronunciation in common with it) are left
    out: saying one of them is saying the word. ``dictionary``: a
    :class:`PronouncingDictionary`, a mapping {word: phones}, or None: the CMU dictionary that
    pocketsphinx's en-us model ships."""
    dictionary = _check_word(word, dictionary)
    return tuple(sorted(_neighbour_nearness(word, dictionary.pronunciations(word), dictionary)))


def _nearest_neighbours(word: str, dictionary, limit: int = _MAX_NEIGHBOURS, *,
                       log_frequency=None) -> tuple[str, ...]:
    """At most ``limit`` of :func:`neighbours`, the nearest first: a substitution within a phone
    class (vowel, stop, affricate, fricative, nasal, liquid, glide: the l/r, voicing and vowel
    changes of a learner), then an insertion or deletion, then a substitution across classes;
    within each the more common word first, then alphabetical (a fixed rule).

    ``log_frequency``: word -> its log probability in running text, -inf for a word it does not
    know (left out: the CMU dictionary holds 134,000 names, most of them surnames and places no
    reader says for a written word); None takes the unigrams of pocketsphinx's en-us language
    model (:func:`._pocketsphinx_io._word_log_frequency`)."""
    dictionary = _check_word(word, dictionary)
    if log_frequency is None:
        log_frequency = _word_log_frequency
    if not callable(log_frequency):
        raise TypeError(f"log_frequency: expected a function word -> log probability, got "
                        f"{type(log_frequency).__name__}")
    found = _neighbour_nearness(word, dictionary.pronunciations(word), dictionary)
    return _nearest(found, _check_limit(limit), log_frequency)


def _nearest(found: dict, limit: int, log_frequency) -> tuple[str, ...]:
    known = {w: float(log_frequency(w)) for w in found}
    ranked = sorted((w for w in found if known[w] > -math.inf),
                    key=lambda w: (found[w], -known[w], w))
    return tuple(ranked[:limit])


def _check_limit(limit) -> int:
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 0:
        raise ValueError(f"max_neighbours: expected a whole number >= 0, got {limit!r}")
    return int(limit)


def _check_nats(name: str, value, *, allow_negative: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or (value < 0 and not allow_negative):
        kind = "a finite number" if allow_negative else "a finite number >= 0"
        raise ValueError(f"{name}: expected {kind} of nats, got {value!r}")
    return float(value)


def _tuned(name: str) -> float:
    """The tuned value ``name`` from the committed result of experiments/misread_readings.py."""
    if not is_committed(_TUNING):
        raise RuntimeError(
            f"{name}: no tuned value yet (experiments/results/{_RESULT}.json does not exist); "
            f"pass margin= and the three penalties explicitly, or run "
            f"python -m experiments.{_RESULT} to tune them on the tuning half of the readings")
    tuned = fitted_state(_TUNING).get("tuned", {})
    if name not in tuned:
        raise RuntimeError(f"{name}: experiments/results/{_RESULT}.json has no tuned {name!r}; "
                           f"pass it explicitly or re-run python -m experiments.{_RESULT}")
    return _check_nats(name, tuned[name], allow_negative=name == "margin")


class ReadingDecoder:
    """Decodes a reading of a sentence word by word against each word's neighbours.

    Built from a :class:`PronunciationScorer`, whose decoders (model, dictionary, the words
    added with ``add_word``, the three beams) it shares: no second model is loaded, and a word
    the scorer knows is known here. The neighbours come from the CMU dictionary
    (:func:`_cmu_dictionary`, read on the first decode); ``max_neighbours`` caps them per word.
    """

    def __init__(self, scorer: PronunciationScorer, *, max_neighbours: int = _MAX_NEIGHBOURS):
        if not isinstance(scorer, PronunciationScorer):
            raise TypeError(f"scorer: expected a PronunciationScorer, got "
                            f"{type(scorer).__name__}")
        self._scorer = scorer
        self._max_neighbours = _check_limit(max_neighbours)
        self._grammar_of: dict[int, tuple] = {}     # decoder number -> (text, penalties) loaded
        scorer._decoders.apply(_add_words, {_UNCLEAR_WORD: _UNCLEAR_PHONES,
                                            _LEFT_OUT_WORD: _LEFT_OUT_PHONES})

    def alternatives(self, text: str) -> list[tuple[str, tuple[str, ...]]]:
        """[(written word, (neighbour, ...)), ...]: the slots of the grammar for ``text``,
        words in upper case, neighbours nearest first (the order the module docstring
        gives)."""
        words = self._scorer._check_text(text)
        dictionary = _cmu_dictionary()
        slots = []
        for word in words:
            found = _neighbour_nearness(word, self._pronunciations(word), dictionary)
            nearest = _nearest(found, self._max_neighbours, _word_log_frequency)
            slots.append((word, tuple(w.upper() for w in nearest)))
        return slots

    def grammar(self, text: str) -> str:
        """The grammar of :meth:`alternatives` in JSGF (Java Speech Grammar Format), for reading
        and drawing: one rule per slot with its words and the pseudo-words unclear
        (:data:`_UNCLEAR_WORD`) and left out (:data:`_LEFT_OUT_WORD`). The decoder runs the same
        grammar as a finite-state graph with the penalties on its arcs (:meth:`decode`)."""
        slots = self.alternatives(text)
        lines = ["#JSGF V1.0;", "grammar reading;",
                 "public <reading> = " + " ".join(f"<word{i}>" for i in range(len(slots))) + ";"]
        for i, (word, others) in enumerate(slots):
            choices = [w.lower() for w in (word,) + others] + [_UNCLEAR_WORD, _LEFT_OUT_WORD]
            lines.append(f"<word{i}> = " + " | ".join(choices) + ";")
        return "\n".join(lines) + "\n"

    def decode(self, samples, sample_rate: int, text: str, *, margin: float | None = None,
               unclear_penalty: float | None = None, omission_penalty: float | None = None,
               neighbour_penalty: float | None = None) -> tuple[WordChoice, ...]:
        """The verdict on every word of ``text`` read in ``samples`` (a 1-D array, float in
        [-1, 1] or int16, at ``sample_rate`` Hz), in order.

        ``margin``: nats per frame by which the written word must beat its best competitor to be
        as written (may be negative: then a competitor must win by more than -margin to be
        reported); ``unclear_penalty``: nats for the unclear pseudo-word (the spoken-noise
        model) instead of a word; ``omission_penalty``: nats for leaving a word out;
        ``neighbour_penalty``: nats for saying a neighbour instead of the written word. None
        (for any of the four) takes the value tuned by ``experiments/misread_readings.py`` (an
        error while there is none). Each penalty must stay below the search's beam (110
        nats on the first attempt), or the search never enters its alternative. A recording
        the grammar cannot explain at any of the scorer's beams gets "unclear" for every word
        with a NaN margin."""
        margin = _tuned("margin") if margin is None else _check_nats("margin", margin,
                                                                    allow_negative=True)
        unclear_penalty = _tuned("unclear_penalty") if unclear_penalty is None \
            else _check_nats("unclear_penalty", unclear_penalty)
        omission_penalty = _tuned("omission_penalty") if omission_penalty is None \
            else _check_nats("omission_penalty", omission_penalty)
        neighbour_penalty = _tuned("neighbour_penalty") if neighbour_penalty is None \
            else _check_nats("neighbour_penalty", neighbour_penalty)
        penalties = (unclear_penalty, omission_penalty, neighbour_penalty)
        words = self._scorer._check_text(text)
        x, _ = _check_recording(samples, sample_rate)
        raw = _pcm_bytes(x)
        slots = self.alternatives(text)
        for number, decoder in enumerate(self._scorer._decoders):
            self._load_grammar(number, decoder, slots, penalties)
            if (lattice := _search_lattice(decoder, raw)) is not None:
                return _verdicts(lattice, slots, margin)
        return tuple(WordChoice(i, word, "unclear", "", math.nan, math.nan, math.nan)
                     for i, word in enumerate(words))

    def _pronunciations(self, word: str) -> list[str]:
        """Every pronunciation the decoder holds for ``word`` (its own added words included)."""
        return _decoder_pronunciations(self._scorer._decoders[0], word)

    def _load_grammar(self, number: int, decoder, slots, penalties: tuple) -> None:
        """Make the slots' grammar the decoder's active search (kept while the text and the
        penalties stay the same: a student reads the same sentence again and again)."""
        key = (tuple(slots), penalties)
        if self._grammar_of.get(number) != key:
            # the first decoder's search keeps fewer word ends (_GRAMMAR_WORD_BEAM); a
            # recording it cannot explain goes on to the scorer's wider beams
            _add_search(decoder, _SEARCH, _slot_graph(decoder, slots, *penalties),
                        _GRAMMAR_WORD_BEAM if number == 0 else None)
            self._grammar_of[number] = key
        decoder.activate_search(_SEARCH)


def _slot_graph(decoder, slots, unclear_penalty: float, omission_penalty: float,
                neighbour_penalty: float):
    """The grammar as a finite-state graph whose states say where a word belongs.

    State i (0..n) lies before slot i, state n is final; every word of slot i, the two
    pseudo-words included, leads from i to i + 1, so a lattice word that ends in state s > 0
    (pocketsphinx records it) belongs to slot s - 1. Penalties are written as log probabilities
    in the decoder's log base, never as probabilities, so none underflows. The search adds its
    own word insertion penalty (pocketsphinx's ``wip``) to every word, pseudo-words included."""
    logmath = decoder.get_logmath()
    n = len(slots)
    graph = pocketsphinx.FsgModel(_SEARCH, logmath, float(decoder.config["lw"]), n + 1)
    graph.set_start_state(0)
    graph.set_final_state(n)
    unclear = logmath.ln_to_log(-unclear_penalty)
    left_out = logmath.ln_to_log(-omission_penalty)
    neighbour = logmath.ln_to_log(-neighbour_penalty)
    for i, (word, others) in enumerate(slots):
        graph.trans_add(i, i + 1, 0, graph.word_add(word.lower()))
        for alternative in others:
            graph.trans_add(i, i + 1, neighbour, graph.word_add(alternative.lower()))
        graph.trans_add(i, i + 1, unclear, graph.word_add(_UNCLEAR_WORD))
        graph.trans_add(i, i + 1, left_out, graph.word_add(_LEFT_OUT_WORD))
    return graph


def _best_paths(lattice: _Lattice) -> tuple[np.ndarray, np.ndarray]:
    """Max-product forward-backward over the lattice (Unit 3's Viterbi recursion run from both
    ends): for every node, the score of the best whole path through it, and the node after it
    on that path (-1 at the end). A link carries its source word's score, so the forward score
    of a node stops before its own word and the backward score starts with it."""
    n_nodes = len(lattice.words)
    # the links in time order: a link leaves a word before the next one begins (the start
    # node the search adds begins at frame 0 with the words it links to, so it goes first)
    rank = np.empty(n_nodes, dtype=int)
    rank[sorted(range(n_nodes), key=lambda k: (lattice.first[k], k != lattice.initial))] = \
        np.arange(n_nodes)
    links = sorted(lattice.links, key=lambda link: rank[link[0]])
    forward = np.full(n_nodes, -np.inf)
    forward[lattice.initial] = 0.0
    for source, target, score in links:
        forward[target] = max(forward[target], forward[source] + score)
    backward = np.full(n_nodes, -np.inf)
    backward[lattice.final] = 0.0
    ahead = np.full(n_nodes, -1)
    for source, target, score in reversed(links):
        if score + backward[target] > backward[source]:
            backward[source], ahead[source] = score + backward[target], target
    return forward + backward, ahead


def _verdicts(lattice: _Lattice, slots, margin: float) -> tuple[WordChoice, ...]:
    """Each slot's verdict: the best lattice path with the written word in the slot against the
    best with anything else there, per frame of the written word."""
    through, ahead = _best_paths(lattice)
    filler = np.array([_is_filler(w) for w in lattice.words])
    slot = np.where(filler, -1, lattice.state - 1)

    def span(node: int) -> tuple[float, float]:
        """The word's time in s on the best path through it: to where the next word begins."""
        after = ahead[node]
        end = lattice.first[after] if after >= 0 else lattice.n_frames
        return lattice.first[node] / _FRAMES_PER_SECOND, end / _FRAMES_PER_SECOND

    choices = []
    for i, (word, _) in enumerate(slots):
        best: dict = {}      # alternative ("" unclear, None left out) -> (score, node)
        for k in np.flatnonzero(slot == i):
            name = {_UNCLEAR_WORD: "", _LEFT_OUT_WORD: None}.get(lattice.words[k],
                                                               lattice.words[k])
            if through[k] > best.get(name, (-np.inf, -1))[0]:
                best[name] = (through[k], k)
        written = best.pop(word.lower(), None)
        competitor = max(best, key=lambda name: best[name][0]) if best else None
        if written is None:
            choices.append(_choice(i, word, competitor, -math.inf, best, span))
            continue
        start, end = span(written[1])
        frames = max(round((end - start) * _FRAMES_PER_SECOND), 1)
        gap = (written[0] - best[competitor][0]) / frames if best else math.inf
        choices.append(WordChoice(i, word, "as written", word, gap, start, end)
                       if gap >= margin else _choice(i, word, competitor, gap, best, span))
    return tuple(choices)


def _choice(index: int, word: str, competitor, gap: float, best, span) -> WordChoice:
    """The verdict when the competitor ``competitor`` (a word, "" unclear, None nothing) wins."""
    if competitor is None:
        return WordChoice(index, word, "left out", None, gap, math.nan, math.nan)
    start, end = span(best[competitor][1])
    if competitor == "":
        return WordChoice(index, word, "unclear", "", gap, start, end)
    return WordChoice(index, word, "said other", competitor.upper(), gap, start, end)
