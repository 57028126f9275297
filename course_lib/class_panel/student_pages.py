"""One short page per student: their own place in the class panel (issue 47).

In class only pseudonyms appear, and only the class as a whole. Each student gets a page of
their own (:func:`student_page`, Markdown) in plain words: their bias (lenient or strict), their
noise (how far their scores stray beyond that bias), their agreement with the five experts, and
how their equaliser choices differ from the class's. Each number of the scores comes with its
interval, named for what it is (:meth:`ClassRatings.interval_name
<course_lib.class_panel.score_model.ClassRatings.interval_name>`: a Bayesian credible interval, or
an approximate confidence interval) and how often such intervals held the truth on simulated
students; the equaliser choices (:mod:`.preference_page`) come with the preference model's
posterior probability that a setting is preferred and how often each verdict was right on
simulated classes (:mod:`.verdict_trust`). A student whose scores sit at an end of the
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

from course_lib.class_panel.preference_page import _preferences_section
from course_lib.class_panel.preference_model import ClassPreferences
from course_lib.class_panel.score_model import MIN_CLASS_FOR_PRIOR, ClassRatings, _interval_z
from course_lib.class_panel.verdict_trust import _agreement_trust, _alone_trust

__all__ = ["beside_experts", "distance_interval", "student_page", "write_student_pages"]

#: The first line of every page: how an earlier page is told from any other file.
_MARK = "<!-- class-panel page: written by write_student_pages; safe to delete -->"
# a pseudonym as a file name: amber-otter-07, a namesake's amber-otter-07~3f2a, sheet-9c41e0
_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_~.-]{0,63}")


def student_page(pseudonym: str, ratings: ClassRatings | None = None,
                 preferences: ClassPreferences | None = None) -> str:
    """A short Markdown page for ``pseudonym`` alone (module docstring), from the class's
    ``ratings`` (:func:`~course_lib.class_panel.score_model.class_ratings_model`) and
    ``preferences`` (:func:`~course_lib.class_panel.preference_model.class_preferences_model`);
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


def beside_experts(ratings: ClassRatings, pseudonym: str = "you") -> str:
    """Three lines on ``pseudonym``'s noise and bias against each expert's, and how often such
    intervals held the truth for listeners fitted alone with as many scores (the committed
    class_panel_calibration result, :func:`~.verdict_trust._alone_trust`): an expert inside
    the interval is one the scores cannot tell the student apart from, said every time.
    ``ratings`` of a listener alone
    (:func:`~course_lib.class_panel.score_model.listener_ratings_model`) or of a class too small
    for a class prior of the noise (fewer than :data:`~.ratings.MIN_CLASS_FOR_PRIOR`
    informative students), which reads each student as alone; a larger class's intervals are
    not the ones measured, and are refused."""
    r = ratings.row(pseudonym)
    if r is None:
        raise ValueError(f"pseudonym: {pseudonym!r} handed in no rating sheet")
    if ratings.informative.sum() >= MIN_CLASS_FOR_PRIOR:
        raise ValueError(f"ratings: a class of {int(ratings.informative.sum())} informative "
                         f"students has a class prior of the noise; beside_experts states the "
                         f"trust measured for a listener alone (use listener_ratings_model)")
    trust = _alone_trust(int(ratings.n_scores[r]), ratings.interval_name("noise"))
    if ratings.status[r] == "too few scores":
        return (f"Too few scores to judge ({int(ratings.n_scores[r])}; at least 3 are "
                f"needed).\n{trust}")
    if ratings.status[r] == "ok":
        low, high = ratings.noise_interval[r]
        noise = (f"Noise {ratings.noise_variance[r]:.2f} points² "
                 f"({ratings.interval_name('noise')}: {low:.2f} to {high:.2f}): "
                 + _against_experts(ratings.expert_noise_variance, low, high, "noise",
                                    ("noisier", "steadier"), "{:.2f}"))
    else:
        noise = ("Noise: none can be estimated, for you gave every clip the same score; "
                 "your scores cannot tell you apart from the experts on noise.")
    bias, (low, high) = ratings.bias[r], ratings.bias_interval[r]
    if np.isnan(low):
        lean = (f"Bias {_signed(bias)} points from the experts' mean, read as exact scores; "
                f"no interval can be given, for every score sat at an end of the scale, which "
                f"sets no limit to it in that direction, so no comparison with the experts is "
                f"made.")
    else:
        lean = (f"Bias {_signed(bias)} points from the experts' mean "
                f"({ratings.interval_name('bias')}: {_signed(low)} to {_signed(high)}): "
                + _against_experts(ratings.expert_bias, low, high, "bias",
                                   ("more lenient", "stricter"), "{:+.1f}"))
    return f"{noise}\n{lean}\n{trust}"


