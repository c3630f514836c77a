"""What crosses the broker, for every client of it: the table service, the venue recorder,
the adapters.

- ``connection``: connecting to the broker (its URL, credentials from a file, TLS, backoff),
  acknowledged reads and publishes over aiomqtt — the one pinned place that reaches into
  aiomqtt's private members, each citing its upstream issue;
- ``history``: the ``history_since`` exchange a table answers and the recorder asks (its
  request's name, an answer's size, the form a published message is recorded in).

It knows nothing of a table: the recorder and the adapters depend on it, not on the table's
service (an import-linter contract, pyproject.toml).
"""
