"""The panel's sentences (an engine of :mod:`course_lib.pronunciation.panel`): what a student
reads beside the numbers, not how they are computed.

How accurate each verdict is, in one sentence read from the committed experiments (the word
accuracy, the word check as shown and its check for words not heard as written, the
"mispronounced" flag, the sentence score's response to a misreading), said whether or not
anything is flagged; the notes that come before the numbers, most serious first; one word of
the ``--json`` output; and the command line's error messages in the words of
``course.py pronounce``.
"""

from __future__ import annotations

import functools
import re

from ..stated_rates import stated_rate
from .word_scores import WordVerdict, _heard_word
from .gop import PhoneScore, Pronunciation, WordScore
from .heard_as_written import WordReading
from ..metrics import clopper_pearson_interval
from .detector_rates import _phone_check_rates, word_check_rates
from .word_choice import WordChoice

_READINGS = "pronunciation.reading_decoder"     # the register's entry (course_lib.stated_rates)


def _share(entry: dict, noun: str) -> str:
    """k of the n ``noun`` with its exact 95% interval (Clopper and Pearson 1934)."""
    low, high = clopper_pearson_interval(entry["k"], entry["n"])
    return f"{entry['k']:,} of the {entry['n']:,} {noun} ({100 * low:.0f}-{100 * high:.0f}%)"


@functools.cache
def _decoder_accuracy() -> str:
    """How often the neighbour decoder is right, on the held-out half of the misread readings
    (sentences and voices that chose nothing), with exact intervals."""
    held = stated_rate(_READINGS).value["held_out"]
    return ("On held-out espeak-ng readings (sentences and voices used in no choice) this check "
            f"flagged {_share(held['replaced_flagged'], 'replaced words')}, "
            f"{_share(held['left_out_flagged'], 'words left out')} and "
            f"{_share(held['correct_words_flagged'], 'words of correct readings')} "
            "(95% intervals)")


@functools.cache
def _word_accuracy_statement() -> str:
    """How close the predicted word accuracy comes to the experts', on speakers it never saw
    (the committed ``experiments/gong2022_context.py`` result)."""
    word = stated_rate("pronunciation.word_accuracy_and_phone_flag").value["word_accuracy"]
    low, high = word["pcc_interval_95"]
    return (f"the experts' word accuracy is predicted from the phones' evidence; on the "
            f"corpus's {word['n_test_words']:,} test words of {word['n_speakers']} speakers it "
            f"correlated {_two_places(word['pcc'])} ({_two_places(low)} to "
            f"{_two_places(high)}, 95% over speakers) with the median expert, so read it as "
            "a rough guide")


@functools.cache
def _phone_verdict() -> dict:
    """The "mispronounced" flag's threshold and how it did on the corpus's test phones, from
    speakers it never heard (the committed ``experiments/gong2022_context.py`` result):
    precision and recall with their intervals over speakers, and the base rate (the share of
    test phones most experts scored 0)."""
    return dict(stated_rate("pronunciation.word_accuracy_and_phone_flag").value["phone_flag"])


def _phone_flag_rates() -> str:
    """The "mispronounced" flag's recall and precision on the corpus's test phones, in a clause
    short enough for the lab panel's status line, which says it whether or not a phone is
    flagged."""
    verdict = _phone_verdict()
    (recall_low, recall_high), (precision_low, precision_high) = (
        verdict["recall_interval_95"], verdict["precision_interval_95"])
    return (f"the flag caught {100 * verdict['recall']:.0f}% ({100 * recall_low:.0f}-"
            f"{100 * recall_high:.0f}%) of the mispronounced phones of speakers it never heard "
            f"(recall), and {100 * verdict['precision']:.0f}% ({100 * precision_low:.0f}-"
            f"{100 * precision_high:.0f}%) of its flags there were right (precision)")


def _phone_verdict_statement() -> str:
    """How far to trust the "mispronounced" flag, in one sentence."""
    verdict = _phone_verdict()
    return (f"on the corpus's {verdict['n_test_phones']:,} test phones, {_phone_flag_rates()}; "
            f"only {100 * verdict['base_rate']:.1f}% of the test phones were mispronounced or "
            "missed, scored 0 by most experts (base rate), so a flag means: listen to that phone "
            "again, not: it was wrong")


@functools.cache
def _word_check_statement() -> str:
    """How far the word check as shown goes (:func:`~.detector_rates.named_words`), said
    whether or not it names a word: its measured hits and false flags on the held-out readings
    and on the corpus's test speakers (``experiments/shown_word_check.py``)."""
    rates = word_check_rates()
    held, corpus = rates["held_out_readings"], rates["corpus_test"]
    return ("A word not named may still be misread: listen to it. On held-out espeak-ng "
            f"readings it never heard, this check named "
            f"{_share(held['replaced'], 'replaced words')} and "
            f"{_share(held['left_out'], 'words left out')}, but also "
            f"{_share(held['correct'], 'words of correct readings')}; on the corpus's test "
            f"speakers, {_share(corpus['misread'], 'words the experts scored 3 or less')} and "
            f"{_share(corpus['accurate'], 'words every expert scored 8 or more')} "
            "(95% intervals)")


