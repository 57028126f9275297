"""Bad-input catalogue: discrete HMMs, vector quantisation, and the Unit 3 explorers and figures."""

import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

import course_lib  # noqa: E402
from bad_input import BadInput, check_case, parametrize  # noqa: E402
from course_lib.hmm import inference as H
from course_lib.hmm import vq  # noqa: E402
from course_lib.hmm.model import (DiscreteHMM, left_to_right_hmm, random_hmm,  # noqa: E402
                                  sample, sample_sequences, weather_mood_hmm,
                                  weather_mood_sequences)
from course_lib.plotting import hmm as P  # noqa: E402
from course_lib.plotting import hmm_trellis as PT  # noqa: E402
from course_lib.widgets import hmm as WH  # noqa: E402

WEATHER = weather_mood_hmm()
FAIR_FOREVER = weather_mood_hmm("fair-forever")
GOOD = dict(pi=[0.5, 0.5], A=[[0.9, 0.1], [0.2, 0.8]], B=[[0.5, 0.5], [0.1, 0.9]])
FRAMES = [np.arange(10.0).reshape(5, 2), np.ones((3, 2)) * [2.0, 7.0]]
CODEBOOK = np.array([[0.0, 0.0], [5.0, 5.0]])


def model(**changes):
    return lambda: DiscreteHMM(**{**GOOD, **changes})


def trellis_render(**changes):
    """Render the default trellis explorer with some text boxes retyped."""
    explorer = WH.trellis_explorer()
    return lambda: explorer.render(**{**explorer.values(), **changes})


