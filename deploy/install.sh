#!/usr/bin/env bash
# Installs the billiards table controller on Raspberry Pi OS (Debian bookworm or newer;
# Raspberry Pi 3, 4, 5 and Zero 2 W). Safe to run again: it upgrades the software, keeps
# your configuration and data, and changes nothing that is already right.
#
#   sudo deploy/install.sh                  install or upgrade, enable the service
#   sudo deploy/install.sh --with-broker    also set up a venue Mosquitto (deploy/mosquitto)
#   sudo deploy/install.sh --uninstall      remove software, unit and udev rule; keep config and data
#   sudo deploy/install.sh --uninstall --purge   remove config, data and the system user too
#
#   deploy/install.sh --dry-run [--destdir DIR]
#       no root needed: writes the files into DIR (default: a new temporary directory) and
#       prints each system command (apt-get, useradd, pip, systemctl, udevadm) instead of
#       running it.
#
# Layout: /opt/billiards-controller/venv (the software), /etc/billiards-controller
# (configuration), /var/lib/billiards-controller (journal, traces), user "billiards".

set -euo pipefail

APP_USER="billiards"
APP_DIR="/opt/billiards-controller"
CONF_DIR="/etc/billiards-controller"
DATA_DIR="/var/lib/billiards-controller"
UNIT_DIR="/etc/systemd/system"
UDEV_DIR="/etc/udev/rules.d"
MOSQ_DIR="/etc/mosquitto"
UNIT="billiards-controller.service"
ADAPTERS_UNIT="billiards-adapters.service"
RULES="99-billiards-boards.rules"
APT_PACKAGES=(python3 python3-venv python3-dev build-essential swig liblgpio-dev)

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOURCE="$(dirname "$HERE")"

DRY_RUN=0
DESTDIR="${DESTDIR:-}"
UNINSTALL=0
PURGE=0
WITH_BROKER=0
NO_APT=0

usage() {
    sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

say() { printf '==> %s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Runs a command that changes the system (or prints it in a dry run).
run() {
    if [[ $DRY_RUN -eq 1 ]]; then
        printf 'would run:'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

# The path of a system file inside DESTDIR.
dest() { printf '%s%s' "$DESTDIR" "$1"; }

# install(1) a file; owner/group only when really installing as root.
put() {
    local mode="$1" src="$2" dst="$3"
    mkdir -p "$(dirname "$(dest "$dst")")"
    if [[ -f "$(dest "$dst")" ]] && cmp -s "$src" "$(dest "$dst")"; then
        say "unchanged: $dst"
        return 0
    fi
    install -m "$mode" "$src" "$(dest "$dst")"
    say "installed: $dst"
}

# Installs a configuration file only if there is none yet: the venue's edits are kept.
put_config() {
    local src="$1" dst="$2"
    if [[ -e "$(dest "$dst")" ]]; then
        say "keeping existing $dst"
        return 0
    fi
    mkdir -p "$(dirname "$(dest "$dst")")"
    install -m 0640 "$src" "$(dest "$dst")"
    own "root:$APP_USER" "$dst"
    say "installed: $dst (edit it)"
}

# chown, only for a real install.
own() {
    local owner="$1" path="$2"
    if [[ $DRY_RUN -eq 0 && -z "$DESTDIR" ]]; then
        chown "$owner" "$path"
    fi
}

make_dir() {
    local mode="$1" owner="$2" dir="$3"
    if [[ ! -d "$(dest "$dir")" ]]; then
        mkdir -p "$(dest "$dir")"
        say "created: $dir"
    fi
    chmod "$mode" "$(dest "$dir")"
    own "$owner" "$dir"
}

parse_args() {
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --dry-run) DRY_RUN=1 ;;
            --destdir) [[ $# -ge 2 ]] || die "--destdir needs a directory"; DESTDIR="$2"; shift ;;
            --destdir=*) DESTDIR="${1#*=}" ;;
            --uninstall) UNINSTALL=1 ;;
            --purge) PURGE=1 ;;
            --with-broker) WITH_BROKER=1 ;;
            --no-apt) NO_APT=1 ;;
            --source) [[ $# -ge 2 ]] || die "--source needs a directory"; SOURCE="$2"; shift ;;
            -h|--help) usage; exit 0 ;;
            *) die "unknown option $1 (see --help)" ;;
        esac
        shift
    done
    if [[ $PURGE -eq 1 && $UNINSTALL -eq 0 ]]; then
        die "--purge goes with --uninstall"
    fi
    if [[ $DRY_RUN -eq 1 && -z "$DESTDIR" ]]; then
        DESTDIR="$(mktemp -d -t billiards-install.XXXXXX)"
    fi
    DESTDIR="${DESTDIR%/}"
    if [[ $DRY_RUN -eq 0 && -n "$DESTDIR" ]]; then
        die "--destdir only goes with --dry-run"
    fi
    if [[ $DRY_RUN -eq 0 && $EUID -ne 0 ]]; then
        die "run as root (sudo $0 $*), or try --dry-run"
    fi
}