@functools.cache
def _heard_check_statement() -> str:
    """How far the check for words not heard as written goes on its own, as the panel applied
    it when ``experiments/shown_word_check.py`` ran: its hits and false flags on the held-out
    readings (``by_part``), said with its note and when it heard every word as written."""
    part = word_check_rates()["held_out_readings"]["by_part"]["not_heard_as_written"]
    return ("On held-out espeak-ng readings it never heard, the check for words not heard as "
            f"written caught {_share(part['replaced'], 'replaced words')} and "
            f"{_share(part['left_out'], 'words left out')}, but also flagged "
            f"{_share(part['correct'], 'words of correct readings')} (95% intervals)")


@functools.cache
def _phone_check_statement() -> str:
    """The "mispronounced" flag on the held-out readings, said beside its corpus rates."""
    held = _phone_check_rates()
    return ("A phone not flagged may still be wrong: on held-out espeak-ng readings the flag "
            f"marked a phone in {_share(held['replaced_words'], 'replaced words')}, and "
            f"{_share(held['correct_phones'], 'phones of correct readings')}")


@functools.cache
def _misreading_check() -> dict:
    """How often a misreading lowered the sentence score, on the held-out readings (the
    committed ``experiments/misread_readings.py`` result)."""
    return stated_rate(_READINGS).value["sentence_score_pairs"]["misread_scores_below"]


def _misreading_statement() -> str:
    """How little a misreading moves the sentence score, in one sentence."""
    return ("A misreading moves this score little: on held-out espeak-ng readings, a reading "
            "with a word replaced or left out scored below the correct reading of the same "
            f"sentence in only {_share(_misreading_check(), 'pairs')}, a 95% interval in "
            "brackets. A good score does not mean every word was read as written.")


def _check_rates() -> dict:
    """The checks' measured rates, with what each was measured on, for ``--json``."""
    return {"word_check": {"rule": "a word is named when it is one of the (at most 3) lowest "
                                   "words whose GOP is below the low-word threshold, or is not "
                                   "heard as written", **word_check_rates()},
            "phone_check": {"corpus_test": dict(_phone_verdict()),
                            "held_out_readings": _phone_check_rates()},
            "sentence_score_check": {
                "what": "held-out espeak-ng readings: pairs of a reading with a word replaced "
                        "or left out and the correct reading of the same sentence, voice and "
                        "rate",
                "misread_scores_below": _misreading_check()}}


def _phone_lines(prediction) -> list[str]:
    """The phones a :class:`~.panel.PanelPrediction` flags mispronounced, and always what the
    flag can miss."""
    verdict = _phone_verdict()
    rule = (f"predicted expert score below {verdict['threshold']:.2f} of 2, the cut chosen "
            "on the training speakers")
    flagged = prediction.mispronounced()
    if not flagged:
        lines = [f"Phones flagged mispronounced: none ({rule})."]
    else:
        lines = [f"Phones flagged mispronounced ({rule}):"] + [
            f"  {word.word.lower()}: " + ", ".join(p.phone for p in phones)
            for word, phones in flagged]
    return lines + [f"  (The flag's accuracy: {_phone_verdict_statement()}. "
                    f"{_phone_check_statement()}.)"]

def _word_lines(prediction) -> list[str]:
    """The words that pulled a :class:`~.panel.PanelPrediction`'s score down, and always what
    the word check can miss."""
    threshold = (f"{prediction.low_word:.1f}, the lowest tenth of the training sentences' "
                 "words; GOP in nats per frame, 0 is the best")
    caveat = f"  ({_word_check_statement()}.)"
    blamed = prediction.blamed_words()
    if not blamed:
        quiet = f"Words that pulled it down: none; every word's GOP is above {threshold}"
        if not all(word.heard_as_written for word in prediction.words):
            return [f"{quiet}; the words not heard as written are named in the notes above.",
                    caveat]
        # the notes say nothing then: the check's own rates stand beside its silence
        return [f"{quiet}, and every word was heard as written. No word stood out.",
                f"  ({_heard_check_statement()}.)", caveat]
    lines = [f"Words that pulled it down (GOP below {threshold}):", caveat]
    if prediction.words:
        lines.append(f"  ({_word_accuracy_statement()})")
    accuracy = {(w.start, w.word): w.accuracy for w in prediction.words}
    for word, phones in blamed:
        own = sorted(phones, key=lambda p: p.gop)[:2]
        predicted = accuracy.get((word.start, word.word))
        lines.append(f"  {word.word.lower():12s} {word.gop:5.1f}   worst phones "
                     + ", ".join(f"{p.phone} {p.gop:.1f}" for p in own)
                     + ("" if predicted is None else
                        f"   experts' word accuracy about {predicted:.0f} of 10"))
    return lines


