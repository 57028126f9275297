"""Generate ``tests/data/misread/``: corpus sentences read as written and misread, synthesised.

Run from the repository root with the corpus's copy (``COURSE_SPEECHOCEAN762``) and the Debian
packages ``espeak-ng`` and ``sox`` (``apt-get install espeak-ng sox``)::

    .venv/bin/python tools/make_misread_clips.py

The word verdict of :func:`course_lib.pronunciation.word_readings` must catch a word said
differently or left out, and pass a word read as written. Nothing in the corpus says which
word a learner changed, so these clips are made to know it: the example sentences of
speechocean762 (``data/speechocean762/examples.csv``) of at most :data:`MAX_WORDS` words, each
synthesised twice by espeak-ng,

* as written, with one voice at one speaking rate;
* misread, with the other voice at the other rate: :data:`N_CHANGES` words (fewer in a short
  sentence) changed, one of them left out and the rest replaced by another word of the corpus's
  texts whose dictionary phones are clearly different (same length within one phone, phone
  edit distance at least half the longer word and at least 2). No two changed words touch, so
  each change has a word read as written on either side.

Which words change and what replaces them follows from SHA-256 of the item and the candidate
(:func:`_pick`), not from a random generator, so the choice does not depend on numpy's version.
The words were chosen by this rule before any verdict was computed on the clips; the clips are
the verdict's check and must not be tuned to it.

The chain per clip: espeak-ng (22050 Hz int16) -> sox in repeatable mode without dither
(``-R -D``): leading and trailing silence cut, very-high-quality resampling to 16 kHz,
peak at -1 dBFS, 0.1 s of silence added at each end (a recording starts and ends in silence),
16-bit mono WAV. The same espeak-ng and sox give the same bytes (run twice, compared).
It writes one WAV per clip, ``manifest.json`` (per clip: the text it is scored against, what
was said, the changed and omitted word indices, voice, rate; the tools' versions) and
``SHA256SUMS`` over both.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from course_lib.data import _parse_int, _parse_text, _read_csv_table  # noqa: E402
from course_lib.data.speechocean762 import (_DATASET, load_pronunciation_scorer,  # noqa: E402
                                            load_speechocean762)

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "data" / "misread"
MANIFEST, CHECKSUMS = "manifest.json", "SHA256SUMS"
SAMPLE_RATE = 16000
MAX_WORDS = 8            # short sentences keep the fixtures small (about 2-3 s a clip)
N_CHANGES = 3            # per misread clip: one omission, the rest substitutions
VOICES = ("en-us", "en-gb-x-rp+f3")      # American male, British (RP) female
RATES_WPM = (140, 190)                   # espeak-ng -s: slow and brisk reading
PAD_S = 0.1
KEY = "issue46"          # mixed into every hash: another key gives another draw


def require_tools() -> None:
    """Stop with a clear message when espeak-ng or sox is missing."""
    missing = [tool for tool in ("espeak-ng", "sox") if shutil.which(tool) is None]
    if missing:
        sys.exit(f"make_misread_clips: {' and '.join(missing)} not found on PATH. These clips "
                 f"are synthesised with Debian's packages: apt-get install -y espeak-ng sox")


def tool_version(command: list[str]) -> str:
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    # espeak-ng's line also names its data folder, which says nothing about the build
    return " ".join((done.stdout or done.stderr).split("\n")[0].split()).split(" Data at:")[0]


def package_version(package: str) -> str | None:
    """The Debian package's version (the build, not only the release), where dpkg exists."""
    if shutil.which("dpkg-query") is None:
        return None
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True,
                          text=True, check=False)
    return done.stdout.strip() or None


def _digest(*parts) -> str:
    return hashlib.sha256(":".join([KEY, *map(str, parts)]).encode("utf-8")).hexdigest()


def _pick(options, *key):
    """The option with the smallest SHA-256 of (key, option): a fixed, seedless choice."""
    return min(options, key=lambda option: _digest(*key, option))


def edit_distance(a: list[str], b: list[str]) -> int:
    """Levenshtein distance between two phone sequences."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def clearly_different(a: list[str], b: list[str]) -> bool:
    longer = max(len(a), len(b))
    return abs(len(a) - len(b)) <= 1 and edit_distance(a, b) >= max(2, (longer + 1) // 2)


def plan_misreading(item: int, words: list[str], vocabulary: dict[str, list[str]],
                    phones: dict[str, list[str]]) -> tuple[dict[int, str], list[int]]:
    """({index: replacement}, [omitted index]) for one sentence; ``phones`` holds its words'
    dictionary phones, ``vocabulary`` the replacements'."""
    # a five-word sentence with three changes would be more changed than read
    n_changes = N_CHANGES if len(words) > 5 else N_CHANGES - 1
    spaced = [c for c in combinations(range(len(words)), n_changes)
              if all(b - a > 1 for a, b in zip(c, c[1:]))]
    positions = _pick(spaced, item, "positions")
    omitted = _pick(positions, item, "omitted")
    substituted = {}
    for index in positions:
        if index == omitted:
            continue
        written = phones[words[index]]
        candidates = sorted(word for word, said in vocabulary.items()
                            if word not in words and clearly_different(written, said))
        substituted[index] = _pick(candidates, item, index)
    return substituted, [omitted]


