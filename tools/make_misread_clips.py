"""Synthesise corpus sentences read as written and misread: the test clips and the readings.

Run from the repository root with the corpus's copy (``COURSE_SPEECHOCEAN762``) and the Debian
packages ``espeak-ng`` and ``sox`` (``apt-get install espeak-ng sox``)::

    .venv/bin/python tools/make_misread_clips.py              # the clips of tests/data/misread
    .venv/bin/python tools/make_misread_clips.py --readings   # the readings, into the cache

Nothing in the corpus says which word a learner changed, so these recordings are made to know
it. Which words change and what replaces them follows from SHA-256 of a key, the item and the
candidate (:func:`_pick`), not from a random generator, so the choice does not depend on
numpy's version; it was fixed before any verdict was computed on the recordings, which are the
verdicts' check and must not be tuned to them.

**The clips** (``tests/data/misread/``, committed, key ``issue46``): the example sentences of
speechocean762 (``data/speechocean762/examples.csv``) of at most :data:`MAX_WORDS` words, each
synthesised twice by espeak-ng,

* as written, with one voice at one speaking rate;
* misread, with the other voice at the other rate: :data:`N_CHANGES` words (fewer in a short
  sentence) changed, one of them left out and the rest replaced by another word of the corpus's
  texts whose dictionary phones are clearly different (same length within one phone, phone
  edit distance at least half the longer word and at least 2). No two changed words touch, so
  each change has a word read as written on either side.

It writes one WAV per clip, ``manifest.json`` (per clip: the text it is scored against, what
was said, the changed and omitted word indices, voice, rate; the tools' versions) and
``SHA256SUMS`` over both.

**The readings** (``--readings``, key ``issue58``; too many to commit): a tuning half and a
held-out half, split by sentence *and* by voice, so the held-out half has sentences and voices
that nothing was tuned on (the two off-diagonal blocks, tuning sentences in held-out voices and
the reverse, are not made).

* Sentences: the corpus's test-split texts (``148498a/test/text``) of
  :data:`READING_WORDS` words whose every word is in the CMU dictionary that pocketsphinx
  ships, less the example sentences (the clips above were made of them, in sight of the
  verdicts). Each goes to a half by the parity of its SHA-256; the first
  :data:`SENTENCES_PER_HALF` of each half in SHA-256 order are read.
* Voices (:data:`READING_VOICES`): four espeak-ng voices per half, two male and two female,
  one American or Caribbean and three British accents in each; the clips' two voices are in
  the tuning half, having been heard while the first verdict was built.
* Rates (:data:`READING_RATES_WPM`): slow, middling and brisk. Not crossed with everything:
  a (sentence, voice) cell is read at one rate, sentence rank plus voice rank modulo 3, so each
  voice reads a third of its sentences at each rate and each sentence is heard at every rate.
* Per cell, four readings at the same voice and rate (:data:`READING_KINDS`), so each misread
  one has its correct reading to be compared with: ``as_written``; ``replaced``, one word (two,
  not touching, in half of the sentences of six words or more) replaced by a near neighbour
  from the CMU dictionary, one phone substituted, of one of three kinds (:data:`CHANGE_KINDS`:
  l/r, voicing, vowel), the kind drawn first among those the sentence's words have, then the
  word (three letters or more), then the neighbour, preferring words of the corpus's texts to
  the dictionary's rarer entries (:func:`plan_replacement`); ``left_out``, one
  word not said; ``inserted``, a word said twice, or a short word
  (:data:`INSERTED_WORDS`) said between two written words.

With 40 sentences and 4 voices per half that is 160 cells and 640 readings per half: 160 left
out words, 208 (tuning) and 215 (held-out) replaced words, 160 insertions and about 1,100
words of correct readings, so that a share near 80-90% has a 95% Clopper-Pearson interval
about +-5-6 points wide, and a false-flag share near 3% one of about +-1.2 points. The
readings go to a cache folder outside the repository (:func:`readings_folder`:
``COURSE_MISREAD_READINGS``, else the user's cache); the committed manifest,
``tests/data/misread_readings/manifest.json``, holds per reading what :func:`plan_readings`
decided (text scored, words said, the indices replaced, left out and inserted, voice, rate,
half) and the SHA-256 of its WAV, so the same tools give the same bytes and
:func:`ensure_readings` refuses others.

The chain per recording: espeak-ng (22050 Hz int16) -> sox in repeatable mode without dither
(``-R -D``): leading and trailing silence cut, very-high-quality resampling to 16 kHz,
peak at -1 dBFS, 0.1 s of silence added at each end (a recording starts and ends in silence),
16-bit mono WAV. The same espeak-ng and sox give the same bytes (run twice, compared).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from course_lib.data import _parse_int, _parse_text, _read_csv_table  # noqa: E402
from course_lib.data.speechocean762 import _DATASET, load_speechocean762  # noqa: E402
from course_lib.pronunciation.corpus_scorer import load_pronunciation_scorer  # noqa: E402

REPOSITORY = Path(__file__).resolve().parents[1]
FOLDER = REPOSITORY / "tests" / "data" / "misread"
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


def make_clips() -> None:
    """The clips of ``tests/data/misread`` (module docstring)."""
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



# ----- the readings (module docstring) ---------------------------------------------------

READINGS_KEY = "issue58"
READINGS_VARIABLE = "COURSE_MISREAD_READINGS"
READINGS_MANIFEST = REPOSITORY / "tests" / "data" / "misread_readings" / "manifest.json"
TEST_TEXT = "148498a/test/text"
READING_WORDS = range(5, 10)       # five to nine words: moderate sentences, 2-4 s read
SENTENCES_PER_HALF = 40
HALVES = ("tuning", "held_out")
READING_VOICES = {
    # American male, RP female (the clips' voices), Scottish male, Caribbean female
    "tuning": ("en-us", "en-gb-x-rp+f3", "en-gb-scotland", "en-029+f2"),
    # New York female, British male, Lancaster female, West Midlands male
    "held_out": ("en-us-nyc+f4", "en-gb", "en-gb-x-gbclan+f1", "en-gb-x-gbcwmd")}
READING_RATES_WPM = (130, 165, 200)
READING_KINDS = ("as_written", "replaced", "left_out", "inserted")
# learners' commonest insertions: an article, a filler or an intensifier
INSERTED_WORDS = ("THE", "A", "SO", "VERY", "AND", "REALLY")
VOWELS = frozenset("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())
VOICING = {a: b for x, y in (("P", "B"), ("T", "D"), ("K", "G"), ("F", "V"), ("S", "Z"),
                             ("SH", "ZH"), ("CH", "JH"), ("TH", "DH")) for a, b in ((x, y), (y, x))}
CHANGE_KINDS = ("l/r", "voicing", "vowel")
# a one-phone neighbour of A, I, TO or IS is an accent rather than another word: words of three
# letters or more are replaced, by words of three letters or more
MIN_REPLACED_LETTERS = 3


def _change_kind(written: str, said: str) -> str | None:
    """Which kind of substitution turns phone ``written`` into ``said`` (None: none of them)."""
    if {written, said} == {"L", "R"}:
        return "l/r"
    if VOICING.get(written) == said:
        return "voicing"
    if written in VOWELS and said in VOWELS and written != said:
        return "vowel"
    return None


def cmu_dictionary() -> dict[str, list[tuple[str, ...]]]:
    """{WORD: [phones, ...]} of the CMU dictionary that pocketsphinx ships (no stress marks),
    alternative pronunciations in the file's order."""
    import pocketsphinx

    path = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    dictionary: dict[str, list[tuple[str, ...]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            word, *phones = line.split()
            dictionary.setdefault(re.sub(r"\(\d+\)$", "", word).upper(), []).append(tuple(phones))
    return dictionary


def near_neighbours(word: str, dictionary, preferred: frozenset[str]) -> dict[str, list[dict]]:
    """{kind: [{"said": WORD, "phone": i, "from": phone, "to": phone}, ...]} for each kind of
    :data:`CHANGE_KINDS`: the dictionary words, letters only, one phone substitution of that kind
    away from a pronunciation of ``word`` and sharing none of its pronunciations; only the words
    of ``preferred`` (the corpus's texts) where the kind has any."""
    index: dict[tuple[str, ...], list[str]] = _pronunciation_index(dictionary)
    own = set(dictionary[word])
    found: dict[str, dict[str, dict]] = {kind: {} for kind in CHANGE_KINDS}
    for phones in dictionary[word]:
        for i, phone in enumerate(phones):
            for other in _PHONE_SET:
                kind = _change_kind(phone, other)
                if kind is None:
                    continue
                changed = phones[:i] + (other,) + phones[i + 1:]
                for said in index.get(changed, ()):
                    if said != word and said.isalpha() and \
                            len(said) >= MIN_REPLACED_LETTERS and \
                            not own & set(dictionary[said]):
                        found[kind].setdefault(said, {"said": said, "phone": i, "from": phone,
                                                      "to": other})
    out = {}
    for kind, candidates in found.items():
        common = [c for w, c in sorted(candidates.items()) if w in preferred]
        if candidates:
            out[kind] = common or [c for _, c in sorted(candidates.items())]
    return out


_PHONE_SET = tuple(sorted(VOWELS | set(VOICING) | {"L", "R"}))
_INDEX_CACHE: dict[int, dict] = {}


def _pronunciation_index(dictionary) -> dict[tuple[str, ...], list[str]]:
    """{phones: [words said so]} (built once per dictionary)."""
    if id(dictionary) not in _INDEX_CACHE:
        index: dict[tuple[str, ...], list[str]] = {}
        for word, pronunciations in sorted(dictionary.items()):
            for phones in pronunciations:
                index.setdefault(phones, []).append(word)
        _INDEX_CACHE[id(dictionary)] = index
    return _INDEX_CACHE[id(dictionary)]


def _digest58(*parts) -> str:
    return hashlib.sha256(":".join([READINGS_KEY, *map(str, parts)]).encode("utf-8")).hexdigest()


def _pick58(options, *key):
    """The option with the smallest SHA-256 of (the readings' key, ``key``, option)."""
    return min(options, key=lambda option: _digest58(*key, json.dumps(option, sort_keys=True)))


def reading_sentences(texts: dict[str, str], excluded: set[str], dictionary) -> dict[str, list]:
    """{half: [(utterance, text), ...]}: the sentences each half reads (module docstring)."""
    chosen = {half: [] for half in HALVES}
    seen = set()
    for utterance, text in sorted(texts.items(), key=lambda kv: _digest58("order", kv[1])):
        words = text.split()
        if text in seen or text in excluded or len(words) not in READING_WORDS or not all(
                w.isalpha() and w in dictionary for w in words):
            continue
        seen.add(text)
        half = HALVES[int(_digest58("half", text), 16) % 2]
        if len(chosen[half]) < SENTENCES_PER_HALF:
            chosen[half].append((utterance, text))
    return chosen


def plan_replacement(cell: str, words: list[str], dictionary, preferred) -> list[dict]:
    """The words a ``replaced`` reading of one cell changes: [{index, written, said, kind,
    phone, from, to}], one or two not touching (module docstring). Each change draws its kind
    first, among the kinds the sentence's free words have (so the rarer l/r pairs are not
    drowned by the many vowel neighbours), then a word that has it, then the neighbour."""
    options = {i: near_neighbours(w, dictionary, preferred) for i, w in enumerate(words)
               if len(w) >= MIN_REPLACED_LETTERS}
    options = {i: kinds for i, kinds in options.items() if kinds}
    two = len(words) >= 6 and int(_digest58(cell, "two"), 16) % 2 == 1
    out: list[dict] = []
    for k in range(2 if two else 1):
        free = [i for i in sorted(options) if all(abs(i - c["index"]) > 1 for c in out)]
        if not free:
            break
        kind = _pick58(sorted({kind for i in free for kind in options[i]}), cell, k, "kind")
        i = _pick58([i for i in free if kind in options[i]], cell, k, kind, "position")
        choice = _pick58(options[i][kind], cell, i, kind)
        out.append({"index": i, "written": words[i], "said": choice["said"], "kind": kind,
                    "phone": choice["phone"], "from": choice["from"], "to": choice["to"]})
    if not out:
        raise ValueError(f"{cell}: no word of {' '.join(words)!r} has a near neighbour")
    return sorted(out, key=lambda c: c["index"])


def plan_readings(texts: dict[str, str], excluded: set[str], dictionary,
                  preferred: frozenset[str]) -> list[dict]:
    """Every reading of both halves (module docstring), without its audio: per reading its
    ``file`` (``<half>/<utterance>_<voice>_<rate>_<kind>.wav``), half, utterance, text, said,
    kind, voice, rate and the changes (``replaced``, ``left_out``, ``inserted``)."""
    readings = []
    for half, sentences in reading_sentences(texts, excluded, dictionary).items():
        for s, (utterance, text) in enumerate(sentences):
            words = text.split()
            for v, voice in enumerate(READING_VOICES[half]):
                rate = READING_RATES_WPM[(s + v) % len(READING_RATES_WPM)]
                cell = f"{utterance}:{voice}"
                for kind in READING_KINDS:
                    replaced, left_out, inserted = [], [], []
                    said = list(words)
                    if kind == "replaced":
                        replaced = plan_replacement(cell, words, dictionary, preferred)
                        for change in replaced:
                            said[change["index"]] = change["said"]
                    elif kind == "left_out":
                        left_out = [_pick58(range(len(words)), cell, "left_out")]
                        del said[left_out[0]]
                    elif kind == "inserted":
                        if _pick58(("repeated", "inserted"), cell, "how") == "repeated":
                            after = _pick58(range(len(words)), cell, "repeated")
                            extra = {"after_index": after, "word": words[after],
                                     "repeated": True}
                        else:
                            after = _pick58(range(len(words) - 1), cell, "inserted")
                            extra = {"after_index": after, "repeated": False,
                                     "word": _pick58(INSERTED_WORDS, cell, "word")}
                        inserted = [extra]
                        said.insert(after + 1, extra["word"])
                    slug = voice.replace("+", "_")
                    readings.append({
                        "file": f"{half}/{utterance}_{slug}_{rate}_{kind}.wav", "half": half,
                        "utterance": utterance, "text": text, "said": " ".join(said),
                        "kind": kind, "voice": voice, "rate_wpm": rate, "replaced": replaced,
                        "left_out": left_out, "inserted": inserted})
    return readings


def readings_folder() -> Path:
    """Where the readings are written: the folder ``COURSE_MISREAD_READINGS`` names, else the
    user's cache (``XDG_CACHE_HOME`` or ``~/.cache``), never the repository's tree."""
    named = os.environ.get(READINGS_VARIABLE)
    if named:
        return Path(named)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "speech-judgement-course" / "misread_readings"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_readings_manifest() -> dict:
    """The committed manifest of the readings (module docstring)."""
    return json.loads(READINGS_MANIFEST.read_text(encoding="utf-8"))


def ensure_readings(readings: list[dict], folder: Path | None = None) -> Path:
    """Synthesise those of ``readings`` (manifest entries) missing from ``folder`` (default:
    :func:`readings_folder`) and check every one's SHA-256 against the manifest; a mismatch
    (another espeak-ng or sox) stops with what to do. Returns the folder."""
    folder = readings_folder() if folder is None else Path(folder)
    missing = [r for r in readings if not (folder / r["file"]).is_file()]
    if missing:
        require_tools()
        with tempfile.TemporaryDirectory() as tmp:
            for reading in missing:
                target = folder / reading["file"]
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.with_suffix(".part.wav")
                synthesise(reading["said"], reading["voice"], reading["rate_wpm"], partial,
                           Path(tmp))
                partial.replace(target)     # no half-written file under a whole one's name
    wrong = [r["file"] for r in readings if _sha256(folder / r["file"]) != r["sha256"]]
    if wrong:
        raise SystemExit(
            f"{len(wrong)} readings in {folder} are not the bytes the manifest "
            f"({READINGS_MANIFEST.relative_to(REPOSITORY)}) lists, e.g. {wrong[0]}: made by "
            "another espeak-ng or sox than the manifest names? Delete them to synthesise them "
            "again; if they still differ, regenerate with `tools/make_misread_clips.py "
            "--readings` and re-run the experiment")
    return folder


def make_readings(folder: Path | None = None) -> None:
    """Synthesise every reading into ``folder`` (default: :func:`readings_folder`), write the
    committed manifest and the folder's ``SHA256SUMS``."""
    require_tools()
    folder = readings_folder() if folder is None else Path(folder)
    resolved = folder.resolve()
    if resolved == REPOSITORY or REPOSITORY in resolved.parents:
        sys.exit(f"make_misread_clips: {folder} is inside the repository; the readings are too "
                 f"big to commit: set {READINGS_VARIABLE} to a folder outside it")
    versions = {tool: {"version": tool_version([tool, "--version"]),
                       "debian_package": package_version(tool)} for tool in ("espeak-ng", "sox")}
    panel = load_speechocean762()
    # the test split's texts (the corpus's 148498a/test/text), by utterance
    texts = {panel.utterances[int(item)]: panel.texts[int(item)] for item in panel.test}
    examples = {panel.texts[row["item"]] for row in _read_csv_table(
        _DATASET, "examples.csv", {"item": _parse_int, "label": _parse_text})}
    # the words of all 5,000 texts: common words, preferred as replacements to the dictionary's
    # rarer entries (names, spellings)
    preferred = frozenset(w for text in panel.texts for w in text.split())
    readings = plan_readings(texts, examples, cmu_dictionary(), preferred)
    seconds = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for reading in readings:
            target = folder / reading["file"]
            target.parent.mkdir(parents=True, exist_ok=True)
            reading["seconds"] = round(synthesise(reading["said"], reading["voice"],
                                                  reading["rate_wpm"], target, Path(tmp)), 4)
            reading["sha256"] = _sha256(target)
            seconds += reading["seconds"]
    manifest = {"generator": "tools/make_misread_clips.py --readings", "tools": versions,
                "sample_rate": SAMPLE_RATE, "key": READINGS_KEY,
                "sentences": TEST_TEXT, "voices": READING_VOICES,
                "rates_wpm": list(READING_RATES_WPM), "kinds": list(READING_KINDS),
                "readings": readings}
    READINGS_MANIFEST.parent.mkdir(parents=True, exist_ok=True)
    # one reading a line: a readable diff when a tool changes a few of them
    head = "".join(f" {json.dumps(key)}: {json.dumps(value, sort_keys=True)},\n"
                   for key, value in manifest.items() if key != "readings")
    lines = ",\n".join(json.dumps(r, sort_keys=True) for r in readings)
    READINGS_MANIFEST.write_bytes(("{\n" + head + ' "readings": [\n' + lines + "\n]}\n")
                                  .encode("utf-8"))
    json.loads(READINGS_MANIFEST.read_text(encoding="utf-8"))      # still one JSON document
    (folder / "SHA256SUMS").write_text("".join(f"{r['sha256']}  {r['file']}\n"
                                               for r in readings), encoding="utf-8")
    print(f"wrote {len(readings)} readings ({seconds / 60:.1f} min of speech) to {folder} and "
          f"their manifest to {READINGS_MANIFEST.relative_to(REPOSITORY)}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readings", action="store_true",
                        help="the tuning and held-out readings, into the cache folder "
                             f"({READINGS_VARIABLE}), and their committed manifest")
    args = parser.parse_args(argv)
    make_readings() if args.readings else make_clips()


if __name__ == "__main__":
    main()
