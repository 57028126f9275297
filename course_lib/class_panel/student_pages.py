"""One short page per student: their own place in the class panel (issue 47).

In class only pseudonyms appear, and only the class as a whole. Each student gets a page of
their own (:func:`student_page`, Markdown) in plain words: their bias (lenient or strict), their
noise (how far their scores stray beyond that bias), their agreement with the five experts, and
how their equaliser choices differ from the class's. Each number of the scores comes with its
interval, named for what it is (:meth:`ClassRatings.interval_name
<course_lib.class_panel.ratings.ClassRatings.interval_name>`: a Bayesian credible interval, or
an approximate confidence interval); the equaliser choices come with the preference model's
posterior probability that a setting is preferred. A student whose scores sit at an end of the
scale, or whose comparison sheet answered one side throughout, is told so.

:func:`write_student_pages` writes one file per pseudonym, ``<pseudonym>.md``, into a folder of
the lecturer's choice. It writes only into a folder that is empty or holds nothing but pages it
wrote before (each page starts with :data:`_MARK`), so it never overwrites or mixes with a file
it did not write; anything else makes it refuse before writing, naming what it found.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from course_lib.class_panel.preferences import ClassPreferences
from course_lib.class_panel.ratings import ClassRatings, _interval_z
from course_lib.stimuli import standard_equaliser

__all__ = ["student_page", "write_student_pages"]

#: The first line of every page: how an earlier page is told from any other file.
_MARK = "<!-- class-panel page: written by write_student_pages; safe to delete -->"
# a pseudonym as a file name: amber-otter-07, a namesake's amber-otter-07~3f2a, sheet-9c41e0
_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_~.-]{0,63}")
_SURE = 0.8               # "you prefer" / "the class prefers" from this posterior probability


def student_page(pseudonym: str, ratings: ClassRatings | None = None,
                 preferences: ClassPreferences | None = None) -> str:
    """A short Markdown page for ``pseudonym`` alone (module docstring), from the class's
    ``ratings`` (:func:`~course_lib.class_panel.ratings.class_ratings_model`) and
    ``preferences`` (:func:`~course_lib.class_panel.preferences.class_preferences_model`);
    either may be None."""
    _check_class_results(ratings, preferences)
    if not isinstance(pseudonym, str):
        raise TypeError(f"pseudonym: expected text, got {type(pseudonym).__name__}")
    in_ratings = ratings is not None and ratings.row(pseudonym) is not None
    in_preferences = preferences is not None and preferences.row(pseudonym) is not None
    if not (in_ratings or in_preferences):
        raise ValueError(f"pseudonym: {pseudonym!r} handed in no sheet these results hold")
    lines = [_MARK, f"# Your place in the class panel: {pseudonym}", "",
             "Only you get this page; in class everyone saw the class as a whole.", ""]
    if ratings is not None:
        lines += _ratings_section(ratings, ratings.row(pseudonym))
    if preferences is not None:
        lines += _preferences_section(preferences, preferences.row(pseudonym))
    return "\n".join(lines) + "\n"


def write_student_pages(folder, ratings: ClassRatings | None = None,
                        preferences: ClassPreferences | None = None, *,
                        pseudonyms=None) -> list[Path]:
    """Write :func:`student_page` for every pseudonym (default: everyone in either result) to
    ``folder/<pseudonym>.md`` and return the paths. ``folder`` is created if missing; one that
    holds anything but earlier pages is refused (nothing written), and so is a pseudonym that
    is not a plain file name or that differs from another only in upper / lower case."""
    _check_class_results(ratings, preferences)
    folder = Path(folder)
    names = _page_names(ratings, preferences, pseudonyms)
    _check_folder(folder)
    pages = {name: student_page(name, ratings, preferences) for name in names}
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages.items():
        path = folder / f"{name}.md"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _check_class_results(ratings, preferences) -> None:
    """Refuse what is not the class's results: ``ratings`` a :class:`ClassRatings` or None,
    ``preferences`` a :class:`~course_lib.class_panel.preferences.ClassPreferences` or None, and
    not both None (the pages here and :func:`course_lib.class_panel.figures.class_figures`)."""
    if ratings is not None and not isinstance(ratings, ClassRatings):
        raise TypeError(f"ratings: expected a ClassRatings or None, got "
                        f"{type(ratings).__name__}")
    if preferences is not None and not isinstance(preferences, ClassPreferences):
        raise TypeError(f"preferences: expected a ClassPreferences or None, got "
                        f"{type(preferences).__name__}")
    if ratings is None and preferences is None:
        raise ValueError("ratings: give the class's ratings, its preferences or both")


def _page_names(ratings, preferences, pseudonyms) -> list[str]:
    known = set(ratings.pseudonyms if ratings is not None else ()) | set(
        preferences.pseudonyms if preferences is not None else ())
    if pseudonyms is None:
        names = sorted(known)
    elif isinstance(pseudonyms, str):
        raise TypeError("pseudonyms: expected a list of pseudonyms, got one text")
    else:
        names = list(pseudonyms)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"pseudonyms: {unknown[:3]} handed in no sheet these results hold")
    unsafe = [name for name in names if not _SAFE_NAME.fullmatch(name)]
    if unsafe:
        raise ValueError(f"pseudonyms: {unsafe[:3]} cannot name a file (letters, digits, "
                         "_ ~ . and -, at most 64, not starting with . ~ or -); no page was "
                         "written (leave them out with pseudonyms=...)")
    folded = {}
    for name in names:
        if folded.setdefault(name.lower(), name) != name:
            raise ValueError(f"pseudonyms: {folded[name.lower()]!r} and {name!r} differ only "
                             "in case and would share a file on some systems; no page was "
                             "written")
    return names


def _check_folder(folder: Path) -> None:
    """Refuse a folder that is a file, or that holds anything but earlier pages."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"folder: {folder} is a file, not a folder")
    if not folder.exists():
        return
    foreign = [entry.name for entry in sorted(folder.iterdir()) if not _is_page(entry)]
    if foreign:
        more = f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        raise ValueError(f"folder: {folder} holds {', '.join(foreign[:3])}{more}, which "
                         "write_student_pages did not write; nothing was written (choose an "
                         "empty folder or a new one)")


