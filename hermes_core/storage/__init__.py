"""Shared storage plumbing for the ``storage:`` setting (files or PostgreSQL).

This package lives in the core, not under ``plugins/``, because three independent users
need the same pool, schema versioning and locks: the built-in memory provider, the LCM
engine (a separate distribution) and the ``hermes-core storage`` command. Plugins may only
use public core API, so the plumbing must be public core API.

Nothing here imports psycopg at import time: the ``postgres`` extra is optional, and the
files backend never needs it.
"""
