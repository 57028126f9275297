"""Typical wrong answers for solutions/01_dtw.ipynb (see tests/wrong_answers/__init__.py)."""

from wrong_answers import Mistake

MISTAKES = [
    Mistake("backtrack", why="the path is collected from the end and never flipped", code="""
        i, j = n - 1, m - 1
        path = [(i, j)]
        while (i, j) != (0, 0):
            candidates = []
            if i > 0 and j > 0:
                candidates.append((D[i - 1, j - 1] + 2 * cost[i, j], i - 1, j - 1))
            if j > 0:
                candidates.append((D[i, j - 1] + cost[i, j], i, j - 1))
            if i > 0:
                candidates.append((D[i - 1, j] + cost[i, j], i - 1, j))
            _, i, j = min(candidates, key=lambda candidate: candidate[0])
            path.append((i, j))
        return np.array(path, dtype=int)
        """, expect="reverse order"),
]