check_platform() {
    local codename="" id="" model=""
    if [[ -r /etc/os-release ]]; then
        # shellcheck disable=SC1091
        codename="$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")"
        # shellcheck disable=SC1091
        id="$(. /etc/os-release && printf '%s' "${ID:-}")"
    fi
    case "$codename" in
        bookworm|trixie|forky|sid) ;;
        *) warn "made for Raspberry Pi OS / Debian bookworm or newer; this is ${id:-?} ${codename:-?}" ;;
    esac
    if [[ -r /proc/device-tree/model ]]; then
        model="$(tr -d '\0' < /proc/device-tree/model)"
    fi
    case "$model" in
        *"Raspberry Pi 5"*|*"Raspberry Pi 4"*|*"Raspberry Pi 3"*|*"Raspberry Pi Zero 2"*|*"Compute Module"*)
            say "board: $model" ;;
        "") warn "not a Raspberry Pi (no device-tree model): GPIO will not be available" ;;
        *) warn "untested board: $model" ;;
    esac
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
        || warn "python3 is older than 3.11 (or missing); the controller needs 3.11+"
    [[ -f "$SOURCE/pyproject.toml" ]] || die "no pyproject.toml in $SOURCE (use --source DIR)"
}

install_packages() {
    if [[ $NO_APT -eq 1 ]]; then
        say "skipping apt-get (--no-apt)"
        return 0
    fi
    run apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
}

create_user() {
    if id "$APP_USER" >/dev/null 2>&1 && [[ -z "$DESTDIR" ]]; then
        say "user $APP_USER exists"
    else
        run useradd --system --user-group --home-dir "$DATA_DIR" --no-create-home \
            --shell /usr/sbin/nologin --comment "billiards table controller" "$APP_USER"
    fi
    local group
    for group in gpio dialout; do
        if getent group "$group" >/dev/null 2>&1 || [[ $DRY_RUN -eq 1 ]]; then
            run usermod --append --groups "$group" "$APP_USER"
        else
            warn "no group $group on this system"
        fi
    done
}

install_software() {
    make_dir 0755 root:root "$APP_DIR"
    if [[ $DRY_RUN -eq 1 ]]; then
        printf 'would run: python3 -m venv %s/venv\n' "$APP_DIR"
        printf 'would run: %s/venv/bin/pip install --upgrade pip\n' "$APP_DIR"
        printf 'would run: %s/venv/bin/pip install --upgrade %s[pi]\n' "$APP_DIR" "$SOURCE"
        return 0
    fi
    if [[ ! -x "$APP_DIR/venv/bin/python" ]]; then
        python3 -m venv "$APP_DIR/venv"
        say "created: $APP_DIR/venv"
    fi
    "$APP_DIR/venv/bin/pip" install --quiet --upgrade pip
    "$APP_DIR/venv/bin/pip" install --quiet --upgrade "${SOURCE}[pi]"
    install -m 0644 "$HERE/README.md" "$APP_DIR/README.md"
    say "installed: $("$APP_DIR/venv/bin/python" -m pip show billiards-table-controller | sed -n 's/^Version: /billiards-table-controller /p')"
}

install_files() {
    make_dir 0750 "root:$APP_USER" "$CONF_DIR"
    make_dir 0750 "$APP_USER:$APP_USER" "$DATA_DIR"
    if [[ -f "$HERE/controller.example.toml" ]]; then
        put 0644 "$HERE/controller.example.toml" "$CONF_DIR/controller.example.toml"
        if [[ ! -e "$(dest "$CONF_DIR/controller.toml")" ]]; then
            put_config "$HERE/controller.example.toml" "$CONF_DIR/controller.toml"
            # the data directory of this layout (the unit passes it with --data as well)
            sed -i "s|^data = .*|data = \"$DATA_DIR\"|" "$(dest "$CONF_DIR/controller.toml")"
        else
            say "keeping existing $CONF_DIR/controller.toml"
        fi
    else
        warn "deploy/controller.example.toml is missing: write $CONF_DIR/controller.toml yourself"
    fi
    put 0644 "$HERE/adapters.example.toml" "$CONF_DIR/adapters.example.toml"
    put 0644 "$HERE/$UNIT" "$UNIT_DIR/$UNIT"
    put 0644 "$HERE/$ADAPTERS_UNIT" "$UNIT_DIR/$ADAPTERS_UNIT"
    put 0644 "$HERE/$RULES" "$UDEV_DIR/$RULES"
    run udevadm control --reload-rules
    run udevadm trigger --subsystem-match=tty --action=change
}

