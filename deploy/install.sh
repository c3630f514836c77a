#!/usr/bin/env bash
# Installs the billiards table controller on Raspberry Pi OS or Debian (bookworm or newer;
# Raspberry Pi 3, 4, 5 and Zero 2 W). Safe to run again: it upgrades the software, keeps
# your configuration and data, and changes nothing that is already right. It never
# upgrades pip, and never restarts a running service (a match may be on) unless asked.
#
#   sudo deploy/install.sh                  install or upgrade, enable the service
#   sudo deploy/install.sh --with-broker    also set up the venue brokers (deploy/mosquitto)
#   sudo deploy/install.sh --with-recorder  also enable and start the venue recorder
#   sudo deploy/install.sh --restart        restart the running service after an upgrade
#   sudo deploy/install.sh --no-apt         install no system packages (offline, or done already)
#   sudo deploy/install.sh --wheels DIR     install the software from a wheelhouse, offline
#   sudo deploy/install.sh --uninstall      remove software, units and udev rule; keep config and data
#   sudo deploy/install.sh --uninstall --purge   remove config, data and the system user too
#
#   deploy/install.sh --dry-run [--destdir DIR] [options]
#       no root needed: writes the files into DIR (default: a new temporary directory) and
#       prints each system command (apt-get, useradd, pip, systemctl, udevadm) instead of
#       running it.
#
# Layout: /opt/billiards-controller/venv (the software), /etc/billiards-controller
# (configuration), /var/lib/billiards-controller (journal, traces), user "billiards".
# A wheelhouse for --wheels: on a machine with the Internet and the same Python and CPU,
#   python3 -m pip wheel --wheel-dir wheels '.[pi]'

set -Eeuo pipefail

APP_USER="billiards"
APP_DIR="/opt/billiards-controller"
CONF_DIR="/etc/billiards-controller"
DATA_DIR="/var/lib/billiards-controller"
UNIT_DIR="/etc/systemd/system"
UDEV_DIR="/etc/udev/rules.d"
MOSQ_DIR="/etc/mosquitto"
UNIT="billiards-controller.service"
ADAPTERS_UNIT="billiards-adapters.service"
WEB_BROKER_UNIT="billiards-web-broker.service"
RECORDER_UNIT="billiards-recorder.service"
RULES="99-billiards-boards.rules"
APT_PACKAGES=(python3 python3-venv python3-dev build-essential swig liblgpio-dev)

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOURCE="$(dirname "$HERE")"

DRY_RUN=0
DESTDIR="${DESTDIR:-}"
UNINSTALL=0
PURGE=0
WITH_BROKER=0
WITH_RECORDER=0
NO_APT=0
RESTART=0
WHEELS=""
CHANGED=0  # set by put(): a file was installed or changed
READY=0  # set by check_install(): the table is ready (the service may start)
STEP="starting"  # what the script is doing, for the message when a step fails
RUNNING="" RUNNING_LINE=""  # the system command run() runs, and the line that asked for it

# A command that fails ends the script (set -e): say which step, which line and which
# command, and that the steps after it were not done (set -e alone ends it without a word).
failed() {
    local status="$1" line="$2" command="$3"
    [[ $BASHPID -eq $$ ]] || return 0  # (a command substitution's failure: its caller says it)
    if [[ $command == '"$@"' ]]; then  # a system command run by run(): say it and its caller
        command="$RUNNING" line="$RUNNING_LINE"
    fi
    printf 'error: %s failed: line %s of %s, "%s" exited with status %s; the steps after it were not done\n' \
        "$STEP" "$line" "${BASH_SOURCE[0]}" "$command" "$status" >&2
}
trap 'failed "$?" "$LINENO" "$BASH_COMMAND"' ERR

# Names the step the script is now in (said when it fails).
step() { STEP="$1"; }

