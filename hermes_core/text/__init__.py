"""Helpers for plugin authors that work on text and message lists: API validity, token
estimates, secret redaction, injection scanning, safe file reads, JSON depth limits."""
