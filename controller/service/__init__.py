"""The running table: the core (``core``, wired from ``clock``, ``durability``,
``health_timing``, ``inputlog``, ``delivery`` and ``rebuild``, opened by ``opening``), the
journal (its sync ``walsync``, its seq mark ``seqmark``, its ``published`` log), the MQTT link
(``mqtt``: its request ``intake``, the ``outbox`` it drains) and its connection, the
configuration, systemd, and the asyncio shell (``shell.Service``)."""
