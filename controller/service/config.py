"""The service's configuration: one TOML file, validated by pydantic; flags override it.

``load(path, overrides)`` returns a ``Config`` or raises ``ConfigError`` naming the key, the
value and why (``mqtt.keepalive = 'soon': Input should be a valid integer``). Every setting
is documented in ``deploy/controller.example.toml``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from controller.errors import ControllerError
from controller.pipeline.fusion import FusionConfig, fusion_config
from controller.pipeline.requests import GameId
from controller.service.connection import HIDDEN, Broker, parse_broker, read_password, redact

Id = Annotated[str, Field(pattern=r"^[a-z0-9_-]+$")]


class ConfigError(ControllerError, ValueError):
    """A configuration the service cannot run with; the message names the key and why."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TlsConfig(_Section):
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    insecure: bool = False


class MqttConfig(_Section):
    url: str = "mqtt://localhost:1883"
    username: str | None = None
    password: str | None = None
    password_file: Path | None = None
    client_id: str | None = None
    protocol: Literal["auto", "5", "3.1.1"] = "auto"
    keepalive: Annotated[int, Field(ge=5, le=3600)] = 30
    event_expiry_s: Annotated[int, Field(ge=0)] = 3600
    response_expiry_s: Annotated[int, Field(ge=0)] = 300
    reconnect_min_s: Annotated[float, Field(gt=0)] = 0.5
    reconnect_max_s: Annotated[float, Field(gt=0)] = 30.0
    outbox_max: Annotated[int, Field(ge=100)] = 20000
    tls: TlsConfig = Field(default_factory=TlsConfig)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        parse_broker(value)  # raises BadBrokerUrl (a ValueError) without the password
        return value


class JournalConfig(_Section):
    commit_interval_ms: Annotated[float, Field(ge=0, le=1000)] = 0.0
    sync: Literal["full", "normal"] = "full"


class RecordingConfig(_Section):
    enabled: bool = True
    max_mb: Annotated[float, Field(gt=0)] = 32.0
    keep: Annotated[int, Field(ge=1)] = 50
    #: All trace files together stay under this (MB): the oldest go first.
    total_mb: Annotated[float, Field(gt=0)] = 256.0


class HealthSection(_Section):
    publish_interval_s: Annotated[float, Field(gt=0)] = 60.0
    tick_s: Annotated[float, Field(gt=0)] = 0.5


class SimConfig(_Section):
    trace: Path | None = None
    game: GameId = "ten-ball"
    shots: Annotated[int, Field(ge=1)] = 60
    seed: int = 1
    players: Annotated[int, Field(ge=2, le=4)] = 2
    noise: bool = False
    speed: Annotated[float, Field(gt=0, le=1000)] = 1.0
    loop: bool = True


class GpioConfig(_Section):
    pins: dict[str, int | str] = Field(default_factory=dict)
    #: Channels whose sensor drives the opposite level of the usual wiring (``hardware.gpio``).
    invert: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _inverted_have_pins(self) -> GpioConfig:
        unknown = [ch for ch in self.invert if ch not in self.pins]
        if unknown:
            raise ValueError(f"invert names channels with no pin: {', '.join(unknown)}")
        return self


class SerialConfig(_Section):
    ports: list[str] = Field(default_factory=list)
    #: Channels whose sensor drives its pin low while it reads 1 (``firmware_bridge.link``).
    invert: list[str] = Field(default_factory=list)


class WebSection(_Section):
    enabled: bool = True
    host: str = "0.0.0.0"
    port: Annotated[int, Field(ge=0, le=65535)] = 8080
    broker_ws: str = "ws://{host}:9001"
    dashboard_username: str | None = None
    dashboard_password: str | None = None
    referee_username: str | None = None


class Config(_Section):
    venue: Id = "club"
    table: Id = "t1"
    prefix: Annotated[str, Field(pattern=r"^[A-Za-z0-9_/-]+$")] = "billiards"
    # None: not configured yet (a fresh install): the service waits, referees nothing
    backend: Literal["sim", "gpio", "serial"] | None = None
    data: Path = Path("/var/lib/billiards-controller")
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    language: Literal["en", "ru"] = "en"
    mqtt: MqttConfig = Field(default_factory=MqttConfig)
    journal: JournalConfig = Field(default_factory=JournalConfig)
    recording: RecordingConfig = Field(default_factory=RecordingConfig)
    health: HealthSection = Field(default_factory=HealthSection)
    fusion: dict[str, Any] = Field(default_factory=dict)
    sim: SimConfig = Field(default_factory=SimConfig)
    gpio: GpioConfig = Field(default_factory=GpioConfig)
    serial: SerialConfig = Field(default_factory=SerialConfig)
    web: WebSection = Field(default_factory=WebSection)

    @field_validator("fusion")
    @classmethod
    def _fusion(cls, value: dict[str, Any]) -> dict[str, Any]:
        fusion_config(value)  # raises ValueError naming the setting
        return value

    @property
    def base(self) -> str:
        """Returns the base topic ``B``."""
        return f"{self.prefix}/{self.venue}/{self.table}"

    def fusion_settings(self) -> FusionConfig:
        return fusion_config(self.fusion)

    def broker(self) -> Broker:
        """Returns where and how to connect: credentials in the URL win over the keys; without
        a password there or in ``mqtt.password``, the one in ``mqtt.password_file`` or in the
        systemd credential ``mqtt-password``. Raises ConfigError if that file cannot be read."""
        password = self.mqtt.password
        if password is None:
            try:
                password = read_password(self.mqtt.password_file)
            except OSError as exc:
                raise ConfigError(f"mqtt.password_file = '{self.mqtt.password_file}': cannot "
                                  f"read: {exc.strerror}") from None
        return parse_broker(self.mqtt.url, self.mqtt.username, password)


def _where(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc)


def _value_at(raw: dict[str, Any], loc: tuple[int | str, ...]) -> Any:
    """Returns the value at ``loc`` as an error may show it: a password hidden."""
    node: Any = raw
    for part in loc:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return "(missing)"
    if any("password" in str(part) for part in loc):
        return HIDDEN
    return redact(node) if isinstance(node, str) else node


def validate(raw: dict[str, Any], source: str = "config") -> Config:
    """Returns the configuration ``raw`` describes; raises ConfigError naming key, value, why."""
    try:
        return Config.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            why = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                why = "unknown setting"
            problems.append(f"{_where(loc)} = {_value_at(raw, loc)!r}: {why}")
        raise ConfigError(f"{source}: " + "; ".join(problems)) from None


def load(path: str | Path | None, overrides: dict[str, Any] | None = None) -> Config:
    """Reads the TOML file (none: defaults), applies ``overrides`` (dotted keys), validates.

    Raises ConfigError for a file that cannot be read or parsed, or a bad setting.
    """
    raw: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        source = str(path)
        try:
            with open(path, "rb") as f:
                raw = tomllib.load(f)
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        node = raw
        *parents, last = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return validate(raw, source)
