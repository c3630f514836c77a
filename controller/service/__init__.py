"""The running table: the core (``core``, wired from ``clock``, ``durability``,
``health_timing``, ``outgoing``, ``recorder`` and ``rebuild``, opened by ``opening``), the
journal and its seq mark, the MQTT link and its connection, the configuration, systemd, and
the asyncio shell (``shell.Service``)."""
