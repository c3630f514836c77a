"""The controller's errors: one root, each class also the builtin it is a kind of.

    ControllerError                           root of everything the controller raises
    ├── BadRequest (ValueError)               controller.pipeline.requests: a request refused as it is
    ├── CatalogueError (ValueError)           controller.words.catalogue: no words, or not all, for a language
    ├── ConfigError (ValueError)              controller.service.config: a configuration that cannot run
    ├── JournalError (OSError)                controller.service.journal: the journal cannot be opened or kept
    ├── MosquittoError (RuntimeError)         controller.sim.broker: the bundled broker did not start
    ├── ShotStateError (RuntimeError)         controller.pipeline.fusion.shots: a move with no transition
    └── MqttLinkError                         controller.service.mqtt: the link to the broker
        ├── BrokerRefused (ConnectionError)   the broker refused the service's credentials
        └── UntrustedBroker (ConnectionError) its TLS certificate did not verify

Each class lives beside the code that raises it; this module holds the root, so that every
module can derive from it without importing another's.
"""

from __future__ import annotations


class ControllerError(Exception):
    """Root of the controller's errors."""
