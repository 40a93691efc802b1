"""Configuration: the models, loading and validation, one-time migrations, paths."""
