"""The plugin machinery: discovery, loading, registration, selection and the host."""