def _is_page(entry: Path) -> bool:
    if entry.is_symlink() or not entry.is_file() or entry.suffix != ".md" or \
            not _SAFE_NAME.fullmatch(entry.stem):
        return False
    try:
        with entry.open(encoding="utf-8") as handle:
            return handle.readline().rstrip("\n") == _MARK
    except (OSError, UnicodeDecodeError):
        return False


# ----- the two sections ---------------------------------------------------------------------
def _distance_interval(ratings: ClassRatings) -> str:
    """The name of the mean absolute difference's interval (its estimate +- z standard
    errors over the student's clips: an approximate confidence interval)."""
    return f"{100 * ratings.level:.0f} % approximate confidence interval"


def _percent(p: float) -> str:
    """A probability as a person reads it, never a certainty the model does not have."""
    return "more than 99 %" if p > 0.99 else f"{100 * p:.0f} %"


def _signed(value: float) -> str:
    return f"{value:+.1f}"


def _ratings_section(ratings: ClassRatings, r: int | None) -> list[str]:
    """The fluency scores: bias, noise and agreement in plain words (module docstring)."""
    lines = ["## Your fluency scores", ""]
    if r is None:
        return lines + ["You handed in no rating sheet, so there is nothing to show here.", ""]
    n, status = int(ratings.n_scores[r]), ratings.status[r]
    lines.append(f"You scored {n} of the {ratings.items.size} clips.")
    if status == "too few scores":
        return lines + ["That is too few to say how you score (at least 3 are needed), so "
                        "your scores were left out of the class model.", ""]
    if status == "no information":
        return lines + ["You gave every clip the same score, so your scores cannot tell a more "
                        "fluent clip from a less fluent one: the model learnt nothing about "
                        "your noise or your agreement with the experts from them.", "",
                        *_bias_lines(ratings, r), ""]
    return lines + ["", *_bias_lines(ratings, r), *_noise_lines(ratings, r),
                    *_agreement_lines(ratings, r), *_scale_end_lines(ratings, r), ""]