def _against_experts(experts: np.ndarray, low: float, high: float, quantity: str,
                     words: tuple[str, str], number: str) -> str:
    """Where the interval [low, high] lies against each expert's value, in words: ``words``
    say a student above and below an expert."""
    sides = {"below": [], "inside": [], "above": []}
    for k, value in enumerate(experts):
        sides["below" if value < low else "above" if value > high else "inside"].append(k)

    def who(chosen: list[int]) -> str:
        if len(chosen) == experts.size:
            return "the experts"
        names = [str(k + 1) for k in chosen]
        return (f"expert {names[0]}" if len(names) == 1
                else f"experts {', '.join(names[:-1])} and {names[-1]}")

    parts = [f"{word} than {who(sides[side])}"
             for side, word in zip(("below", "above"), words) if sides[side]]
    if sides["inside"]:
        parts.append(f"your scores cannot tell you apart from {who(sides['inside'])} on "
                     f"{quantity}")
    values = ", ".join(number.format(v) for v in experts)
    return f"{'; '.join(parts)} (the experts: {values})."


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
    ``preferences`` a :class:`~course_lib.class_panel.preference_model.ClassPreferences` or
    None, and not both None (the pages here and
    :func:`course_lib.class_panel.figures.class_figures`)."""
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


# ----- the scores' section ------------------------------------------------------------------
def _distance_interval(ratings: ClassRatings) -> str:
    """The name of the mean absolute difference's interval (its estimate +- z standard
    errors over the student's clips: an approximate confidence interval)."""
    return f"{100 * ratings.level:.0f} % approximate confidence interval"


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


def distance_interval(ratings: ClassRatings, r: int) -> tuple[float, float]:
    """Student ``r``'s interval of their mean absolute distance from the experts' mean: the
    estimate +- z standard errors, floored at 0 (NaN with fewer than two scores)."""
    mad = ratings.mean_abs_difference[r]
    half = _interval_z(ratings.level) * ratings.mean_abs_difference_se[r]
    return max(mad - half, 0.0), mad + half


def _agreement_lines(ratings: ClassRatings, r: int) -> list[str]:
    mad, (low, high) = ratings.mean_abs_difference[r], distance_interval(ratings, r)
    distance = (f" On average your score was {mad:.1f} points from the experts' mean "
                f"({_distance_interval(ratings)}: {low:.1f} to {high:.1f}).")
    rho = ratings.correlation[r]
    if np.isnan(rho):
        return [f"- **Agreement with the experts**: the experts' mean is the same on "
                f"every clip you scored, so no correlation can be given.{distance} "
                f"{_agreement_trust()}"]
    low, high = ratings.correlation_interval[r]
    span = "" if np.isnan(low) else \
        f" ({ratings.interval_name('correlation')}: {low:.2f} to {high:.2f})"
    return [f"- **Agreement with the experts**: correlation {rho:.2f}{span} between your "
            f"scores and the experts' mean (1: you put the clips in the experts' order; 0: "
            f"no relation).{distance} {_agreement_trust()}"]


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
