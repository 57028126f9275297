"""Scripts that reproduce the tables and figures of the course's source papers.

Run one from the repository root as ``python -m experiments.<script> [--reduced]``;
``experiments/README.md`` lists them, each with its page beside it (``experiments/<name>.md``);
``experiments/common.md`` documents the result files they write.
"""
