"""A lecture notebook read as text, for the tests that hold its shape and the numbers its prose
states (tests/test_lecture_shape.py, tests/test_lecture_NN.py). Words are whitespace-split
tokens of markdown cells."""

from __future__ import annotations

import json
from pathlib import Path

LECTURES = Path(__file__).resolve().parents[1] / "lectures"


class LectureText:
    """The cells of ``lectures/<name>.ipynb``."""

    def __init__(self, name: str):
        self.name = name
        self.notebook = json.loads((LECTURES / f"{name}.ipynb").read_text("utf-8"))

    def cell(self, cell_id: str) -> dict:
        return next(c for c in self.notebook["cells"] if c.get("id") == cell_id)

    def source(self, cell_id: str) -> str:
        """One cell's text, whitespace collapsed."""
        return " ".join("".join(self.cell(cell_id)["source"]).split())

    def output(self, cell_id: str) -> str:
        """One code cell's stored text output."""
        return "".join("".join(o.get("text", "")) for o in self.cell(cell_id)["outputs"])

    def cells(self, kind: str) -> list[dict]:
        """The cells of one kind ("markdown" or "code"), in order."""
        return [cell for cell in self.notebook["cells"] if cell["cell_type"] == kind]

    def prose(self) -> str:
        """All markdown, whitespace collapsed."""
        return " ".join(" ".join("".join(c["source"]).split()) for c in self.cells("markdown"))

    def stretches(self) -> list[tuple[str, int]]:
        """(code cell id, words of markdown since the previous code cell), and ("end", the
        words after the last one)."""
        runs, words = [], 0
        for cell in self.notebook["cells"]:
            if cell["cell_type"] == "markdown":
                words += len("".join(cell["source"]).split())
            else:
                runs.append((cell.get("id"), words))
                words = 0
        return runs + [("end", words)]

    def words_per_code_cell(self) -> float:
        return len(self.prose().split()) / len(self.cells("code"))
