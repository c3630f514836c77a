"""The only package that wires things together: fusion, the service, MQTT, journal, CLI."""
