"""Where speechocean762's own files come from (course_lib.data.speechocean762_source).

A loopback HTTP server (127.0.0.1 only) serves the copy of the corpus this run uses in the
layout of the corpus's public repository (<full commit>/<path>), so the download is tested as a
user meets it without the internet: a good download with its progress lines, a file cut short
(kept as .part and resumed with a Range request), a damaged file (refused, nothing kept), a
damaged part (fetched again from its start), no network (one line saying what to do) and a
filled cache that a second run uses without a request. Every wait has a time limit.
"""

from __future__ import annotations

import io
import shutil
import socket
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from loopback_server import serving

from course_lib.data import DataError
from course_lib.data import speechocean762_source as source
from course_lib.data.speechocean762 import _load_sentences

TIMEOUT_S = 5.0
COPY = source._corpus_folder()          # the copy the run reads (COURSE_SPEECHOCEAN762 in CI)
MANIFEST = source._corpus_manifest()
SCORES = "148498a/dev/utt2score"        # 4 MB: large enough to be cut in the middle
SHORT = {full: short for short, full in source._COMMITS.items()}


class CorpusServer(BaseHTTPRequestHandler):
    """GET <full commit>/<path> from COPY, honouring "Range: bytes=N-"; the class attributes
    say which files to cut short (once each) or damage (every time), and record each request."""

    requests: list[tuple[str, str | None]] = []
    cut_once: set[str] = set()
    damaged: set[str] = set()

    def do_GET(self):  # noqa: N802 (http.server's name)
        commit, _, path = self.path.lstrip("/").partition("/")
        name = f"{SHORT.get(commit, '?')}/{path}"
        self.requests.append((name, self.headers.get("Range")))
        if name not in MANIFEST:
            self.send_error(404)
            return
        body = (COPY / name).read_bytes()
        if name in self.damaged:
            body = bytes([body[0] ^ 1]) + body[1:]
        start = int(self.headers["Range"].removeprefix("bytes=").rstrip("-")) \
            if self.headers.get("Range") else 0
        self.send_response(206 if start else 200)
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        if name in self.cut_once:
            self.cut_once.discard(name)
            self.wfile.write(body[start:start + (len(body) - start) // 2])
            self.close_connection = True
            return
        self.wfile.write(body[start:])

    def log_message(self, *args):     # keep the test log quiet
        pass


@pytest.fixture()
def server():
    """The base URL of a fresh loopback server; its handler class to steer and read it."""
    CorpusServer.requests, CorpusServer.cut_once, CorpusServer.damaged = [], set(), set()
    with serving(CorpusServer) as url:
        yield url, CorpusServer


def fetch(folder: Path, url: str, out=None) -> list[str]:
    return source._fetch(folder, url, timeout=TIMEOUT_S, out=out or io.StringIO())


def assert_whole_copy(folder: Path) -> None:
    for name, digest in MANIFEST.items():
        assert source._sha256_or_none(folder / name) == digest, name
    assert not list(folder.rglob("*.part"))


def test_a_good_download_checks_every_file_and_shows_progress(tmp_path, server):
    url, handler = server
    out = io.StringIO()
    assert sorted(fetch(tmp_path, url, out)) == sorted(MANIFEST)
    assert_whole_copy(tmp_path)
    # full commits in the addresses, one request per file, no Range on a fresh start
    assert sorted(name for name, _ in handler.requests) == sorted(MANIFEST)
    assert all(byte_range is None for _, byte_range in handler.requests)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(MANIFEST)
    assert lines[0].startswith(f"[1/{len(MANIFEST)}] ") and lines[0].endswith(" MB")
    assert any(SCORES in line and "[" + "#" * 30 + "]" in line for line in lines)


def test_a_file_cut_short_is_kept_as_part_and_resumed(tmp_path, server):
    url, handler = server
    handler.cut_once.add(SCORES)
    with pytest.raises(DataError, match="closed after .* bytes kept resume next time"):
        fetch(tmp_path, url)
    assert not (tmp_path / SCORES).exists()        # never half a file under the real name
    part = tmp_path / (SCORES + ".part")
    kept = part.stat().st_size
    assert 0 < kept < (COPY / SCORES).stat().st_size
    handler.requests.clear()
    fetched = fetch(tmp_path, url)
    assert SCORES in fetched and (SCORES, f"bytes={kept}-") in handler.requests
    assert_whole_copy(tmp_path)


def test_a_damaged_file_is_refused_and_nothing_is_kept(tmp_path, server):
    url, handler = server
    handler.damaged.add(SCORES)
    with pytest.raises(DataError, match=r"utt2score gave a file whose SHA-256 .* nothing was kept"):
        fetch(tmp_path, url)
    assert not (tmp_path / SCORES).exists()
    assert not (tmp_path / (SCORES + ".part")).exists()


def test_a_damaged_part_is_fetched_again_from_its_start(tmp_path, server):
    url, handler = server
    for name in MANIFEST:
        if name != SCORES:
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(COPY / name, tmp_path / name)
    (tmp_path / (SCORES + ".part")).write_bytes(b"not the corpus's bytes")
    assert fetch(tmp_path, url) == [SCORES]
    assert handler.requests == [(SCORES, "bytes=22-"), (SCORES, None)]
    assert_whole_copy(tmp_path)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_no_network_says_in_one_line_what_to_do(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(source._VARIABLE, raising=False)
    monkeypatch.setattr(source._COPY, "cache_folder", lambda: tmp_path)
    assert source._main(["--base-url", f"http://127.0.0.1:{free_port()}"]) == 1
    said = capsys.readouterr().err.strip()
    assert "\n" not in said and "refused" in said.lower()
    assert "python3 course.py data" in said and source._VARIABLE in said
    with pytest.raises(DataError, match="not on this machine: run `python3 course.py data`"):
        source._corpus_folder()


def test_a_filled_cache_is_used_and_a_second_run_asks_nothing(tmp_path, server, monkeypatch):
    url, handler = server
    monkeypatch.delenv(source._VARIABLE, raising=False)
    monkeypatch.setattr(source._COPY, "cache_folder", lambda: tmp_path)
    fetch(tmp_path, url)
    handler.requests.clear()
    assert fetch(tmp_path, url) == [] and handler.requests == []
    assert source._corpus_folder() == tmp_path
    assert len(_load_sentences()) == 5000       # the loader reads the cache


def test_the_variable_names_the_folder_first(tmp_path, monkeypatch):
    monkeypatch.setenv(source._VARIABLE, str(tmp_path))
    monkeypatch.setattr(source._COPY, "cache_folder", lambda: COPY)     # a whole cache, passed over
    assert source._corpus_folder() == tmp_path
    with pytest.raises(DataError, match=f"missing file {tmp_path}.*course.py data"):
        source._read_corpus_file(SCORES)


def test_the_command_fills_the_folder_the_variable_names(tmp_path, server, monkeypatch, capsys):
    url, _ = server
    monkeypatch.setenv(source._VARIABLE, str(tmp_path / "class copy"))
    monkeypatch.setattr(source._COPY, "cache_folder", lambda: tmp_path / "cache")
    assert source._main(["--base-url", url]) == 0
    assert_whole_copy(tmp_path / "class copy")
    assert not (tmp_path / "cache").exists()
    assert f"{len(MANIFEST)} files fetched" in capsys.readouterr().out