def synthesise(said: str, voice: str, rate: int, target: Path, workdir: Path) -> float:
    """espeak-ng then sox (module docstring); the clip's length in s."""
    raw = workdir / "espeak.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate), "-w", str(raw), said.lower()],
                   check=True, capture_output=True)
    subprocess.run(["sox", "-R", "-D", str(raw), "-b", "16", "-e", "signed-integer", "-c", "1",
                    str(target), "silence", "1", "0.02", "0.5%", "reverse", "silence", "1",
                    "0.02", "0.5%", "reverse", "rate", "-v", str(SAMPLE_RATE), "gain", "-n",
                    "-1", "pad", str(PAD_S), str(PAD_S)], check=True, capture_output=True)
    return (target.stat().st_size - 44) / 2 / SAMPLE_RATE


def main() -> None:
    require_tools()
    versions = {tool: {"version": tool_version([tool, "--version"]),
                       "debian_package": package_version(tool)} for tool in ("espeak-ng", "sox")}
    print(versions)
    panel = load_speechocean762()
    scorer = load_pronunciation_scorer()
    examples = [row["item"] for row in _read_csv_table(
        _DATASET, "examples.csv", {"item": _parse_int, "label": _parse_text})]
    items = [item for item in examples if len(panel.texts[item].split()) <= MAX_WORDS]
    # replacements: the words of the corpus's texts, letters only, with their dictionary phones
    vocabulary = {word: scorer.pronunciation(word).split()
                  for word in sorted({w for text in panel.texts for w in text.split()})
                  if word.isalpha()}
    combos = [(voice, rate) for voice in range(len(VOICES)) for rate in range(len(RATES_WPM))]
    FOLDER.mkdir(parents=True, exist_ok=True)
    for old in FOLDER.glob("*.wav"):
        old.unlink()
    clips = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, item in enumerate(items):
            words = panel.texts[item].split()
            voice, rate = combos[k % len(combos)]
            phones = {word: scorer.pronunciation(word).split() for word in words}
            substituted, omitted = plan_misreading(item, words, vocabulary, phones)
            said = [substituted.get(i, w) for i, w in enumerate(words) if i not in omitted]
            for kind, (v, r), spoken in (("as_written", (voice, rate), words),
                                         ("misread", (1 - voice, 1 - rate), said)):
                name = f"s{item}_{kind}_{VOICES[v].split('+')[0]}_{RATES_WPM[r]}.wav"
                seconds = synthesise(" ".join(spoken), VOICES[v], RATES_WPM[r], FOLDER / name,
                                     Path(tmp))
                changed = substituted if kind == "misread" else {}
                clips.append({
                    "file": name, "item": item, "utterance": panel.utterances[item],
                    "text": panel.texts[item], "said": " ".join(spoken), "kind": kind,
                    "substituted": [{"index": i, "written": words[i], "said": w}
                                    for i, w in sorted(changed.items())],
                    "omitted": omitted if kind == "misread" else [],
                    "voice": VOICES[v], "rate_wpm": RATES_WPM[r],
                    "seconds": round(seconds, 4)})
                print(f"{name}: {seconds:.2f} s  {' '.join(spoken)}")
    manifest = {"generator": "tools/make_misread_clips.py", "tools": versions,
                "sample_rate": SAMPLE_RATE, "key": KEY, "clips": clips}
    (FOLDER / MANIFEST).write_bytes((json.dumps(manifest, indent=1) + "\n").encode("utf-8"))
    names = sorted([clip["file"] for clip in clips] + [MANIFEST])
    lines = [f"{hashlib.sha256((FOLDER / n).read_bytes()).hexdigest()}  {n}" for n in names]
    (FOLDER / CHECKSUMS).write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    total = sum((FOLDER / n).stat().st_size for n in names)
    print(f"wrote {len(clips)} clips, {MANIFEST} and {CHECKSUMS} ({total / 1e3:.0f} kB) to "
          f"{FOLDER}")


if __name__ == "__main__":
    main()
