"""Memory: the provider base class, the manager that runs the providers, recall fencing."""
