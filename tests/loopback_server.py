"""A throw-away HTTP server on 127.0.0.1 for the download tests (a corpus copy served in its
public repository's layout): nothing leaves the machine, and its shutdown has a time limit."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from http.server import ThreadingHTTPServer

TIMEOUT_S = 5.0


@contextmanager
def serving(handler):
    """The base URL of a fresh server whose requests ``handler`` answers, while the block runs."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(TIMEOUT_S)
