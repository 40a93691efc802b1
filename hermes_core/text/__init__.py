"""Text handling shared by the core: scanning rules, decoding, context of a match."""