# The comment at the top of this file, up to its first line of code.
usage() {
    sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
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
        RUNNING="$*" RUNNING_LINE="${BASH_LINENO[0]}"
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
    CHANGED=1
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

# Creates an empty password file, root's and mode 0600, unless there is one: a unit's
# LoadCredential needs the file (systemd reads it as root and hands it to the service).
secret_file() {
    local path="$1" what="$2"
    [[ -e "$(dest "$path")" ]] && return 0
    mkdir -p "$(dirname "$(dest "$path")")"
    (umask 077 && : > "$(dest "$path")")
    own root:root "$path"
    say "created: $path (empty; $what)"
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
            --with-recorder) WITH_RECORDER=1 ;;
            --no-apt) NO_APT=1 ;;
            --restart) RESTART=1 ;;
            --wheels) [[ $# -ge 2 ]] || die "--wheels needs a directory"; WHEELS="$2"; shift ;;
            --wheels=*) WHEELS="${1#*=}" ;;
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
    if [[ -n "$WHEELS" ]]; then
        [[ -d "$WHEELS" ]] || die "--wheels $WHEELS: no such directory"
        WHEELS="$(cd "$WHEELS" && pwd)"
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

# Installs what apt has of APT_PACKAGES (plus "$@"); an apt-get update that fails (no
# network) or a package this system does not have is reported, and the install goes on.
install_packages() {
    if [[ $NO_APT -eq 1 ]]; then
        say "skipping apt-get (--no-apt): the system packages must be there already"
        return 0
    fi
    local wanted=("${APT_PACKAGES[@]}" "$@") available=() known pkg
    run apt-get update || warn "apt-get update failed (offline?): using the package lists already here"
    # the packages apt has a candidate version of (one "apt-cache policy" for all: it is slow)
    known=" $(apt-cache policy "${wanted[@]}" 2>/dev/null \
        | awk '/^[^ ].*:$/ {pkg = substr($0, 1, length($0) - 1)} /^  Candidate: [^(]/ {printf "%s ", pkg}')"
    for pkg in "${wanted[@]}"; do
        if [[ "$known" == *" $pkg "* ]]; then
            available+=("$pkg")
        else
            warn "skipping $pkg: this system's package lists do not have it"
        fi
    done
    [[ ${#available[@]} -gt 0 ]] || return 0
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${available[@]}" \
        || warn "apt-get install failed: install ${available[*]} yourself, or run again with a network"
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
        if ! getent group "$group" >/dev/null 2>&1; then
            # plain Debian has no gpio group: the unit's SupplementaryGroups needs one, and
            # our udev rule gives it the GPIO chips
            say "creating the group $group (this system has none)"
            run groupadd --system "$group"
        fi
        run usermod --append --groups "$group" "$APP_USER"
    done
}

install_software() {
    make_dir 0755 root:root "$APP_DIR"
    local pip=("$APP_DIR/venv/bin/pip" install --quiet --upgrade)
    local what=("${SOURCE}[pi]")
    if [[ -n "$WHEELS" ]]; then  # offline: only what the wheelhouse holds
        pip+=(--no-index --find-links "$WHEELS")
        what=("billiards-table-controller[pi]")
    fi
    if [[ $DRY_RUN -eq 1 ]]; then
        printf 'would run: python3 -m venv %s/venv\n' "$APP_DIR"
        printf 'would run:'; printf ' %q' "${pip[@]}" "${what[@]}"; printf '\n'
        return 0
    fi
    if [[ ! -x "$APP_DIR/venv/bin/python" ]]; then
        python3 -m venv "$APP_DIR/venv" || die "python3 -m venv failed: is python3-venv installed?"
        say "created: $APP_DIR/venv"
    fi
    if [[ -z "$WHEELS" ]]; then
        # setuptools builds in the source's build/: what an older tree left there (a module
        # since deleted) would go into the new install
        local stale
        for stale in "$SOURCE/build" "$SOURCE"/*.egg-info; do
            [[ -e "$stale" ]] || continue
            rm -rf "$stale" && say "removed the stale build output $stale"
        done
    fi
    local before after
    before="$(installed_version)"
    "${pip[@]}" "${what[@]}" || die "pip could not install the software${WHEELS:+ from $WHEELS}"
    install -m 0644 "$HERE/README.md" "$APP_DIR/README.md"
    after="$(installed_version)"
    if [[ -z "$before" ]]; then
        say "installed: billiards-table-controller $after (into $APP_DIR/venv)"
    elif [[ "$before" != "$after" ]]; then
        say "upgraded: billiards-table-controller $before -> $after"
    elif [[ -n "$WHEELS" ]]; then
        warn "nothing upgraded: the wheelhouse $WHEELS holds billiards-table-controller $after," \
             "the version already installed (build it again from the newer source)"
    else
        say "reinstalled: billiards-table-controller $after from $SOURCE (the same version)"
    fi
}

# Prints the installed package's version (nothing when it is not installed: pip show then
# exits 1, which is no failure here).
installed_version() {
    local shown
    shown="$("$APP_DIR/venv/bin/python" -m pip show billiards-table-controller 2>/dev/null)" \
        || return 0
    sed -n 's/^Version: //p' <<<"$shown"
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
    # empty: no password (or one in controller.toml)
    secret_file "$CONF_DIR/mqtt.password" "the broker password goes there"
    put 0644 "$HERE/adapters.example.toml" "$CONF_DIR/adapters.example.toml"
    put 0644 "$HERE/$UNIT" "$UNIT_DIR/$UNIT"
    put 0644 "$HERE/$ADAPTERS_UNIT" "$UNIT_DIR/$ADAPTERS_UNIT"
    # the venue recorder: installed on every machine, enabled on the one that records
    put 0644 "$HERE/$RECORDER_UNIT" "$UNIT_DIR/$RECORDER_UNIT"
    put 0644 "$HERE/recorder.example.env" "$CONF_DIR/recorder.example.env"
    put_config "$HERE/recorder.example.env" "$CONF_DIR/recorder.env"
    secret_file "$CONF_DIR/recorder.password" "the recorder's broker password goes there"
    secret_file "$CONF_DIR/recorder-store.password" \
        "the recorder's PostgreSQL password goes there; none for SQLite"
    secret_file "$CONF_DIR/recorder-director.password" \
        "the tournament director's password goes there; none: the director's actions refused"
    put 0644 "$HERE/$RULES" "$UDEV_DIR/$RULES"
    if systemd_running; then
        run udevadm control --reload-rules
        run udevadm trigger --subsystem-match=tty --action=change
    else
        say "systemd is not running here: the udev rule applies from the next boot"
    fi
}

install_broker() {
    [[ $WITH_BROKER -eq 1 ]] || return 0
    local certs="$MOSQ_DIR/certs" venue_changed web_changed
    CHANGED=0
    put 0644 "$HERE/mosquitto/billiards.conf" "$MOSQ_DIR/conf.d/billiards.conf"
    put_config "$HERE/mosquitto/billiards.acl" "$MOSQ_DIR/billiards.acl"
    own root:mosquitto "$MOSQ_DIR/billiards.acl"
    if [[ ! -e "$(dest "$MOSQ_DIR/billiards.passwd")" ]]; then
        mkdir -p "$(dest "$MOSQ_DIR")"
        install -m 0640 /dev/null "$(dest "$MOSQ_DIR/billiards.passwd")"
        own root:mosquitto "$MOSQ_DIR/billiards.passwd"
        say "created: $MOSQ_DIR/billiards.passwd (add users: mosquitto_passwd $MOSQ_DIR/billiards.passwd NAME)"
    fi
    if [[ ! -e "$(dest "$certs/server.crt")" ]]; then
        make_dir 0750 root:mosquitto "$certs"
        if [[ $DRY_RUN -eq 1 ]] && ! command -v openssl >/dev/null; then
            printf 'would run: %s %s\n' "$HERE/venue-certificates.sh" "$certs"
        else
            bash "$HERE/venue-certificates.sh" "$(dest "$certs")" \
                || die "could not make the venue's certificates"
            own root:mosquitto "$certs/server.key"
            say "created a venue CA ($certs/ca.crt: give it to TLS clients) and the broker's certificate"
        fi
        CHANGED=1
    fi
    venue_changed=$CHANGED
    CHANGED=0
    put 0644 "$HERE/mosquitto/billiards-web.conf" "$MOSQ_DIR/billiards-web.conf"
    put 0644 "$HERE/$WEB_BROKER_UNIT" "$UNIT_DIR/$WEB_BROKER_UNIT"
    web_bridge
    web_changed=$CHANGED
    run systemctl daemon-reload
    run systemctl enable mosquitto.service "$WEB_BROKER_UNIT"
    # listeners are read at start only; users and rights on reload (clients stay connected)
    if [[ $venue_changed -eq 1 ]]; then
        run systemctl restart mosquitto.service
    else
        run systemctl reload-or-restart mosquitto.service
    fi
    if [[ $web_changed -eq 1 ]]; then
        run systemctl restart "$WEB_BROKER_UNIT"
    else
        run systemctl reload-or-restart "$WEB_BROKER_UNIT"
    fi
}

# The browsers' broker's bridge file and its user "web", with a new password (again if the
# password file lost the user): the password goes into files only (bash's printf is no
# process: it is never in a command line), and those files into a directory only root may
# enter, beside the password file (never /tmp, where a file made with the usual umask is
# everyone's to read; mosquitto_passwd's own temporary file is private and unlinked).
web_bridge() {
    local conf="$MOSQ_DIR/billiards-web.d/bridge.conf" secret template work passwd
    if [[ -e "$(dest "$conf")" ]] && grep -q '^web:' "$(dest "$MOSQ_DIR/billiards.passwd")"; then
        say "keeping existing $conf"
        return 0
    fi
    secret="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
    template="$(<"$HERE/mosquitto/billiards-web-bridge.conf")"
    mkdir -p "$(dest "$MOSQ_DIR/billiards-web.d")"
    (umask 027 && printf '%s\n' "${template//@PASSWORD@/$secret}" > "$(dest "$conf")")
    own root:mosquitto "$MOSQ_DIR/billiards-web.d"
    own root:mosquitto "$conf"
    CHANGED=1
    if ! command -v mosquitto_passwd >/dev/null; then
        printf 'would run: mosquitto_passwd -U (the user web, from a private temporary file)\n'
        return 0
    fi
    work="$(mktemp -d "$(dest "$MOSQ_DIR")/.billiards-passwd.XXXXXX")"  # mode 0700
    # shellcheck disable=SC2064  # (the path now: work is local)
    trap "rm -rf '$work'" EXIT
    (umask 077 && printf 'web:%s\n' "$secret" > "$work/web")
    mosquitto_passwd -U "$work/web" >/dev/null
    passwd="$(dest "$MOSQ_DIR/billiards.passwd")"
    # the users but web, and web: written over the file in place, keeping its owner and mode
    (umask 077 && { grep -v '^web:' "$passwd" || true; cat "$work/web"; } > "$work/all")
    cat "$work/all" > "$passwd"
    rm -rf "$work"
    trap - EXIT
    say "created: $conf and the broker user web (the browsers' broker's bridge)"
}

# Enables the service (it starts at boot); starts it only when the table passed check (a
# fresh install names no sensors yet: they are wired, checked and commissioned first, then
# the service started, as deploy/README.md says); restarts a running one only if asked.
enable_service() {
    if ! systemd_running; then  # enabling is a symbolic link: it needs no running systemd
        run systemctl enable "$UNIT"
        say "systemd is not running here (a chroot, or an image being prepared): the service" \
            "is enabled and starts at boot"
        return 0
    fi
    run systemctl daemon-reload
    run systemctl enable "$UNIT"
    if systemctl is-active --quiet "$UNIT" 2>/dev/null; then
        if [[ $RESTART -eq 1 ]]; then
            run systemctl restart "$UNIT"
        else
            say "the service is running: restart it when no match is on (sudo systemctl restart $UNIT, or --restart)"
        fi
    elif [[ $READY -eq 1 ]]; then
        run systemctl start "$UNIT"
    else
        say "not starting the service: the table is not ready (above). Wire, check and commission it" \
            "(deploy/README.md sections 2 and 3), then: sudo systemctl start $UNIT"
    fi
}

# Returns whether systemd runs this system (sd_booted(3)): not in a chroot or a container.
systemd_running() {
    [[ $DRY_RUN -eq 1 || -d /run/systemd/system ]]
}

# Enables (and starts) the venue recorder when asked; else says how.
enable_recorder() {
    if [[ $WITH_RECORDER -eq 0 ]]; then
        if systemctl is-enabled --quiet "$RECORDER_UNIT" 2>/dev/null; then
            say "the venue recorder is enabled here (it was not restarted)"
        else
            say "the venue recorder is installed, not enabled: on the one machine that records" \
                "the venue, fill in $CONF_DIR/recorder.env and recorder.password, then run this" \
                "script with --with-recorder"
        fi
        return 0
    fi
    run systemctl enable "$RECORDER_UNIT"
    if ! systemd_running; then
        say "systemd is not running here: the venue recorder starts at boot"
    elif ! systemctl is-active --quiet "$RECORDER_UNIT" 2>/dev/null; then
        run systemctl start "$RECORDER_UNIT"
    elif [[ $RESTART -eq 1 ]]; then
        run systemctl restart "$RECORDER_UNIT"
    fi
}

# Removes what install put in place; a second run finds nothing left and says so.
uninstall() {
    say "uninstalling"
    local f unit
    for unit in "$UNIT" "$ADAPTERS_UNIT" "$WEB_BROKER_UNIT" "$RECORDER_UNIT"; do
        if [[ -e "$(dest "$UNIT_DIR/$unit")" ]] && systemd_running; then
            run systemctl disable --now "$unit"
        elif [[ -e "$(dest "$UNIT_DIR/$unit")" ]]; then  # (no systemd here: nothing runs)
            run systemctl disable "$unit"
        fi
    done
    for f in "$UNIT_DIR/$UNIT" "$UNIT_DIR/$ADAPTERS_UNIT" "$UNIT_DIR/$WEB_BROKER_UNIT" \
             "$UNIT_DIR/$RECORDER_UNIT" \
             "$UDEV_DIR/$RULES" "$MOSQ_DIR/conf.d/billiards.conf" "$MOSQ_DIR/billiards-web.conf"; do
        if [[ -e "$(dest "$f")" ]]; then
            rm -f "$(dest "$f")"
            say "removed: $f"
        fi
    done
    if [[ -d "$(dest "$APP_DIR")" ]]; then
        rm -rf "$(dest "$APP_DIR")"
        say "removed: $APP_DIR"
    fi
    if systemd_running; then
        run systemctl daemon-reload
        run udevadm control --reload-rules
    fi
    if [[ $PURGE -eq 1 ]]; then
        for f in "$CONF_DIR" "$DATA_DIR"; do
            if [[ -d "$(dest "$f")" ]]; then
                rm -rf "$(dest "$f")"
                say "removed: $f"
            fi
        done
        if [[ $DRY_RUN -eq 1 ]] || id "$APP_USER" >/dev/null 2>&1; then
            run userdel "$APP_USER"
        fi
        say "the broker's $MOSQ_DIR/billiards.acl, billiards.passwd, billiards-web.d/ and certs/ are left in place"
    else
        say "kept $CONF_DIR and $DATA_DIR (remove them with --uninstall --purge)"
    fi
}

# Checks the configuration, its sensor boards and its broker (python -m controller check,
# which changes nothing) and says what to fix; a dry run shows the command.
check_install() {
    local cmd=("$APP_DIR/venv/bin/python" -m controller check --config "$CONF_DIR/controller.toml")
    if [[ $DRY_RUN -eq 1 ]]; then run "${cmd[@]}"; READY=1; return 0; fi
    say "checking the configuration, the sensor boards and the broker"
    if "${cmd[@]}"; then
        READY=1
    else
        warn "the table is not ready: fix what is marked ✗ above in $CONF_DIR/controller.toml, then check again: sudo ${cmd[*]}"
    fi
}

main() {
    parse_args "$@"
    if [[ $DRY_RUN -eq 1 ]]; then
        say "dry run: files go to $DESTDIR, system commands are only printed"
    fi
    if [[ $UNINSTALL -eq 1 ]]; then
        step "uninstalling"
        uninstall
        return 0
    fi
    step "checking the platform"; check_platform
    step "installing the system packages"
    if [[ $WITH_BROKER -eq 1 ]]; then
        install_packages mosquitto mosquitto-clients openssl
    else
        install_packages
    fi
    step "creating the user $APP_USER"; create_user
    step "installing the software into $APP_DIR/venv"; install_software
    step "installing the configuration, units and udev rule"; install_files
    step "setting up the venue brokers"; install_broker
    step "checking the table"; check_install
    step "enabling the service"; enable_service
    step "enabling the venue recorder"; enable_recorder
    say "done. Logs: journalctl -u $UNIT -f"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then  # (the tests source it to call one function)
    main "$@"
fi
