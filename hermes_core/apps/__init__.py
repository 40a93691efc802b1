"""Applications built on the core: transcript replay, doctor, transcript loading."""
