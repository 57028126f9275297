"""The kernel client every notebook run of the course's tools and tests uses (through nbclient).

    from kernel_client import notebook_client      # tools/ on sys.path
    notebook_client(nb, timeout=300, kernel_name="python3", ...).execute()

``notebook_client`` is ``nbclient.NotebookClient`` with :class:`KernelManager`, whose client
cannot miss a reply on a channel it also sends on (issue 19, the "kernel stall"):

nbclient waits for a cell's ``execute_reply`` by awaiting a poll of the shell socket, a
``zmq.asyncio`` socket, whose event-loop wake-up is libzmq's edge-triggered ``ZMQ_FD``. While it
waits, it also *sends* on that socket: its stand-in for a front end's Output widget returns the
widget's new state to the kernel (a ``comm_msg``) for every output an explorer draws into it.
jupyter_client's ``Session.send`` writes through a plain, blocking shadow of the asyncio socket,
so pyzmq's asyncio layer never learns of the send; when the kernel's reply has just reached
libzmq, that send takes the socket's wake-up with it (the file descriptor is no longer readable)
and nothing re-checks. The reply then sits in the client's own socket while the client sleeps in
epoll and the kernel, having answered, sits idle, until the wait's timeout, whose final
non-blocking poll finds the reply and carries on as if nothing happened: the 240, 300 and 600 s
stalls that ended without an error. ``tools/kernel_stress.py`` shows it (``--unpatched``).

The fix is libzmq's own rule: after sending on a socket whose file descriptor you wait on, look
at ``ZMQ_EVENTS`` again. Reading it through the asyncio socket makes pyzmq wake the waiting poll
when a message is there. The kernel (ipykernel: it had sent its reply), the ports (each kernel's
are held by it and its own client only) and the two test runs side by side are not the cause:
one process running one kernel at a time stalls too.
"""

from __future__ import annotations

import typing as t

import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from traitlets import Type, default


class RearmingChannel(AsyncZMQSocketChannel):
    """A request channel (shell, control, stdin) that re-checks its socket after every send."""

    def send(self, msg: dict[str, t.Any]) -> None:
        super().send(msg)  # through a blocking shadow of the socket (jupyter_client's Session)
        if self.socket is not None:
            # pyzmq's asyncio socket schedules its waiting recv/poll when this shows a message.
            self.socket.get(zmq.EVENTS)


class KernelClient(AsyncKernelClient):
    """nbclient's asynchronous kernel client, with :class:`RearmingChannel` request channels."""

    shell_channel_class = Type(RearmingChannel)
    control_channel_class = Type(RearmingChannel)
    stdin_channel_class = Type(RearmingChannel)


class KernelManager(AsyncKernelManager):
    """nbclient's kernel manager, handing out :class:`KernelClient`."""

    @default("client_factory")
    def _client_factory_default(self) -> type:
        return KernelClient


def notebook_client(nb, **kwargs):
    """``nbclient.NotebookClient(nb, **kwargs)`` with :class:`KernelManager`."""
    from nbclient import NotebookClient

    return NotebookClient(nb, kernel_manager_class=KernelManager, **kwargs)
