"""The service's configuration: one TOML file, validated by pydantic; flags override it.

``load_controller_config(path, overrides)`` returns a ``Config`` or raises ``ConfigError``
naming the key, the value and why (``mqtt.keepalive = 'soon': Input should be a valid
integer``). Every setting is documented in ``deploy/controller.example.toml``. A configuration
that would blind the table is refused here, before anything starts: an unknown channel, a pin
that is no GPIO (a header pin number where a BCM number is expected gets a hint) or used
twice, a name in ``invert`` with no pin, a fusion timing out of its range (in seconds:
``min_block_s = 5`` is five seconds). ``ready(config)`` (``run`` and ``check``) refuses,
further, a table that would not see what the game needs: every pocket's beam and every cushion
sensor wired, or declared absent in ``[fusion] absent`` (then the referee is asked what it
would have told).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from controller.errors import ControllerError
from controller.pipeline.fusion import FusionConfig, fusion_config
from controller.pipeline.requests import GameId
from controller.service.clock import HOLD_S
from controller.service.pins import bcm
from controller.wire.connection import HIDDEN, Broker, parse_broker, read_password, redact
from controller.words.texts import Language
from rules.games import default_game
from vocabulary import POCKET_OF_BEAM, RAIL_OF_CUSHION, ChannelError, Kind, parse_channel

Id = Annotated[str, Field(pattern=r"^[a-z0-9_-]+$")]


class ConfigError(ControllerError, ValueError):
    """A configuration the service cannot run with; the message names the key and why."""


class KeyProblem(ValueError):
    """A setting refused, naming the exact key (``gpio.pins."beam.fl"``) and its value."""

    def __init__(self, key: str, value: Any, why: str) -> None:
        super().__init__(f"{key} = {value!r}: {why}")
        self.key, self.value, self.why = key, value, why


#: Each fusion timing's sensible range, in seconds (a value outside is a typo or a wrong unit).
TIMINGS: dict[str, tuple[float, float]] = {
    "noise_s": (0.0, 0.02), "min_block_s": (0.0005, 0.05), "cushion_gap_s": (0.005, 0.5),
    "cushion_max_on_s": (0.02, 5.0), "crosstalk_s": (0.0, 0.2), "quiet_s": (0.2, 30.0),
    "max_roll_s": (1.0, 120.0), "identity_min_s": (0.0, 10.0), "identity_max_s": (0.05, 30.0)}


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:g} ms" if seconds < 1 else f"{seconds:g} s"


def _check_timings(fusion: FusionConfig) -> None:
    """Raises KeyProblem for a fusion timing out of its range or out of step with another."""
    for key, (lo, hi) in TIMINGS.items():
        value = getattr(fusion, key)
        if not lo <= value <= hi:
            unit = (f"; it is in seconds: {value:g} ms would be {value / 1000:g}"
                    if value > hi and value / 1000 <= hi else "")
            raise KeyProblem(f"fusion.{key}", value, f"{_ms(value)} is outside {_ms(lo)}–{_ms(hi)}"
                                                     f"{unit}")
    if fusion.noise_s >= fusion.min_block_s:
        raise KeyProblem("fusion.noise_s", fusion.noise_s,
                         f"{_ms(fusion.noise_s)} is not below fusion.min_block_s = "
                         f"{fusion.min_block_s:g} ({_ms(fusion.min_block_s)}): every ball's "
                         "block would be taken for a glitch")
    if fusion.identity_min_s >= fusion.identity_max_s:
        raise KeyProblem("fusion.identity_min_s", fusion.identity_min_s,
                         f"{_ms(fusion.identity_min_s)} is not below fusion.identity_max_s = "
                         f"{fusion.identity_max_s:g} ({_ms(fusion.identity_max_s)})")


def _channel(key: str, channel: str, value: Any) -> Kind:
    """Returns the kind of ``channel``; raises KeyProblem naming ``key`` if there is none."""
    try:
        kind, _ = parse_channel(channel)
    except ChannelError:
        known = ", ".join([*POCKET_OF_BEAM, *RAIL_OF_CUSHION, "cue", "strike", "click"])
        raise KeyProblem(key, value, f"unknown channel {channel!r} (channels: {known})") from None
    return kind


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
    #: A second session for the referees' requests (``controller.service.referee``).
    referee_lane: bool = True
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
    #: The longest the table's clock holds for a sensor board that went down (seconds:
    #: ``controller.service.clock``); after it, the clock goes on without the board.
    board_hold_s: Annotated[float, Field(gt=0)] = HOLD_S


class SimConfig(_Section):
    trace: Path | None = None
    game: GameId = Field(default_factory=default_game)
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

    @field_validator("pins")
    @classmethod
    def _pins(cls, pins: dict[str, int | str]) -> dict[str, int | str]:
        """Every channel exists and is a pin; every pin is a GPIO, and no GPIO is used twice."""
        used: dict[int, str] = {}
        for channel, pin in pins.items():
            key = f'gpio.pins."{channel}"'
            if _channel(key, channel, pin) is Kind.BALL_ID:
                raise KeyProblem(key, pin, "the identity reader is a serial device, not a pin")
            try:
                gpio = bcm(pin)
            except ValueError as exc:
                raise KeyProblem(key, pin, str(exc)) from None
            if gpio in used:
                raise KeyProblem(key, pin, f"GPIO {gpio} is already \"{used[gpio]}\"'s pin: "
                                           "one pin cannot carry two sensors")
            used[gpio] = channel
        return pins

    @model_validator(mode="after")
    def _inverted_have_pins(self) -> GpioConfig:
        for channel in self.invert:
            _channel("gpio.invert", channel, self.invert)
        unknown = [ch for ch in self.invert if ch not in self.pins]
        if unknown:
            raise KeyProblem("gpio.invert", self.invert,
                             f"invert names channels with no pin: {', '.join(unknown)}")
        return self


class SerialConfig(_Section):
    ports: list[str] = Field(default_factory=list)
    #: Channels whose sensor drives its pin low while it reads 1 (``firmware_bridge.link``).
    invert: list[str] = Field(default_factory=list)
    #: Channels the boards read with a piezo on an ADC pin (``click``: off in the firmware until
    #: one is wired and protected); ``commission`` switches them on, and the board keeps it.
    piezo: list[str] = Field(default_factory=list)

    @field_validator("invert")
    @classmethod
    def _invert(cls, invert: list[str]) -> list[str]:
        for channel in invert:
            _channel("serial.invert", channel, invert)
        return invert

    @field_validator("piezo")
    @classmethod
    def _piezo(cls, piezo: list[str]) -> list[str]:
        for channel in piezo:
            _channel("serial.piezo", channel, piezo)
        return piezo


class WebSection(_Section):
    enabled: bool = True
    host: str = "0.0.0.0"
    port: Annotated[int, Field(ge=0, le=65535)] = 8080
    broker_ws: str = "ws://{host}:9001"
    dashboard_username: str | None = None
    dashboard_password: str | None = None
    referee_username: str | None = None
    #: The pages' address as a phone reaches it (the TV wall's QR codes hold it).
    public_url: Annotated[str, Field(pattern=r"^https?://[^\s]+$")] | None = None


class Config(_Section):
    venue: Id = "club"
    table: Id = "t1"
    prefix: Annotated[str, Field(pattern=r"^[A-Za-z0-9_/-]+$")] = "billiards"
    # None: not configured yet (a fresh install): the service waits, referees nothing
    backend: Literal["sim", "gpio", "serial"] | None = None
    data: Path = Path("/var/lib/billiards-controller")
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    language: Language = "en"  # one catalogue of words each (controller.words.catalogue)
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
        _check_timings(fusion_config(value))  # raises ValueError naming the setting
        return value

    @model_validator(mode="after")
    def _absent_not_wired(self) -> Config:
        fusion = self.fusion_settings()
        wired = [ch for ch in fusion.absent if ch in self.gpio.pins]
        if wired and self.backend == "gpio":
            raise KeyProblem("fusion.absent", list(fusion.absent),
                             f"{', '.join(wired)} cannot be absent and wired in [gpio.pins]")
        return self

    @property
    def base(self) -> str:
        """Returns the base topic ``B``."""
        return f"{self.prefix}/{self.venue}/{self.table}"

    def fusion_settings(self) -> FusionConfig:
        """Returns fusion's settings: ``[fusion]``; a table the simulator plays (``backend =
        "sim"`` with no ``sim.trace``) has the cue-ball detector the simulator's table has
        (``controller.sim.simulator``) unless ``[fusion]`` says otherwise, so that the table
        asks what the simulated referee answers (without it, the first shot's "was it the cue
        ball?" is a question the simulated referee never heard, and its answers go to
        questions the table did not ask: the table waits for ever)."""
        if self.backend == "sim" and self.sim.trace is None:
            return fusion_config({"cue_detector": True, **self.fusion})
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
            cause = err.get("ctx", {}).get("error")
            if isinstance(cause, KeyProblem):  # it names its key itself
                problems.append(str(cause))
                continue
            why = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                why = "unknown setting"
            problems.append(f"{_where(loc)} = {_value_at(raw, loc)!r}: {why}")
        raise ConfigError(f"{source}: " + "; ".join(problems)) from None


def load_controller_config(path: str | Path | None, overrides: dict[str, Any] | None = None) -> Config:
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


#: The channels every game needs: a beam in each pocket, a sensor on each cushion.
NEEDED: tuple[str, ...] = (*POCKET_OF_BEAM, *RAIL_OF_CUSHION)


def needed(config: Config) -> list[str]:
    """Returns the channels of ``NEEDED`` this table must see: all but those declared absent
    (and, with ``cushion_sensors = false``, the cushion sensors)."""
    fusion = config.fusion_settings()
    return [ch for ch in NEEDED if ch not in fusion.absent
            and (fusion.cushion_sensors or ch not in RAIL_OF_CUSHION)]


def unseen(config: Config) -> list[str]:
    """Returns the problems of a table that would not see what the game needs: each channel
    of ``NEEDED`` the GPIO backend is given no pin for, and that ``[fusion] absent`` does not
    declare missing (with ``cushion_sensors = false``, no cushion channel is needed). The
    serial boards' channels are what they announce (``python -m controller check``)."""
    if config.backend != "gpio":
        return []
    missing = [ch for ch in needed(config) if ch not in config.gpio.pins]
    return [f'gpio.pins: {ch} has no pin: wire it ("{ch}" = its BCM number) or declare it '
            f'absent ([fusion] absent = ["{ch}"]: the referee is then asked what it would '
            "have told)" for ch in missing]


def ready(config: Config, source: str = "config") -> Config:
    """Returns ``config`` if a table can run on it (``run``, ``check``); raises ConfigError
    naming each channel the game needs that is neither wired nor declared absent, a
    hardware backend with nothing to read, or a password file that cannot be read."""
    if config.backend == "gpio" and not config.gpio.pins:
        problems = ["gpio.pins: the gpio backend needs at least one channel = pin"]
    elif config.backend == "serial" and not config.serial.ports:
        problems = ["serial.ports: the serial backend needs at least one port"]
    else:
        problems = unseen(config)
    if problems:
        raise ConfigError(f"{source}: " + "; ".join(problems))
    config.broker()  # a password file that cannot be read: raises ConfigError naming it
    return config
