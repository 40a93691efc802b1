"""Context engines: the base class every engine derives from and the summary interface."""
