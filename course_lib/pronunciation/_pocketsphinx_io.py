"""What :mod:`course_lib.pronunciation.word_choice` takes from pocketsphinx and hands back to
it (its engine): the files the en-us model ships (the CMU dictionary, the language model's
unigrams), words and searches added to a decoder, a search run over a recording, and the word
lattice it leaves, read from pocketsphinx's own text format. The grammar, the best paths over
the lattice and the verdicts are the module's own.
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass

import numpy as np
import pocketsphinx

_SCORE_SHIFT = 10       # pocketsphinx's search scores are its log units shifted right by 10 bits


def _cmu_lines() -> list[str]:
    """The lines ("word(2) PH ONES", no stress marks) of the CMU dictionary that pocketsphinx's
    en-us model ships."""
    path = os.path.join(pocketsphinx.get_model_path(), "en-us", "cmudict-en-us.dict")
    with open(path, encoding="utf-8") as file:
        return file.read().splitlines()


_UNIGRAMS: list = []


def _word_log_frequency(word: str) -> float:
    """The log probability (nats) of ``word`` in running text by the unigrams of pocketsphinx's
    en-us language model (read once per process, about 0.2 s); -inf for a word it lacks."""
    if not _UNIGRAMS:
        logmath = pocketsphinx.LogMath(1.0001, 0)
        model = pocketsphinx.NGramModel(
            pocketsphinx.Config(lm=None, loglevel="FATAL"), logmath,
            os.path.join(pocketsphinx.get_model_path(), "en-us", "en-us.lm.bin"))
        _UNIGRAMS.extend((model, logmath, logmath.get_zero()))
    model, logmath, zero = _UNIGRAMS
    units = model.prob([word.lower()])
    return -math.inf if units <= zero else logmath.log_to_ln(units)


def _add_words(decoder, words: dict[str, str]) -> None:
    """Add ``words`` ({word: phones}) to the decoder's dictionary as fillers, those it lacks."""
    for word, phones in words.items():
        if decoder.lookup_word(word) is None:
            decoder.add_word(word, phones, True)


def _decoder_pronunciations(decoder, word: str) -> list[str]:
    """Every pronunciation the decoder holds for ``word`` ("word", "word(2)", ...)."""
    found = []
    while (phones := decoder.lookup_word(word.lower() + (f"({len(found) + 1})"
                                                          if found else ""))) is not None:
        found.append(phones)
    return found


def _add_search(decoder, name: str, graph, word_beam: float | None) -> None:
    """Add the grammar ``graph`` as the decoder's search ``name``, made with ``word_beam`` (None:
    the decoder's own). The search takes its beams from the decoder's settings when it is made;
    the alignment's searches, made afresh for every sentence, must find theirs unchanged."""
    own_word_beam = decoder.config["wbeam"]
    if word_beam is not None:
        decoder.config["wbeam"] = word_beam
    try:
        decoder.add_fsg(name, graph)
    finally:
        decoder.config["wbeam"] = own_word_beam


def _search_lattice(decoder, raw: bytes) -> _Lattice | None:
    """Run the decoder's active search over ``raw`` (16-bit PCM) and read its word lattice;
    None when the search found no path through the grammar or kept no lattice."""
    decoder.reinit_feat()
    decoder.start_utt()
    decoder.process_raw(raw, full_utt=True)
    decoder.end_utt()
    return _read_lattice(decoder) if decoder.hyp() is not None else None


@dataclass(frozen=True)
class _Lattice:
    words: list          # per node: its word (base form, lower case)
    first: np.ndarray    # per node: its first frame
    state: np.ndarray    # per node: the grammar state its word leads to (-1: added by the search)
    links: list          # (from node, to node, score in nats)
    initial: int
    final: int
    n_frames: int


def _read_lattice(decoder) -> _Lattice | None:
    """The search's word lattice, through pocketsphinx's own text format (the binding has no
    other way out); None when the search kept no lattice."""
    try:
        lattice = decoder.get_lattice()
    except RuntimeError:
        return None
    if lattice is None:
        return None
    handle, path = tempfile.mkstemp(suffix=".lat")
    os.close(handle)
    try:
        lattice.write(path)
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
    finally:
        os.remove(path)
    nats_per_unit = math.nan
    words, first, state, links = [], [], [], []
    initial = final = n_frames = -1
    section = None
    for line in lines:
        if line.startswith("# -logbase"):
            nats_per_unit = math.log(float(line.split()[2]))
        if line.startswith("#") or not line.strip():
            continue
        head = line.split()[0]
        if head in ("Nodes", "Edges", "BestSegAscr"):
            section = head
        elif head == "Frames":
            n_frames = int(line.split()[1])
        elif head == "Initial":
            initial = int(line.split()[1])
        elif head == "Final":
            final = int(line.split()[1])
        elif head == "End":
            break
        elif section == "Nodes":
            fields, _, node_state = line.partition(";")
            _, word, start, _, _ = fields.split()
            words.append(word.split("(", 1)[0])
            first.append(int(start))
            state.append(int(node_state))
        elif section == "Edges":
            source, target, score = line.split()
            links.append((int(source), int(target), int(score) * nats_per_unit))
    if initial < 0 or final < 0 or not links:
        return None
    # pocketsphinx's grammar lattice counts a silence's or noise's grammar weight twice: in the
    # link out of it, as the search did, and again on the links into it (added when the
    # lattice is made, as for an n-gram search, whose links carry no grammar weight): take the
    # second off, as it computes it, so that a path through a pause is not penalised twice
    logmath, lw = decoder.get_logmath(), float(decoder.config["lw"])
    twice = {name: (int(logmath.log(float(decoder.config[setting])) * lw) >> _SCORE_SHIFT)
             * (1 << _SCORE_SHIFT) * nats_per_unit
             for name, setting in (("<sil>", "silprob"), ("", "fillprob"))}
    links = [(source, target, score - twice["<sil>" if words[target] == "<sil>" else ""])
             if target not in (initial, final) and _is_filler(words[target])
             else (source, target, score) for source, target, score in links]
    return _Lattice(words, np.array(first), np.array(state), links, initial, final, n_frames)


def _is_filler(word: str) -> bool:
    """Silence, noise and the sentence's ends: the dictionary's filler words."""
    return word.startswith(("<", "["))