CASES = [
    # ------------------------------------------------------------------ the model
    BadInput("hmm: A rows do not sum to one", model(A=[[0.9, 0.2], [0.2, 0.8]]), ValueError, "A"),
    BadInput("hmm: pi does not sum to one", model(pi=[0.5, 0.6]), ValueError, "pi"),
    BadInput("hmm: B rows do not sum to one", model(B=[[0.5, 0.5], [0.1, 0.8]]), ValueError, "B"),
    BadInput("hmm: negative transition probability", model(A=[[1.1, -0.1], [0.2, 0.8]]),
             ValueError, "A"),
    BadInput("hmm: NaN in B", model(B=[[np.nan, 0.5], [0.1, 0.9]]), ValueError, "B"),
    BadInput("hmm: A of another size than pi", model(A=np.eye(3)), ValueError, "A"),
    BadInput("hmm: B without a row per state", model(B=[[0.5, 0.5]]), ValueError, "B"),
    BadInput("hmm: complex pi", model(pi=[0.5 + 1j, 0.5]), TypeError, "pi"),
    BadInput("hmm: B as a string", model(B="0.5 0.5; 0.1 0.9"), TypeError, "B"),
    BadInput("hmm: state names of the wrong number", model(state_names=("a",)), ValueError,
             "state_names"),
    BadInput("hmm: symbol names not distinct", model(symbol_names=("x", "x")), ValueError,
             "symbol_names"),
    BadInput("hmm: unknown weather-mood variant", lambda: weather_mood_hmm("sunny"), ValueError,
             "variant"),
    BadInput("hmm: zero states", lambda: random_hmm(0, 2), ValueError, "n_states"),
    BadInput("hmm: zero symbols", lambda: left_to_right_hmm(3, 0), ValueError, "n_symbols"),
    BadInput("hmm: self-loop and skip leave no way on",
             lambda: left_to_right_hmm(3, 2, self_loop=0.7, skip=0.3), ValueError, "self_loop"),
    BadInput("hmm: zero Dirichlet concentration",
             lambda: random_hmm(2, 2, rng=0, concentration=0), ValueError, "concentration"),
    BadInput("hmm: skip as a string", lambda: random_hmm(3, 2, rng=0, skip="yes"), TypeError,
             "skip"),
    BadInput("hmm: unknown topology", lambda: random_hmm(2, 2, rng=0, topology="circular"),
             ValueError, "topology"),
    # ------------------------------------------------------------------ observations
    BadInput("hmm: symbol out of range", lambda: H.forward_log(WEATHER, [0, 2, 1]), ValueError,
             "observations"),
    BadInput("hmm: negative symbol", lambda: H.forward_scaled(WEATHER, [0, -1]), ValueError,
             "observations"),
    BadInput("hmm: uint64 symbol out of range",
             lambda: H.viterbi(WEATHER, np.array([0, 2**64 - 1], dtype=np.uint64)), ValueError,
             "observations"),
    BadInput("hmm: huge Python int symbol", lambda: H.forward_log(WEATHER, [0, 10**30]), ValueError,
             "observations"),
    BadInput("hmm: empty observations", lambda: H.forward_log(WEATHER, []), ValueError,
             "observations"),
    BadInput("hmm: NaN observation", lambda: H.posteriors(WEATHER, [0.0, np.nan]), ValueError,
             "observations"),
    BadInput("hmm: fractional symbol", lambda: H.forward_log(WEATHER, [0.5, 1.0]), ValueError,
             "observations"),
    BadInput("hmm: boolean observations", lambda: H.viterbi(WEATHER, [True, False]), TypeError,
             "observations"),
    BadInput("hmm: unknown symbol name", lambda: H.forward_log(WEATHER, "HXU"), ValueError,
             "observations"),
    BadInput("hmm: a string for a model without symbol names",
             lambda: H.forward_scaled(random_hmm(2, 2, rng=0), "HU"), TypeError, "observations"),
    BadInput("hmm: 2-D observations", lambda: H.forward_log(WEATHER, [[0, 1]]), ValueError,
             "observations"),
    BadInput("hmm: the model is not a DiscreteHMM", lambda: H.forward_log("weather", "HU"),
             TypeError, "hmm"),
    BadInput("hmm: impossible sequence for Viterbi", lambda: H.viterbi(FAIR_FOREVER, "HU"),
             ValueError, "observations"),
    BadInput("hmm: impossible sequence for the posteriors",
             lambda: H.posteriors(FAIR_FOREVER, "HHU", method="scaled"), ValueError,
             "observations"),
    BadInput("hmm: scale factors of the wrong length",
             lambda: H.backward_scaled(WEATHER, "HHU", scale=[0.5, 0.5]), ValueError, "scale"),
    BadInput("hmm: explanation asked of a non-model",
             lambda: H.explain_zero_probability(None, "HU"), TypeError, "hmm"),
    # ------------------------------------------------------------------ many sequences
    BadInput("hmm: one sequence where a list is expected",
             lambda: H.log_likelihoods(WEATHER, [0, 1, 0]), TypeError, "sequences"),
    BadInput("hmm: empty list of sequences", lambda: H.log_likelihoods(WEATHER, []), ValueError,
             "sequences"),
    BadInput("hmm: an empty sequence in the list",
             lambda: H.log_likelihoods(WEATHER, [[0, 1], []]), ValueError, "sequences[1]"),
    BadInput("hmm: a sequence out of range in a batch",
             lambda: H._viterbi_paths(WEATHER, [np.array([0, 1]), np.array([1, 5])]), ValueError,
             "sequences[1]"),
    BadInput("hmm: unknown scoring method",
             lambda: H.log_likelihoods(WEATHER, ["HU"], method="fast"), ValueError, "method"),
    # ------------------------------------------------------------------ sampling
    BadInput("hmm: rng as a string", lambda: sample(WEATHER, 5, rng="seed"), TypeError, "rng"),
    BadInput("hmm: zero steps to sample", lambda: sample(WEATHER, 0), ValueError, "n_steps"),
    BadInput("hmm: a zero length to sample", lambda: sample_sequences(WEATHER, [3, 0]),
             ValueError, "lengths"),
    BadInput("hmm: fractional lengths to sample", lambda: sample_sequences(WEATHER, [2.5]),
             ValueError, "lengths"),
    BadInput("hmm: weather-mood data of zero days",
             lambda: weather_mood_sequences(3, 0), ValueError, "length"),
    # issue 39: enormous lengths ended in a bare MemoryError, or named another argument
    BadInput("hmm: a sequence of 10^12 steps to sample",
             lambda: sample(WEATHER, 10 ** 12, rng=0), ValueError, "n_steps", first=True),
    BadInput("hmm: a sequence of 2^70 steps to sample",
             lambda: sample(WEATHER, 2 ** 70, rng=0), ValueError, "n_steps", first=True),
    BadInput("hmm: sequences of 10^12 steps in all to sample",
             lambda: sample_sequences(WEATHER, [10, 10 ** 12], rng=0), ValueError, "lengths",
             first=True),
    BadInput("hmm: weather-mood data of 10^13 days in all",
             lambda: weather_mood_sequences(10 ** 6, 10 ** 7), ValueError, "length", first=True),
    # ------------------------------------------------------------------ vector quantisation
    BadInput("vq: no utterances", lambda: vq.train_codebook([], 2), ValueError, "frames_list"),
    BadInput("vq: utterances with different dimensions",
             lambda: vq.train_codebook([np.zeros((4, 2)), np.zeros((4, 3))], 2), ValueError,
             "frames_list"),
    BadInput("vq: NaN in a frame",
             lambda: vq.train_codebook([np.zeros((4, 2)), np.full((2, 2), np.nan)], 2), ValueError,
             "frames_list[1]"),
    BadInput("vq: a 1-D utterance", lambda: vq.train_codebook([np.zeros(4)], 2), ValueError,
             "frames_list[0]"),
    BadInput("vq: frames as a string", lambda: vq.train_codebook("frames", 2), TypeError,
             "frames_list"),
    BadInput("vq: zero codebook size", lambda: vq.train_codebook(FRAMES, 0), ValueError,
             "codebook_size"),
    BadInput("vq: more centroids than frames", lambda: vq.train_codebook(FRAMES, 50), ValueError,
             "codebook_size"),
    BadInput("vq: more centroids than distinct frames", lambda: vq.train_codebook(FRAMES, 7),
             ValueError, "codebook_size"),
    BadInput("vq: rng as a float", lambda: vq.train_codebook(FRAMES, 2, rng=1.5), TypeError,
             "rng"),
    BadInput("vq: zero restarts", lambda: vq.train_codebook(FRAMES, 2, n_restarts=0), ValueError,
             "n_restarts"),
    BadInput("vq: zero iterations", lambda: vq.train_codebook(FRAMES, 2, max_iter=0), ValueError,
             "max_iter"),
    BadInput("vq: features with other columns than the codebook",
             lambda: vq.quantise(np.zeros((3, 4)), CODEBOOK), ValueError, "features"),
    BadInput("vq: NaN in features", lambda: vq.quantise([[0.0, np.nan]], CODEBOOK), ValueError,
             "features"),
    BadInput("vq: complex features", lambda: vq.quantise([[1j, 0.0]], CODEBOOK), TypeError,
             "features"),
    BadInput("vq: a 1-D codebook", lambda: vq.quantise(np.zeros((3, 2)), np.zeros(2)), ValueError,
             "codebook"),
    BadInput("vq: NaN in the codebook", lambda: vq.quantise(np.zeros((3, 2)), [[np.nan, 0.0]]),
             ValueError, "codebook"),
    BadInput("vq: NaN in a Codebook's centroids",
             lambda: vq.quantise(np.zeros((3, 2)), vq.Codebook(np.array([[np.nan, 0.0]]), 0.0, 0,
                                                               True)),
             ValueError, "centroids"),
    # a Codebook's centroids are checked before the features are compared with them
    BadInput("vq: NaN in a Codebook's centroids and features with other columns",
             lambda: vq.quantise(np.zeros((3, 4)), vq.Codebook(np.array([[np.nan, 0.0]]), 0.0, 0,
                                                               True)),
             ValueError, "centroids"),
    BadInput("vq: utterances with other columns than the codebook",
             lambda: vq.quantise_all([np.zeros((3, 4))], CODEBOOK), ValueError, "features_list"),
    BadInput("vq: distortion of no utterances", lambda: vq.quantisation_error([], CODEBOOK),
             ValueError, "features_list"),
    # ------------------------------------------------------------------ explorers and figures
    BadInput("widgets: trellis explorer of a non-model", lambda: WH.trellis_explorer("weather"),
             TypeError, "model"),
    BadInput("widgets: trellis explorer starting string with an unknown symbol",
             lambda: WH.trellis_explorer(observations="HXH"), ValueError, "observations"),
    BadInput("widgets: trellis explorer starting string too long",
             lambda: WH.trellis_explorer(observations="H" * (PT.TRELLIS_MAX_LENGTH + 1)),
             ValueError, "observations"),
    BadInput("widgets: trellis half-typed A", trellis_render(A="0.8 0.2 0; 0.3 0.4"),
             WH.InputError, "A"),
    BadInput("widgets: trellis pi that does not sum to one", trellis_render(pi="0.4 0.3"),
             WH.InputError, "pi"),
    BadInput("widgets: trellis word in B", trellis_render(B="0.9 0.1; 0.5 half; 0.2 0.8"),
             WH.InputError, "B"),
    BadInput("widgets: trellis empty observations", trellis_render(observations="  "),
             WH.InputError, "observations"),
    BadInput("widgets: parse a matrix that is not text",
             lambda: WH._parse_matrix(np.eye(2), "A"), TypeError, "A"),
    BadInput("widgets: Baum-Welch explorer data without n_symbols",
             lambda: WH.baum_welch_explorer([[0, 1]]), ValueError, "n_symbols"),
    BadInput("widgets: Baum-Welch explorer symbols beyond n_symbols",
             lambda: WH.baum_welch_explorer([[0, 5]], n_symbols=3), ValueError, "sequences"),
    BadInput("widgets: Baum-Welch explorer zero symbols",
             lambda: WH.baum_welch_explorer([[0]], n_symbols=0), ValueError, "n_symbols"),
    BadInput("widgets: Baum-Welch explorer of zero sequences",
             lambda: WH.baum_welch_explorer(n_sequences=0), ValueError, "n_sequences"),
    BadInput("widgets: trellis figure of a non-model", lambda: WH.trellis_figure("weather", "HU"),
             TypeError, "model"),
    BadInput("widgets: trellis figure with an unknown scale",
             lambda: WH.trellis_figure(WEATHER, "HU", scale="decibel"), ValueError, "scale"),
    BadInput("widgets: trellis panel of probabilities above one",
             lambda: PT.plot_trellis(None, [[0.5, 1.5]]), ValueError, "values"),
    BadInput("widgets: Baum-Welch figure of an empty trace",
             lambda: P.render_baum_welch([], WEATHER), ValueError, "trace"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)


def test_lengths_whose_sum_wraps_around_int64_are_refused_not_sampled():
    """Four lengths of 2^62 sum to 2^64, which numpy's int64 cumsum wraps around to 0: the
    draws were then allocated for no step while the compiled sampler wrote 2^64 of them (the
    interpreter crashed). Run in a child process, so a crash fails this test alone."""
    code = ("from course_lib.hmm.model import sample_sequences, weather_mood_hmm\n"
            "try:\n    sample_sequences(weather_mood_hmm(), [2 ** 62] * 4, rng=0)\n"
            "except ValueError as err:\n    print(err)\n")
    # from the repository's root, so the child imports the course_lib under test
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=Path(course_lib.__file__).parents[1])
    assert run.returncode == 0, f"the sampler crashed (exit code {run.returncode})"
    assert run.stdout.startswith("lengths:"), run.stdout