def _bias_lines(ratings: ClassRatings, r: int) -> list[str]:
    bias = ratings.bias[r]
    if ratings.bias_interval is not None:
        low, high = ratings.bias_interval[r]
    else:                   # a ClassRatings built by hand: the normal approximation
        half = _interval_z(ratings.level) * ratings.bias_se[r]
        low, high = bias - half, bias + half
    if np.isnan(low):       # one score throughout at an end of the scale (ratings docstring)
        return [f"- **Your level (bias): no interval can be given.** Every score you gave sat "
                f"at an end of the scale, and a 0 says only \"at most 0.5\", a 10 only \"at "
                f"least 9.5\": your scores set no limit to how far from the experts' mean you "
                f"are in that direction. Read as exact scores, they sat {_signed(bias)} points "
                f"from the experts' mean on average."]
    if low <= 0 <= high:
        lean = "no clear lean: you score about where the experts' mean is"
    else:
        lean = ("lenient: you score higher than the experts' mean" if bias > 0 else
                "strict: you score lower than the experts' mean")
    experts = ratings.expert_bias
    return [f"- **Your level (bias): {_signed(bias)} points** ("
            f"{ratings.interval_name('bias')}: {_signed(low)} to {_signed(high)}), {lean}. "
            f"The {experts.size} experts range from {_signed(experts.min())} to "
            f"{_signed(experts.max())}."]


def _noise_lines(ratings: ClassRatings, r: int) -> list[str]:
    variance = ratings.noise_variance[r]
    low, high = ratings.noise_interval[r]
    class_median = float(np.median(ratings.noise_variance[ratings.informative]))
    experts = ratings.expert_noise_variance
    return [f"- **Your noise: {variance:.2f} points squared** ({ratings.interval_name('noise')}: "
            f"{low:.2f} to {high:.2f}): beyond your level, your scores typically stray about "
            f"{np.sqrt(variance):.1f} points from the experts' mean plus your bias. Smaller is "
            f"steadier. Half the "
            f"class is below {class_median:.2f}; the {experts.size} experts range from "
            f"{experts.min():.2f} to {experts.max():.2f}."]


def _agreement_lines(ratings: ClassRatings, r: int) -> list[str]:
    mad, half = ratings.mean_abs_difference[r], \
        _interval_z(ratings.level) * ratings.mean_abs_difference_se[r]
    distance = (f" On average your score was {mad:.1f} points from the experts' mean "
                f"({_distance_interval(ratings)}: {max(mad - half, 0):.1f} to "
                f"{mad + half:.1f}).")
    rho = ratings.correlation[r]
    if np.isnan(rho):
        return [f"- **Agreement with the experts**: the experts' mean is the same on "
                f"every clip you scored, so no correlation can be given.{distance}"]
    low, high = ratings.correlation_interval[r]
    span = "" if np.isnan(low) else \
        f" ({ratings.interval_name('correlation')}: {low:.2f} to {high:.2f})"
    return [f"- **Agreement with the experts**: correlation {rho:.2f}{span} between your "
            f"scores and the experts' mean (1: you put the clips in the experts' order; 0: "
            f"no relation).{distance}"]


def _scale_end_lines(ratings: ClassRatings, r: int) -> list[str]:
    """The flag of scores at the ends of the scale (:attr:`ClassRatings.at_scale_end`)."""
    if ratings.at_scale_end is None or not ratings.at_scale_end[r]:
        return []
    n, at_ends = int(ratings.n_scores[r]), int(ratings.scores_at_ends[r])
    return [f"- **Scores at the end of the scale**: {at_ends} of your {n} scores were 0 or 10. "
            f"A 10 says only that you heard the clip as at least that fluent, so the model "
            f"reads it as \"at least 9.5\" (a 0 as \"at most 0.5\"), not as an exact score: "
            f"your level and noise rest mostly on your other scores, and their intervals are "
            f"wider for it."]


