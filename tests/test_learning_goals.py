"""The learning-goal map (docs/learning_goals.json): every goal a lecture lists points at a cell
of that lecture that is still there and still has something in it, so cutting or moving a
lecture's cells cannot drop a concept silently (issue 81)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOALS = json.loads((ROOT / "docs" / "learning_goals.json").read_text(encoding="utf-8"))


def _cells(lecture: str) -> dict:
    notebook = json.loads((ROOT / "lectures" / f"{lecture}.ipynb").read_text(encoding="utf-8"))
    return {cell.get("id"): cell for cell in notebook["cells"]}


def test_the_map_names_only_lectures_that_exist():
    missing = [name for name in GOALS if not (ROOT / "lectures" / f"{name}.ipynb").exists()]
    assert not missing, f"docs/learning_goals.json names lectures that do not exist: {missing}"


@pytest.mark.parametrize("lecture", sorted(GOALS))
def test_every_goal_has_a_cell_that_teaches_it(lecture):
    cells = _cells(lecture)
    goals = GOALS[lecture]
    assert goals, f"{lecture}: no learning goals listed"
    texts = [entry["goal"].strip() for entry in goals]
    assert all(texts), f"{lecture}: a goal without text"
    assert len(set(texts)) == len(texts), f"{lecture}: a goal is listed twice"
    lost = [entry for entry in goals if entry["cell"] not in cells]
    assert not lost, (f"{lecture}: these goals point at cells that are gone; point each at the "
                      f"cell that now teaches it: {lost}")
    empty = [entry for entry in goals if not "".join(cells[entry["cell"]]["source"]).strip()]
    assert not empty, f"{lecture}: these goals point at empty cells: {empty}"