def _two_places(value: float) -> str:
    """A correlation as the course writes it: .59, not 0.59."""
    return f"{value:.2f}".replace("0.", ".", 1)


def _words_with_phones(scored: Pronunciation) -> list[tuple[WordScore, list[PhoneScore]]]:
    """Each word of the text (in order) with its own phones."""
    indices = sorted({phone.word_index for phone in scored.phones})
    return [(word, [p for p in scored.phones if p.word_index == index])
            for index, word in zip(indices, scored.words())]


def _word_entry(word: WordVerdict, named: bool) -> dict:
    """One word of ``as_dict``'s ``words``: the one place a word's or a phone's fields are
    chosen, so a new field is one more key here."""
    return {"word": word.word, "start": word.start, "end": word.end, "gop": word.gop,
            "accuracy": word.accuracy, "heard_as_written": word.heard_as_written,
            "heard": word.heard, "named": named,
            "phones": [{"phone": p.phone, "gop": p.gop, "score": p.score, "heard": p.heard,
                        "mispronounced": p.mispronounced} for p in word.phones]}


def _heard_text(verdict: str, heard: str | None) -> str:
    """What was heard instead of a word not heard as written, for a student: a dictionary
    word, "left out?" or "unclear" (never the loop's raw phones)."""
    return {"left out": "heard nothing (left out?)", "unclear": "unclear",
            "said other": f"you said {heard}"}[verdict]


def _panel_notes(scored: Pronunciation, distance: float, evaluation,
                 readings: list[WordReading] = (),
                 choices: tuple[WordChoice, ...] | None = None,
                 decoder_accuracy: str = "") -> tuple[str, ...]:
    """The notes, most serious first: words not heard as written (the neighbour decoder's
    ``choices`` when it ran, stated with ``decoder_accuracy``, its held-out rates; else the
    phone loop's ``readings``), far from the training population (``evaluation``, the panel's
    :class:`~course_lib.pronunciation.panel.PanelEvaluation`), then what the scorer did to the
    audio (resampled, clipped) and its alignment attempts."""
    first = []
    if choices is not None:
        judged = [(c.word, c.verdict, c.heard) for c in choices]
        accuracy = decoder_accuracy
    else:
        judged = [(r.word, *_heard_word(r)) for r in readings]
        accuracy = ("A misread word can pull a neighbour down with it, so a word next to a "
                    f"flagged one may be flagged only because of it. {_heard_check_statement()}")
    misread = [entry for entry in judged if entry[1] != "as written"]
    if misread:
        said = "; ".join(f"{word.lower()}: {_heard_text(verdict, heard)}"
                         for word, verdict, heard in misread)
        first.append(
            f"{len(misread)} of {len(judged)} words were not heard as written ({said}); "
            "the scores below assume the sentence was read as written, so read them as the "
            f"panel's view of the words that were. {accuracy}")
    if scored.aligned and distance > evaluation.far_threshold:
        first.append(
            f"this recording is far from the sentences the experts scored: its GOP features and "
            f"word decoding lie at distance {distance:.1f} from theirs (whitened; only "
            f"{100 - evaluation.far_percentile:g}% of the training sentences lie beyond "
            f"{evaluation.far_threshold:.1f}), so the panel extrapolates and its intervals are "
            f"too narrow there: its 90% interval held the experts' mean for "
            f"{evaluation.far_coverage()}, a 95% interval in brackets")
    return tuple(first) + scored.notes


def _message(err: Exception) -> str:
    """An error's message without the Python argument name it starts with ("path: ...")."""
    return re.sub(r"^(path|samples|text|word|phones): ", "", str(err))


def _command_line_message(err: ValueError, wav: str) -> str:
    """A library's ValueError in the command line's words: a word the dictionary lacks is told
    how to add it with --add-word and to write numbers as words; a recording's problem names
    the file."""
    text = str(err)
    if "pronunciation dictionary" in text:
        missing = re.findall(r"'([^']*)'", text.partition(" not in ")[0])
        return (f"{', '.join(missing)} not in the pronunciation dictionary: write numbers as "
                "words (twenty one, not 21), and add any other word with --add-word "
                "WORD=PHONES, its sounds in ARPAbet without stress marks, e.g. --add-word "
                "'LIYA=L IY Y AH' (repeatable)")
    if text.startswith("samples: "):
        return f"{wav}: {_message(err)}"
    return _message(err)


