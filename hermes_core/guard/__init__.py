"""Isolation and time bounds for plugin code, applied at each implementation.

The lowest layer of the host: it knows nothing of engines, providers or pluggy. The
plugin layer wraps every general plugin's hookimpls and every engine/provider bridge in a
:class:`Guard`, so a raising, hanging or exiting implementation costs at most its bound
and never reorders or stops the others.
"""

from hermes_core.guard.bounds import DEFAULT_BOUNDS, Bounds
from hermes_core.guard.isolation import Guard, deep_copy, real_interrupt
from hermes_core.guard.pool import WorkerPool, shared_pool
from hermes_core.guard.worker import OrderedWorker, PendingCall

__all__ = [
    "DEFAULT_BOUNDS", "Bounds", "Guard", "OrderedWorker", "PendingCall", "WorkerPool", "deep_copy", "real_interrupt",
    "shared_pool",
]
