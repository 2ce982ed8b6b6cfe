"""System information: who am I, where am I, what time is it, which version is installed.

``date -s`` and ``date MMDDhhmm`` set the clock, ``hostname NAME`` sets the host name; only the
printing forms are here. Interpreters are read-only only as ``--version`` (anything else runs
code, and even ``pip list`` runs ``.pth`` files of site-packages at start-up).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..facts import Effect
from .environment import date_tz_problem
from .pathsearch import not_elf
from .spec import Call, Check, Command, Finding, Flag, Parsed, Takes

V = Takes.VALUE
P = Takes.PATH
HELP = [Flag("--help"), Flag("--version")]


def _date(p: Parsed, call: Call) -> Iterable[Finding]:
    out = [Finding(f"date {o.spelled}: {why}", v.span, "readonly.flag")
           for o in p.opts if o.flag.names[0] == "-d" for v in o.values if (why := date_tz_problem(v))]
    for w in p.operands:
        if not w.text.startswith("+"):
            out.append(Finding("date with an operand that is not +FORMAT sets the clock", w.span,
                               "readonly.operand"))
    return out


DATE = Command("date", reads=False, max_operands=1, check=_date, safe=[
    Flag("-d", "--date", takes=V), Flag("--debug"), Flag("-f", "--file", takes=P),
    Flag("-I", "--iso-8601", takes=V, optional=True), Flag("-R", "--rfc-email"),
    Flag("--rfc-3339", takes=V), Flag("-r", "--reference", takes=P), Flag("-u", "--utc", "--universal"),
    *HELP],
    unsafe={Flag("-s", "--set", takes=V): "sets the system clock"})

UNAME = Command("uname", reads=False, max_operands=0, safe=[
    Flag("-a", "--all"), Flag("-s", "--kernel-name"), Flag("-n", "--nodename"),
    Flag("-r", "--kernel-release"), Flag("-v", "--kernel-version"), Flag("-m", "--machine"),
    Flag("-p", "--processor"), Flag("-i", "--hardware-platform"), Flag("-o", "--operating-system"),
    *HELP])

ID = Command("id", reads=False, safe=[
    Flag("-a"), Flag("-Z", "--context"), Flag("-g", "--group"), Flag("-G", "--groups"),
    Flag("-n", "--name"), Flag("-r", "--real"), Flag("-u", "--user"), Flag("-z", "--zero"), *HELP])
WHOAMI = Command("whoami", reads=False, max_operands=0, safe=HELP)
GROUPS = Command("groups", reads=False, safe=HELP)
HOSTNAME = Command("hostname", reads=False, max_operands=0,
                   extra_operand="with a name sets the host name", safe=[
    Flag("-a", "--alias"), Flag("-A", "--all-fqdns"), Flag("-d", "--domain"),
    Flag("-f", "--fqdn", "--long"), Flag("-i", "--ip-address"), Flag("-I", "--all-ip-addresses"),
    Flag("-s", "--short"), Flag("-y", "--yp", "--nis"), Flag("-h", "--help"), Flag("-V", "--version")])
NPROC = Command("nproc", reads=False, max_operands=0, safe=[Flag("--all"), Flag("--ignore", takes=V), *HELP])
UPTIME = Command("uptime", reads=False, max_operands=0, safe=[Flag("-p", "--pretty"), Flag("-s", "--since"),
                                                  Flag("-h", "--help"), Flag("-V", "--version")])
ARCH = Command("arch", reads=False, max_operands=0, safe=HELP)
TTY = Command("tty", reads=False, max_operands=0, safe=[Flag("-s", "--silent", "--quiet"), *HELP])
LOGNAME = Command("logname", reads=False, max_operands=0, safe=HELP)
PRINTENV = Command("printenv", reads=False, safe=[Flag("-0", "--null"), *HELP])
FREE = Command("free", reads=False, max_operands=0, safe=[
    *(Flag(f"-{c}") for c in "bkmgtwhlvtL"), Flag("--bytes"), Flag("--kilo"), Flag("--mega"),
    Flag("--giga"), Flag("--tera"), Flag("--peta"), Flag("--kibi"), Flag("--mebi"), Flag("--gibi"),
    Flag("--tebi"), Flag("--pebi"), Flag("--human"), Flag("--si"), Flag("--lohi"), Flag("--total"),
    Flag("--committed"), Flag("--wide"), Flag("-s", "--seconds", takes=V),
    Flag("-c", "--count", takes=V), Flag("--help"), Flag("-V", "--version")])
# ps mixes BSD (no dash), UNIX and GNU syntaxes; it has no option that writes or runs anything.
PS = Command("ps", reads=False, free=True)
LOCALE = Command("locale", reads=False, safe=[Flag("-a", "--all-locales"), Flag("-m", "--charmaps"),
                                 Flag("-c", "--category-name"), Flag("-k", "--keyword-name"),
                                 Flag("-v", "--verbose"), *HELP])
GETCONF = Command("getconf", reads=False, max_operands=2, safe=[Flag("-a")])
LSCPU = Command("lscpu", reads=False, max_operands=0, safe=[
    Flag("-a", "--all"), Flag("-b", "--online"), Flag("-c", "--offline"), Flag("-e", "--extended", takes=V,
                                                                                optional=True),
    Flag("-J", "--json"), Flag("-p", "--parse", takes=V, optional=True), Flag("-s", "--sysroot", takes=P),
    Flag("-x", "--hex"), Flag("-y", "--physical"), Flag("--output-all"), Flag("-h", "--help"),
    Flag("-V", "--version")])


def version_only(call: Call) -> list[Finding]:
    """Interpreters: read-only only as ``NAME --version`` / ``-V`` (``node -v``; Python's
    ``-VV`` adds the build line: like ``-V`` it opens no module, no ``.pth``, measured with
    strace on CPython 3.11), and only when PATH finds an ELF binary: a pyenv or asdf shim is a
    script that runs its manager (a dozen bash processes, version files read up from the cwd)."""
    cmd = call.command
    ok = {"-V", "--version"} | ({"-v"} if cmd.name == "node" else {"-VV"})
    if not call.wild_tail and len(cmd.args) == 1 and cmd.args[0].static and cmd.args[0].text in ok:
        why = not_elf(cmd.name)
        return [] if why is None else [Finding(f"{cmd.name} {cmd.args[0].text}: {why}", cmd.words[0].span,
                                               "readonly.program")]
    if len(cmd.args) > 1 and [w.text for w in cmd.args[:2]] == ["-m", "pip"]:
        from .toolchain import PIP_WHY

        return [Finding(f"{cmd.name} -m pip {PIP_WHY}", cmd.words[0].span, "readonly.program")]
    return [Finding(f"{cmd.name} runs code (not read-only)", cmd.words[0].span, "readonly.program")]


# procps-ng 4 pgrep: one pattern (a regex, data); every option selects or formats. -a prints
# command lines, as ps does. -F reads a PID file (not listed as read: it opens a path).
PGREP = Command("pgrep", reads=False, max_operands=1, safe=[
    Flag("-d", "--delimiter", takes=V), Flag("-l", "--list-name"), Flag("-a", "--list-full"),
    Flag("-v", "--inverse"), Flag("-w", "--lightweight"), Flag("-c", "--count"), Flag("-f", "--full"),
    Flag("-g", "--pgroup", takes=V), Flag("-G", "--group", takes=V), Flag("-i", "--ignore-case"),
    Flag("-n", "--newest"), Flag("-o", "--oldest"), Flag("-O", "--older", takes=V),
    Flag("-P", "--parent", takes=V), Flag("-s", "--session", takes=V), Flag("-t", "--terminal", takes=V),
    Flag("-u", "--euid", takes=V), Flag("-U", "--uid", takes=V), Flag("-x", "--exact"),
    Flag("-r", "--runstates", takes=V), Flag("-A", "--ignore-ancestors"), Flag("--cgroup", takes=V),
    Flag("--ns", takes=V), Flag("--nslist", takes=V), Flag("-h", "--help"), Flag("-V", "--version")],
    unsafe={Flag("-F", "--pidfile", takes=P): "reads a PID file",
            Flag("-L", "--logpidfile"): "locks the PID file"})

# net-tools ifconfig: with no interface or one, it prints; a second word configures it (an
# address, up, down, mtu …). Each option is a word of its own, before the interface.
IFCONFIG = Command("ifconfig", reads=False, max_operands=1, permute=False, abbrev=False,
                   extra_operand="with more than an interface name configures it", safe=[
    Flag("-a"), Flag("-s"), Flag("-v"), Flag("-h", "--help"), Flag("-V", "--version")])
# util-linux mount: with no device or directory it lists what is mounted (-l adds labels, -t
# filters by type); anything else mounts. strace: the listing reads /proc/self/mountinfo.
MOUNT = Command("mount", reads=False, max_operands=0,
                extra_operand="with a device or directory mounts a filesystem", safe=[
    Flag("-l", "--show-labels"), Flag("-t", "--types", takes=V), Flag("-v", "--verbose"),
    Flag("-h", "--help"), Flag("-V", "--version")],
    unsafe={Flag("-a", "--all"): "mounts every filesystem of /etc/fstab"})
# procps-ng 4 w and coreutils who read utmp and the process table; who's one operand is a utmp
# file it reads (two are "am i"); --lookup asks DNS.
W = Command("w", reads=False, max_operands=1, safe=[
    Flag("-h", "--no-header"), Flag("-u", "--no-current"), Flag("-s", "--short"), Flag("-f", "--from"),
    Flag("-o", "--old-style"), Flag("-i", "--ip-addr"), Flag("--help"),
    Flag("-V", "--version")])
WHO = Command("who", max_operands=2, safe=[
    Flag("-a", "--all"), Flag("-b", "--boot"), Flag("-d", "--dead"), Flag("-H", "--heading"),
    Flag("--ips"), Flag("-l", "--login"), Flag("-m"), Flag("-p", "--process"), Flag("-q", "--count"),
    Flag("-r", "--runlevel"), Flag("-s", "--short"), Flag("-t", "--time"),
    Flag("-T", "-w", "--mesg", "--message", "--writable"), Flag("-u", "--users"), *HELP],
    unsafe={Flag("--lookup"): "looks host names up in DNS (network)"})
# psmisc pstree: the process tree from /proc, from a PID or a user's processes.
PSTREE = Command("pstree", reads=False, max_operands=1, safe=[
    Flag("-a", "--arguments"), Flag("-A", "--ascii"), Flag("-c", "--compact-not"),
    Flag("-C", "--color", takes=V), Flag("-g", "--show-pgids"), Flag("-G", "--vt100"),
    Flag("-h", "--highlight-all"), Flag("-H", "--highlight-pid", takes=V), Flag("-l", "--long"),
    Flag("-n", "--numeric-sort"), Flag("-N", "--ns-sort", takes=V), Flag("-p", "--show-pids"),
    Flag("-s", "--show-parents"), Flag("-S", "--ns-changes"), Flag("-t", "--thread-names"),
    Flag("-T", "--hide-threads"), Flag("-u", "--uid-changes"), Flag("-U", "--unicode"),
    Flag("-V", "--version"), Flag("-Z", "--security-context")])

# ncurses clear prints the terminal's clear sequence from terminfo (-T names the terminal type;
# a name holding a / is refused by ncurses, strace: no file opened for it).
CLEAR = Command("clear", reads=False, max_operands=0, abbrev=False, safe=[
    Flag("-T", takes=V), Flag("-V"), Flag("-x")])

# netkit finger 0.17: users from utmp and passwd, each one's ~/.plan, .project and .pgpkey
# (public files; -p skips them). A user@host operand asks that host's finger daemon.
def _finger(p: Parsed, call: Call) -> Iterable[Finding]:
    return [Finding("finger user@host asks a remote finger daemon (network)", w.span, "readonly.network",
                    Effect.NETWORK) for w in p.operands if "@" in w.text]


FINGER = Command("finger", reads=False, abbrev=False, check=_finger, safe=[
    Flag("-l"), Flag("-m"), Flag("-p"), Flag("-s")])
# acpi 1.7: batteries, adapters, thermal zones and cooling devices from /sys/class (or
# /proc/acpi with -p, or the directory -d names).
ACPI = Command("acpi", reads=False, max_operands=0, safe=[
    Flag("-b", "--battery"), Flag("-i", "--details"), Flag("-a", "--ac-adapter"),
    Flag("-t", "--thermal"), Flag("-c", "--cooling"), Flag("-V", "--everything"),
    Flag("-s", "--show-empty"), Flag("-f", "--fahrenheit"), Flag("-k", "--kelvin"),
    Flag("-d", "--directory", takes=P), Flag("-p", "--proc"), Flag("-h", "--help"),
    Flag("-v", "--version")])
# dfc 3.1: df with bars, from /proc/mounts and statvfs; -e exports the table (csv, html, json,
# tex, text) to stdout. Reads its own ~/.config/dfc/dfcrc (colours and widths).
DFC = Command("dfc", reads=False, max_operands=0, abbrev=False, safe=[
    *(Flag(f"-{c}") for c in "abdfhilmMnosTvwW"), Flag("-c", takes=V), Flag("-e", takes=V),
    Flag("-p", takes=V), Flag("-q", takes=V), Flag("-t", takes=V), Flag("-u", takes=V)])


def pager_unless(off: str, pages: Callable[[Parsed], bool] = lambda p: True) -> Check:
    """A check for a program that pipes its output into ``$PAGER`` (or ``less``) when stdout is a
    terminal and ``pages(parsed)`` holds, unless ``off`` is given: read-only only where no pager
    can start (``terminal.stdout_may_be_terminal``). ``off`` counts only before any ``-h``:
    systemd prints its help through the pager the moment it reads ``-h``, so
    ``journalctl -h --no-pager`` starts ``less`` (seen on a pty)."""
    def check(p: Parsed, call: Call) -> Iterable[Finding]:
        from .terminal import stdout_may_be_terminal

        names = [o.flag.names for o in p.opts]
        help_at = next((k for k, n in enumerate(names) if "-h" in n or "--help" in n), len(names))
        if pages(p) and not any(off in n for n in names[:help_at]) and stdout_may_be_terminal(call):
            fix = f"put {off} before -h" if p.has(off) else f"add {off}"
            yield Finding(f"{call.command.name} starts a pager on a terminal ($PAGER: {fix})",
                          call.command.words[0].span, "readonly.program")
    return check


# systemd 252 systemd-delta: which unit and config files override which. Each overridden file
# is shown by running `diff -us -- LOWER UPPER` (found on PATH, a reader: strace), unless
# --diff=no; on a terminal the output goes to a pager ($SYSTEMD_PAGER, $PAGER, less).
_delta_pager = pager_unless("--no-pager")


def _delta(p: Parsed, call: Call) -> Iterable[Finding]:
    """Also: a PREFIX names a directory below each configuration root (/etc, /run, /usr/lib …);
    one with ``..`` leaves them (``../root/.ssh`` lists that directory and diffs what is in it)."""
    yield from _delta_pager(p, call)
    for w in p.operands:
        if not w.static or ".." in w.text.split("/"):
            yield Finding(f"systemd-delta {w.text} may leave the configuration directories", w.span,
                          "readonly.operand")


SYSTEMD_DELTA = Command("systemd-delta", reads=False, check=_delta, safe=[
    Flag("-t", "--type", takes=V), Flag("--diff", takes=V, optional=True), Flag("--no-pager"),
    Flag("-h", "--help"), Flag("--version")])

# util-linux ipcs: System V shared memory, queues and semaphores from /proc/sysvipc.
IPCS = Command("ipcs", reads=False, max_operands=0, safe=[
    Flag("-i", "--id", takes=V), Flag("-m", "--shmems"), Flag("-q", "--queues"), Flag("-s", "--semaphores"),
    Flag("-a", "--all"), Flag("-t", "--time"), Flag("-p", "--pid"), Flag("-c", "--creator"),
    Flag("-l", "--limits"), Flag("-u", "--summary"), Flag("--human"), Flag("-b", "--bytes"),
    Flag("-h", "--help"), Flag("-V", "--version")])

# util-linux 2.38 dmesg: the kernel ring buffer (or -F FILE). -H pipes into $PAGER on a terminal
# (seen under a pty; -e, -T, -L, -w do not); -c/-C clear the buffer, -D/-E/-n set the console.
DMESG = Command("dmesg", reads=False, max_operands=0,
                check=pager_unless("--nopager", lambda p: p.has("-H", "--human")), safe=[
    Flag("-F", "--file", takes=P), Flag("-f", "--facility", takes=V), Flag("-H", "--human"),
    Flag("-J", "--json"), Flag("-k", "--kernel"), Flag("-L", "--color", takes=V, optional=True),
    Flag("-l", "--level", takes=V), Flag("-P", "--nopager"), Flag("-p", "--force-prefix"),
    Flag("-r", "--raw"), Flag("--noescape"), Flag("-S", "--syslog"), Flag("-s", "--buffer-size", takes=V),
    Flag("-u", "--userspace"), Flag("-w", "--follow"), Flag("-W", "--follow-new"), Flag("-x", "--decode"),
    Flag("-d", "--show-delta"), Flag("-e", "--reltime"), Flag("-T", "--ctime"), Flag("-t", "--notime"),
    Flag("--time-format", takes=V), Flag("--since", takes=V), Flag("--until", takes=V),
    Flag("-h", "--help"), Flag("-V", "--version")],
    unsafe={Flag("-C", "--clear"): "clears the kernel ring buffer",
            Flag("-c", "--read-clear"): "clears the kernel ring buffer after reading it",
            Flag("-D", "--console-off"): "turns kernel messages to the console off",
            Flag("-E", "--console-on"): "turns kernel messages to the console on",
            Flag("-n", "--console-level", takes=V): "sets the console's log level"})

# systemd 252 journalctl (getopt_long): reads journal files and prints entries; on a terminal
# it pipes them into a pager ($SYSTEMD_PAGER, $PAGER, less) unless --no-pager. Its maintenance
# commands change the journal or signal journald; --cursor-file rewrites FILE; --image mounts an
# image; -M asks systemd-machined over D-Bus.
# -b and -n take an optional value; not attached, journalctl tries the next word as one (a boot
# offset or ID, a count) and leaves it a match when that fails (measured: `-b -1`, `-b all`,
# `-n +5` are taken, `-b foo`, `-n -5` are not). These patterns take less than it does.
_BOOT = r"all|[+-]?[0-9]{1,9}|[0-9a-fA-F]{32}([+-][0-9]{1,9})?"
_LINES = r"all|\+?[0-9]{1,9}"
JOURNALCTL = Command("journalctl", reads=False, check=pager_unless("--no-pager"), safe=[
    Flag("--system"), Flag("--user"), Flag("-m", "--merge"), Flag("-D", "--directory", takes=P),
    Flag("--file", takes=P), Flag("--root", takes=P), Flag("--namespace", takes=V),
    Flag("-S", "--since", takes=V), Flag("-U", "--until", takes=V), Flag("-c", "--cursor", takes=V),
    Flag("--after-cursor", takes=V), Flag("-b", "--boot", takes=V, peek=_BOOT),
    Flag("-u", "--unit", takes=V), Flag("--user-unit", takes=V), Flag("-t", "--identifier", takes=V),
    Flag("-p", "--priority", takes=V), Flag("--facility", takes=V), Flag("-g", "--grep", takes=V),
    Flag("--case-sensitive", takes=V, optional=True), Flag("-k", "--dmesg"),
    Flag("-o", "--output", takes=V), Flag("--output-fields", takes=V),
    Flag("-n", "--lines", takes=V, peek=_LINES), Flag("-r", "--reverse"), Flag("--show-cursor"),
    Flag("--utc"), Flag("-x", "--catalog"), Flag("--no-hostname"), Flag("--no-full"), Flag("-a", "--all"),
    Flag("-f", "--follow"), Flag("--no-tail"), Flag("-q", "--quiet"), Flag("--no-pager"),
    Flag("-e", "--pager-end"), Flag("-h", "--help"), Flag("--version"), Flag("-N", "--fields"),
    Flag("-F", "--field", takes=V), Flag("--list-boots"), Flag("--disk-usage"), Flag("--verify"),
    Flag("--verify-key", takes=V), Flag("--header"), Flag("--list-catalog"), Flag("--dump-catalog")],
    unsafe={
        Flag("-M", "--machine", takes=V): "asks systemd-machined over D-Bus",
        Flag("--image", takes=P): "mounts a filesystem image",
        Flag("--cursor-file", takes=Takes.WRITE_PATH): "rewrites the cursor file",
        Flag("--vacuum-size", takes=V): "deletes journal files",
        Flag("--vacuum-files", takes=V): "deletes journal files",
        Flag("--vacuum-time", takes=V): "deletes journal files",
        Flag("--sync"): "asks journald to write its journal",
        Flag("--flush"): "asks journald to move its journal",
        Flag("--relinquish-var"): "asks journald to stop logging to disk",
        Flag("--smart-relinquish-var"): "asks journald to stop logging to disk",
        Flag("--rotate"): "asks journald to rotate its files",
        Flag("--update-catalog"): "rewrites the message catalog",
        Flag("--setup-keys"): "writes a new sealing key pair", Flag("--force"): "overwrites the sealing keys",
        Flag("--interval", takes=V): "sets the sealing key interval (with --setup-keys)"})

COMMANDS = (DATE, UNAME, ID, WHOAMI, GROUPS, HOSTNAME, NPROC, UPTIME, ARCH, TTY, LOGNAME, PRINTENV,
            FREE, PS, LOCALE, GETCONF, LSCPU, PGREP, IFCONFIG, MOUNT, W, WHO, PSTREE, CLEAR,
            FINGER, ACPI, DFC, SYSTEMD_DELTA, IPCS, DMESG,
            JOURNALCTL)
CUSTOM = dict.fromkeys(("python", "python3", "python2", "pypy3", "node"), version_only)
