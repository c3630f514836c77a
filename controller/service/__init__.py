"""The running table: the core (clock, durability, rebuild), the journal, the MQTT link and its
connection, the configuration, systemd, and the asyncio shell (``shell.Service``) around them."""
