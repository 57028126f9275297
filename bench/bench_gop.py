"""Goodness of pronunciation per sentence: course_lib.pronunciation against pocketsphinx alone.

Workload (issue 38): the six example sentences of speechocean762 as recorded (16 kHz, 3.5 to
10.3 s), each scored against its text. Ours is ``PronunciationScorer.score``: the argument checks,
the three decoding passes (word alignment, phone alignment, free phone loop) and the GOP
bookkeeping. Theirs is the same three passes called on pocketsphinx directly, with nothing
around them, so the ratio is what the course's code adds to the decoder. Also printed: CPU
seconds per second of audio, the figure the recipe's run time follows from, and what that makes
for a sentence of the corpus's mean length, 4.0 s (goal: at most 0.7 s of one core).

With the LPR (issue: the live verdicts' next model reads every phone's log posterior ratios):
``score(..., with_lpr=True)`` on the same six sentences, against pocketsphinx alone running the
same four passes in the same process, the fourth the free phone loop that writes every
senone's score to a file (``senlogdir``, writing the file is pocketsphinx's own cost). Ours adds
reading that file and reducing it per aligned phone (``senone_scores.phone_table``). Goal: at
most 1.2.

Stop to plot (goal: at most 2 s for a 4 s sentence): what happens in the kernel after the
student presses Stop in lecture 08's pronunciation panel, timed from the samples the browser
sends (48 kHz float32, the example sentence nearest 4 s with a quarter second of silence on
each side) to the finished figure and text: the recorder's resampling and trimming, GOP with
the LPR pass (the word and phone verdicts read it), the
grammar pass (the panel reads four of the word decoder's numbers), the features, the panel GP's
prediction and drawing the figure. Beside it, as its reference, the
three decoder passes alone on the same sentence (the part that cannot get cheaper here).
The grammar pass (issue 58): ``ReadingDecoder.decode`` on the same six sentences, each word
against its neighbours, timed against the three alignment passes alone; its ratio is the one
the issue asks to state. The decoder runs with the tuned margin and penalties when
``experiments/results/misread_readings.json`` exists, else with the development values below
(its speed hardly depends on them).
Timing rules (one thread, alternating rounds, medians of the per-round ratios): bench/harness.py.

    .venv/bin/python bench/bench_gop.py [--repeats 5]
"""

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

import numpy as np  # noqa: E402
import pocketsphinx  # noqa: E402

from course_lib.pronunciation.panel import ExpertPanel  # noqa: E402
from course_lib.pronunciation.word_choice import ReadingDecoder  # noqa: E402
from course_lib.results import RESULTS_DIR, load_result  # noqa: E402
from course_lib.recording import resample  # noqa: E402
from course_lib.widgets.pronunciation import PronunciationExplorer  # noqa: E402
from course_lib.data.speechocean762 import load_speechocean762  # noqa: E402
from course_lib.pronunciation.corpus_scorer import load_pronunciation_scorer  # noqa: E402

GOAL_RATIO, GOAL_SECONDS = 1.1, 0.7
GOAL_LPR_RATIO = 1.2
GOAL_STOP_TO_PLOT_S, STOP_TO_PLOT_SENTENCE_S = 2.0, 4.0
BROWSER_RATE = 48000
MEAN_SENTENCE_S = 4.0            # speechocean762's mean recording length (features.csv)
DEVELOPMENT_VALUES = {"margin": 0.0, "unclear_penalty": 30.0, "omission_penalty": 40.0,
                      "neighbour_penalty": 25.0}


def grammar_values() -> dict:
    """The tuned margin and penalties once experiments/misread_readings.py has run."""
    if (RESULTS_DIR / "misread_readings.json").is_file():
        tuned = load_result("misread_readings")["result"]["tuned"]
        return {key: tuned[key] for key in DEVELOPMENT_VALUES if key in tuned}
    print(f"no tuned values yet: the grammar pass runs with {DEVELOPMENT_VALUES}")
    return dict(DEVELOPMENT_VALUES)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def decoder_alone():
    decoder = pocketsphinx.Decoder(samprate=16000, compallsen=True, bestpath=False, lm=None,
                                   beam=1e-48, wbeam=1e-48, loglevel="FATAL")
    decoder.add_allphone_file("phone_loop")

    def decode(raw: bytes) -> None:
        decoder.start_utt()
        decoder.process_raw(raw, full_utt=True)
        decoder.end_utt()

    def passes(raw: bytes, text: str) -> None:
        decoder.set_align_text(text.lower())
        decode(raw)                   # words
        decoder.set_alignment()
        decode(raw)                   # phones
        [phone.score for word in decoder.get_alignment() for phone in word]
        decoder.activate_search("phone_loop")
        decode(raw)                   # free phone loop
        [segment.ascore for segment in decoder.seg()]
    return passes