def _setting_text(settings: np.ndarray, index: int) -> str:
    names = standard_equaliser(settings.shape[1]).names
    gains = ", ".join(f"{name} {gain:+g} dB" for name, gain in zip(names, settings[index]))
    return f"setting {index + 1} ({gains})"


def _preferences_section(preferences: ClassPreferences, s: int | None) -> list[str]:
    """The equaliser choices: favourites and the pairs where the student and the class differ
    (module docstring)."""
    lines = ["## Your equaliser choices", ""]
    if s is None:
        return lines + ["You handed in no comparison sheet, so there is nothing to show here.",
                        ""]
    settings = preferences.settings
    lines.append(f"You answered {int(preferences.n_answers[s])} of the "
                 f"{preferences.pairs.shape[0]} pairs.")
    if preferences.status is not None and preferences.status[s] == "no information":
        return lines + ["You gave the same answer (always the first, or always the second "
                        "version as played) to every pair. Which setting of a pair played "
                        "first was drawn at random, so these answers say nothing about which "
                        "setting you prefer: the model left them out, and the class's model "
                        "stands in for you.", ""]
    if not preferences.fitted[s]:
        return lines + ["Your answers could not be fitted on their own, so the class's model "
                        "stands in for you.", ""]
    yours = int(np.argmax(preferences.individual_utility[s]))
    class_best = int(np.argmax(preferences.pooled_utility))
    same = "the same as the class's" if yours == class_best else \
        f"the class's is {_setting_text(settings, class_best)}"
    n = int(preferences.n_answers[s])
    guess = f" (a guess from {n} answer{'s' * (n != 1)})" if n < 5 else ""
    lines += ["", f"- Your favourite{guess}: {_setting_text(settings, yours)}; {same}."]
    lines += _differences(preferences, s)
    lines += _few_answers(preferences, s)
    return lines + [""]


def _differences(preferences: ClassPreferences, s: int) -> list[str]:
    mine, theirs = preferences.individual_probability[s], preferences.pooled_probability
    differ = np.flatnonzero(((mine >= _SURE) & (theirs <= 1 - _SURE))
                            | ((mine <= 1 - _SURE) & (theirs >= _SURE)))
    if differ.size == 0:
        return ["- On no pair do you and the class lean clearly opposite ways."]
    lines = [f"- On {differ.size} pair{'s' * (differ.size != 1)} you lean clearly the other "
             "way from the class:"]
    for j in differ:
        a, b = preferences.pairs[j]
        first_you = mine[j] >= 0.5
        you, them = (a, b) if first_you else (b, a)
        sure_you = mine[j] if first_you else 1 - mine[j]
        sure_class = 1 - theirs[j] if first_you else theirs[j]
        split = " (on this pair the class's tastes split)" if preferences.verdict[j] == \
            "split" else ""
        lines.append(f"  - you prefer {_setting_text(preferences.settings, you)} "
                     f"({_percent(sure_you)} sure), the class as a whole leans to "
                     f"{_setting_text(preferences.settings, them)} ({_percent(sure_class)} "
                     f"sure){split}.")
    return lines


def _few_answers(preferences: ClassPreferences, s: int) -> list[str]:
    """For a student with few answers: what the held-out scores say about trusting the class's
    model instead of their own."""
    n = int(preferences.n_answers[s])
    counts = preferences.held_out_counts
    at = np.flatnonzero(counts >= n)
    if n > 4 or at.size == 0:
        return []
    g = int(at[0])
    class_score, own = preferences.held_out_score[0, g], preferences.held_out_score[1, g]
    if np.isnan(class_score) or np.isnan(own):
        return []
    better = "better" if class_score > own else "no better"
    return [f"- With only {n} answers your own model knows little: for students with "
            f"{int(counts[g])} answers, the class's model predicted their other answers "
            f"{better} than their own answers did."]
