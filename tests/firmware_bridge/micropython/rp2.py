"""The rp2 port's ``rp2`` module, as far as the firmware uses it (tests only): BOOTSEL reads
as held while a file ``bootsel`` exists in the current directory."""


def bootsel_button():
    try:
        open("bootsel").close()
        return 1
    except OSError:
        return 0