def senone_pass_alone(folder: str):
    """The fourth pass as pocketsphinx runs it alone: the free phone loop with every senone's
    score written to ``folder`` (the file removed after, as ours does)."""
    decoder = pocketsphinx.Decoder(samprate=16000, compallsen=True, bestpath=False, lm=None,
                                   loglevel="FATAL", beam=1e-48, wbeam=1e-48, senlogdir=folder)
    decoder.add_allphone_file("phone_loop")
    decoder.activate_search("phone_loop")

    def senone_pass(raw: bytes) -> None:
        decoder.reinit_feat()
        decoder.start_utt()
        decoder.process_raw(raw, full_utt=True)
        decoder.end_utt()
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
    return senone_pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    panel = load_speechocean762()
    scorer, passes = load_pronunciation_scorer(), decoder_alone()
    # the corpus's own 16 kHz recordings (read from the corpus, not from data/), as int16
    clips = [(np.round(clip.samples * 32768).clip(-32768, 32767).astype(np.int16), clip.text)
             for clip in panel.example_audio_16k()]
    seconds = sum(samples.size for samples, _ in clips) / 16000

    def ours():
        for samples, text in clips:
            scorer.score(samples, 16000, text)

    def theirs():
        for samples, text in clips:
            passes(samples.astype("<i2").tobytes(), text)

    print(f"CPU: {cpu_model()}; {len(clips)} sentences, {seconds:.1f} s of audio")
    with harness.one_thread():
        wall, cpu = harness.alternate_clocks({"ours": ours, "theirs": theirs}, args.repeats)
    ratio = harness.median_ratio(wall["ours"], wall["theirs"])
    per_second = float(np.median(cpu["ours"])) / seconds
    print(f"course_lib {np.median(wall['ours']):.3f} s, pocketsphinx alone "
          f"{np.median(wall['theirs']):.3f} s for the six sentences")
    harness.print_ratio("gop_six_sentences", ratio, GOAL_RATIO)
    print(f"CPU per second of audio {per_second:.3f} s; per sentence of the corpus's mean "
          f"length ({MEAN_SENTENCE_S} s) {per_second * MEAN_SENTENCE_S:.2f} s "
          f"(goal <= {GOAL_SECONDS} s)")
    lpr_ratio(scorer, passes, clips, args.repeats)
    reader, values = ReadingDecoder(scorer), grammar_values()

    def grammar():
        for samples, text in clips:
            reader.decode(samples, 16000, text, **values)

    grammar()                        # the neighbour index and the unigrams, read once
    with harness.one_thread():
        wall, _ = harness.alternate_clocks({"grammar": grammar, "theirs": theirs}, args.repeats)
    print(f"grammar pass {np.median(wall['grammar']):.3f} s for the six sentences "
          f"({np.median(wall['grammar']) / len(clips):.3f} s each)")
    harness.print_ratio("grammar_pass_over_alignment_passes",
                        harness.median_ratio(wall["grammar"], wall["theirs"]))
    stop_to_plot(panel, passes, args.repeats)


def lpr_ratio(scorer, passes, clips, repeats: int) -> None:
    """``score(..., with_lpr=True)`` against the four passes alone."""
    folder = tempfile.mkdtemp(prefix="bench_senones_")
    try:
        senone_pass = senone_pass_alone(folder)

        def ours():
            for samples, text in clips:
                scorer.score(samples, 16000, text, with_lpr=True)

        def theirs():
            for samples, text in clips:
                raw = samples.astype("<i2").tobytes()
                passes(raw, text)
                senone_pass(raw)

        with harness.one_thread():
            wall, cpu = harness.alternate_clocks({"ours": ours, "theirs": theirs}, repeats)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"with the LPR: course_lib {np.median(wall['ours']):.3f} s, pocketsphinx's four "
          f"passes alone {np.median(wall['theirs']):.3f} s for the six sentences (CPU ratio "
          f"{harness.median_ratio(cpu['ours'], cpu['theirs']):.3f})")
    harness.print_ratio("gop_with_lpr_six_sentences",
                        harness.median_ratio(wall["ours"], wall["theirs"]), GOAL_LPR_RATIO)


def stop_to_plot(panel, passes, repeats: int) -> None:
    clip = min(panel.example_audio_16k(),
               key=lambda c: abs(c.samples.size / c.sample_rate - STOP_TO_PLOT_SENTENCE_S))
    silence = np.zeros(BROWSER_RATE // 4)
    take = np.concatenate([silence, resample(clip.samples, clip.sample_rate, BROWSER_RATE),
                           silence]).astype(np.float32)
    reader = PronunciationExplorer(ExpertPanel(), panel.example_audio_16k())
    reader.sentence.value = clip.text.lower()
    raw = (np.round(clip.samples * 32767)).astype("<i2").tobytes()

    def ours():
        with contextlib.redirect_stdout(io.StringIO()):   # the figure, shown outside a kernel
            reader.recorder.receive(take, BROWSER_RATE)

    def theirs():
        passes(raw, clip.text)

    with harness.one_thread():
        wall, _ = harness.alternate_clocks({"ours": ours, "theirs": theirs}, repeats)
    latency = float(np.median(wall["ours"]))
    print(f"Stop to plot, a {clip.samples.size / clip.sample_rate:.1f} s sentence: "
          f"{latency:.2f} s (goal <= {GOAL_STOP_TO_PLOT_S} s); the three decoder passes alone "
          f"{np.median(wall['theirs']):.2f} s")
    harness.print_ratio("stop_to_plot_over_decoder_passes",
                        harness.median_ratio(wall["ours"], wall["theirs"]))


if __name__ == "__main__":
    main()
