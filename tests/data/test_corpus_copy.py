"""A corpus of thousands of small files fetched as a user meets it (course_lib.data._corpus_copy,
with FSDD's 3,002 files): a loopback server (127.0.0.1 only) serves the copy this run reads in
the layout of the dataset's public repository (<commit>/<path>, its README under its own name).
The resumable download of one large file, cut short or damaged, is tested with speechocean762
(tests/data/test_speechocean762_source.py); every wait has a time limit."""

from __future__ import annotations

import io
from http.server import BaseHTTPRequestHandler

import pytest
from loopback_server import serving

from course_lib.data import DataError
from course_lib.data import fsdd

TIMEOUT_S = 5.0
COPY = fsdd._COPY.folder()
MANIFEST = fsdd._COPY.manifest()
# the repository's path of each file of the copy
BY_PATH = {fsdd._address("", name).split("/", 2)[2]: name for name in MANIFEST}


class ReleaseServer(BaseHTTPRequestHandler):
    requests: list[str] = []
    damaged: set[str] = set()

    def do_GET(self):  # noqa: N802 (http.server's name)
        commit, _, path = self.path.lstrip("/").partition("/")
        self.requests.append(path)
        if commit != fsdd._COMMIT or path not in BY_PATH:
            self.send_error(404)
            return
        body = (COPY / BY_PATH[path]).read_bytes()
        if path in self.damaged:
            body = body[:-1] + bytes([body[-1] ^ 1])
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    ReleaseServer.requests, ReleaseServer.damaged = [], set()
    with serving(ReleaseServer) as url:
        yield url, ReleaseServer


def test_the_release_is_fetched_checked_with_few_progress_lines_and_only_once(
        tmp_path, server, monkeypatch):
    # one speaker's 500 recordings and the two text files: the whole release is 25 s of requests
    part = {name: digest for name, digest in MANIFEST.items()
            if "recordings" not in name or "_george_" in name}
    monkeypatch.setattr(fsdd._COPY, "manifest", lambda: part)
    url, handler = server
    out = io.StringIO()
    assert len(fsdd._COPY.fetch(tmp_path, url, timeout=TIMEOUT_S, out=out)) == len(part) == 502
    assert sorted(handler.requests) == sorted(fsdd._address("", n).split("/", 2)[2] for n in part)
    assert "README.md" in handler.requests
    lines = out.getvalue().splitlines()
    # off a terminal, one line per 250 files and one for the last: not one per file
    assert len(lines) == len(part) // 250 + 1
    assert lines[-1].startswith(f"[{len(part)}/{len(part)}] ")
    monkeypatch.delenv(fsdd._VARIABLE, raising=False)
    monkeypatch.setattr(fsdd._COPY, "cache_folder", lambda: tmp_path)
    assert fsdd._COPY.folder() == tmp_path
    handler.requests.clear()
    assert fsdd._COPY.fetch(tmp_path, url, timeout=TIMEOUT_S, out=out) == []
    assert handler.requests == []
    assert len(fsdd.load_fsdd("george")) == 500       # the loader reads the filled cache


def test_a_damaged_file_is_refused_and_nothing_is_kept(tmp_path, server):
    url, handler = server
    handler.damaged.add("recordings/0_george_1.wav")
    with pytest.raises(DataError, match=r"0_george_1\.wav gave a file whose SHA-256 .* nothing "
                                        r"was kept"):
        fsdd._COPY.fetch(tmp_path, url, timeout=TIMEOUT_S, out=io.StringIO())
    name = "v1.0.10/recordings/0_george_1.wav"
    assert not (tmp_path / name).exists() and not (tmp_path / (name + ".part")).exists()


def test_without_a_copy_one_line_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.delenv(fsdd._VARIABLE, raising=False)
    monkeypatch.setattr(fsdd._COPY, "cache_folder", lambda: tmp_path)
    with pytest.raises(DataError, match=r"^The Free Spoken Digit Dataset's recordings are not on "
                                        r"this machine: run `python3 course.py data`.*COURSE_FSDD"):
        fsdd.fsdd_features("theo")