install_broker() {
    [[ $WITH_BROKER -eq 1 ]] || return 0
    if [[ $NO_APT -eq 0 ]]; then
        run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mosquitto mosquitto-clients openssl
    fi
    put 0644 "$HERE/mosquitto/billiards.conf" "$MOSQ_DIR/conf.d/billiards.conf"
    put_config "$HERE/mosquitto/billiards.acl" "$MOSQ_DIR/billiards.acl"
    own root:mosquitto "$MOSQ_DIR/billiards.acl"
    if [[ ! -e "$(dest "$MOSQ_DIR/billiards.passwd")" ]]; then
        mkdir -p "$(dest "$MOSQ_DIR")"
        install -m 0640 /dev/null "$(dest "$MOSQ_DIR/billiards.passwd")"
        own root:mosquitto "$MOSQ_DIR/billiards.passwd"
        say "created: $MOSQ_DIR/billiards.passwd (add users: mosquitto_passwd $MOSQ_DIR/billiards.passwd NAME)"
    fi
    local certs="$MOSQ_DIR/certs"
    if [[ ! -e "$(dest "$certs/server.crt")" ]]; then
        make_dir 0750 root:mosquitto "$certs"
        self_signed_certificate "$(dest "$certs")"
    fi
    run systemctl enable mosquitto.service
    run systemctl restart mosquitto.service
}

# A venue CA and a server certificate for this host, until you bring your own.
self_signed_certificate() {
    local dir="$1" host
    host="$(hostname)"
    if [[ $DRY_RUN -eq 1 ]]; then
        printf 'would run: openssl (a CA and a server certificate for %s in %s)\n' "$host" "$dir"
        return 0
    fi
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
        -subj "/CN=billiards venue CA" -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -subj "/CN=$host" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:%s,DNS:%s.local,DNS:localhost,IP:127.0.0.1\n' "$host" "$host" > "$dir/ext.cnf"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
        -CAcreateserial -days 3650 -extfile "$dir/ext.cnf" -out "$dir/server.crt" 2>/dev/null
    chmod 0640 "$dir/server.key" "$dir/ca.key"
    chown root:mosquitto "$dir/server.key"
    say "created a self-signed CA ($dir/ca.crt: give it to clients) and a certificate for $host"
}

enable_service() {
    run systemctl daemon-reload
    run systemctl enable "$UNIT"
    if [[ -e "$(dest "$CONF_DIR/controller.toml")" ]]; then
        run systemctl restart "$UNIT"
    else
        warn "no $CONF_DIR/controller.toml: the service is enabled but not started"
    fi
}

uninstall() {
    say "uninstalling"
    run systemctl disable --now "$UNIT" "$ADAPTERS_UNIT"
    local f
    for f in "$UNIT_DIR/$UNIT" "$UNIT_DIR/$ADAPTERS_UNIT" "$UDEV_DIR/$RULES" \
             "$MOSQ_DIR/conf.d/billiards.conf"; do
        if [[ -e "$(dest "$f")" ]]; then
            rm -f "$(dest "$f")"
            say "removed: $f"
        fi
    done
    if [[ -d "$(dest "$APP_DIR")" ]]; then
        rm -rf "$(dest "$APP_DIR")"
        say "removed: $APP_DIR"
    fi
    run systemctl daemon-reload
    run udevadm control --reload-rules
    if [[ $PURGE -eq 1 ]]; then
        for f in "$CONF_DIR" "$DATA_DIR"; do
            if [[ -d "$(dest "$f")" ]]; then
                rm -rf "$(dest "$f")"
                say "removed: $f"
            fi
        done
        if id "$APP_USER" >/dev/null 2>&1 || [[ $DRY_RUN -eq 1 ]]; then
            run userdel "$APP_USER"
        fi
        say "the broker's $MOSQ_DIR/billiards.acl, billiards.passwd and certs/ are left in place"
    else
        say "kept $CONF_DIR and $DATA_DIR (remove them with --uninstall --purge)"
    fi
}

main() {
    parse_args "$@"
    if [[ $DRY_RUN -eq 1 ]]; then
        say "dry run: files go to $DESTDIR, system commands are only printed"
    fi
    if [[ $UNINSTALL -eq 1 ]]; then
        uninstall
        return 0
    fi
    check_platform
    install_packages
    create_user
    install_software
    install_files
    install_broker
    enable_service
    say "done. Logs: journalctl -u $UNIT -f"
}

main "$@"
