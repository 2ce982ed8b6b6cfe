"""Programs that are read-only as ``NAME --help`` or ``NAME --version`` and nothing else.

A help form is read-only only where it was seen to be: each entry was run here under
``strace -f`` with an empty HOME as its cwd (``tests/test_readers_strace.py`` runs every
installed one again) and, for each form listed, exited 0 having printed help or a version,
started no other program, opened nothing for writing, connected nowhere, and looked up no file
in HOME or the cwd — so no user or project configuration can change what it does. That last
test is what keeps common names off: ``curl`` reads ``~/.curlrc`` (whose ``stderr = FILE``
writes FILE), ``wget`` ``~/.wgetrc``, ``docker`` ``~/.docker/config.json`` (``--help`` lists
CLI plug-ins by running them), ``java``/``javac`` ``.hotspotrc`` in the cwd, ``rustc`` makes
``~/.rustup``, ``gdb`` runs ``iconv``, ``valgrind`` and ``psql`` exec other binaries; the
systemd tools (``loginctl``, ``systemd-path`` …) page their help on a terminal. Interpreters
(``perl``, ``tclsh``) are left out whatever strace shows: their start-up reads the environment
for code to load. Only ELF programs were measured; a script's help runs its interpreter.

Any other word — ``cmake --help-full FILE`` writes FILE, ``ninja -v`` builds — makes the
command what its name alone is: not read-only (``refused.REFUSED`` gives the compilers and
build tools their usual reason).
"""

from __future__ import annotations

from .pathsearch import not_elf
from .refused import REFUSED
from .spec import Call, Finding

_BOTH = ("--help", "--version")
_HELP = ("--help",)
_VERSION = ("--version",)

# name -> the forms measured (module docstring): binutils, compilers and build tools, gettext,
# util-linux, kmod, fontconfig, pipewire, lxc, partclone, acpid, chafa, cbonsai …
HELP_FORMS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys((
        "gcc", "cc", "g++", "c++", "ld", "as", "make", "cmake", "shfmt", "strace", "bwrap",
        "gettext", "msgattrib", "msgcat", "msgfmt", "msginit", "msgmerge", "xgettext", "localedef",
        "zdump", "chmem", "colcrt", "fincore", "lsfd", "mcookie", "script", "setarch",
        "slabtop", "split", "stty", "uuidparse", "pivot_root", "switch_root", "rmmod",
        "fc-cache", "fc-scan", "dnsmasq", "chafa", "cbonsai", "partclone.ext4",
        "lxc-create", "lxc-destroy", "lxc-info", "lxc-ls", "lxc-start", "lxc-stop",
        "pipewire", "pipewire-pulse", "wireplumber", "pw-cat", "pw-play", "pw-record", "pw-cli",
        "pw-dot", "pw-dump", "pw-link", "pw-metadata", "pw-mididump", "pw-mon", "pw-profiler",
        "pw-reserve", "pw-top",
    ), _BOTH),
    **dict.fromkeys(("busybox", "runlevel", "spa-resample", "stl2gts", "vigr", "vipw", "wpexec"), _HELP),
    **dict.fromkeys(("lesskey", "nstat", "ninja"), _VERSION),
    "acpi_listen": ("--help", "--version", "-h"),
}


def help_form(call: Call) -> list[Finding]:
    """``NAME FORM`` with FORM one of the measured spellings, as one static word, and NAME an ELF
    binary on PATH (what was measured); else refused."""
    cmd = call.command
    forms = HELP_FORMS[cmd.name]
    args = cmd.args
    if not call.wild_tail and len(args) == 1 and args[0].static and args[0].text in forms:
        why = not_elf(cmd.name)
        if why is None:
            return []
        return [Finding(f"{cmd.name} {args[0].text}: {why}", cmd.words[0].span, "readonly.program")]
    why = REFUSED.get(cmd.name) or f"is read-only only as {' or '.join(f'{cmd.name} {f}' for f in forms)}"
    return [Finding(f"{cmd.name} {why}", cmd.words[0].span, "readonly.program")]


CUSTOM = dict.fromkeys(HELP_FORMS, help_form)
