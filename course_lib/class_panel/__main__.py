"""``python -m course_lib.class_panel collect DIR``: a class's sheets into one table.

Reads every sheet under DIR (nothing there is changed), prints what was counted, superseded
and left out with the reasons, and writes ``answers.csv`` and ``sheets.csv`` to ``--out``.
The activities are the ones the class notebooks drew from ``--seed`` (their default, 2026) and,
for the rating round, ``--clips`` and ``--n-clips`` (their default: sixteen clips spread over the
scale).
"""

from __future__ import annotations

import argparse
import sys

from course_lib.class_panel.activities import (_CLIP_SETS, DEFAULT_SEED, compare_activity,
                                               rate_activity)
from course_lib.class_panel.collect import collect


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="course.py class-panel",
                                     description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gather = commands.add_parser("collect", help="gather the sheets under DIR into one table")
    gather.add_argument("folder", metavar="DIR", help="nbgrader's exchange or submitted/ "
                        "folder, or any folder the students saved their sheets into")
    gather.add_argument("--out", default="class_panel",
                        help="where answers.csv and sheets.csv go (default: ./class_panel; "
                             "never inside DIR)")
    gather.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help=f"the seed the class notebooks used (default {DEFAULT_SEED})")
    gather.add_argument("--clips", type=_clips, default="scale",
                        help="the rating round's clips, as the class notebooks chose them: "
                             "'scale' (default: spread over the scale), 'panel' (lecture 05's "
                             "twenty) or item numbers separated by commas")
    gather.add_argument("--n-clips", type=int, default=None,
                        help="how many clips the rating round drew from --clips (default: "
                             "16 of 'scale', 20 of 'panel')")
    gather.add_argument("--only", choices=("rate", "compare"),
                        help="collect one activity only")
    return parser


def _clips(text: str):
    """--clips: a clip set's name, or item numbers separated by commas."""
    if text in _CLIP_SETS:
        return text
    try:
        return [int(item) for item in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(_CLIP_SETS)} or item "
                                         f"numbers separated by commas, got {text!r}") from None


def main(argv=None) -> int:
    """The command line (module docstring); returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        rate = None if args.only == "compare" else rate_activity(args.seed, args.n_clips,
                                                                 clips=args.clips)
        compare = None if args.only == "rate" else compare_activity(args.seed)
        collection = collect(args.folder, rate, compare)
        written = collection.write(args.out)
    except ValueError as err:
        print(err, file=sys.stderr)
        return 2
    print(collection.summary())
    print("written: " + ", ".join(str(path) for path in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
