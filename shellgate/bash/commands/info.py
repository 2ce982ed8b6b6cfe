"""System information: who am I, where am I, what time is it, which version is installed.

``date -s`` and ``date MMDDhhmm`` set the clock, ``hostname NAME`` sets the host name; only the
printing forms are here. Interpreters are read-only only as ``--version`` (anything else runs
code, and even ``pip list`` runs ``.pth`` files of site-packages at start-up).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..facts import Effect
from .spec import Call, Command, Finding, Flag, Parsed, Takes

V = Takes.VALUE
P = Takes.PATH
HELP = [Flag("--help"), Flag("--version")]


def _date(p: Parsed, call: Call) -> Iterable[Finding]:
    out = []
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
    strace on CPython 3.11)."""
    cmd = call.command
    ok = {"-V", "--version"} | ({"-v"} if cmd.name == "node" else {"-VV"})
    if not call.wild_tail and len(cmd.args) == 1 and cmd.args[0].static and cmd.args[0].text in ok:
        return []
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


# systemd 252 systemd-delta: which unit and config files override which. Each overridden file
# is shown by running `diff -us -- LOWER UPPER` (found on PATH, a reader: strace), unless
# --diff=no; on a terminal the output goes to a pager ($SYSTEMD_PAGER, $PAGER, less), which
# --no-pager (and a stdout that is no terminal: `terminal.py`) rules out.
def _systemd_pager(p: Parsed, call: Call) -> Iterable[Finding]:
    from .terminal import stdout_may_be_terminal

    if not p.has("--no-pager") and stdout_may_be_terminal(call):
        yield Finding("systemd-delta starts a pager on a terminal ($SYSTEMD_PAGER, $PAGER: add --no-pager)",
                      call.command.words[0].span, "readonly.program")


SYSTEMD_DELTA = Command("systemd-delta", reads=False, check=_systemd_pager, safe=[
    Flag("-t", "--type", takes=V), Flag("--diff", takes=V), Flag("--no-pager"), Flag("-h", "--help"),
    Flag("--version")])

# util-linux ipcs: System V shared memory, queues and semaphores from /proc/sysvipc.
IPCS = Command("ipcs", reads=False, max_operands=0, safe=[
    Flag("-i", "--id", takes=V), Flag("-m", "--shmems"), Flag("-q", "--queues"), Flag("-s", "--semaphores"),
    Flag("-a", "--all"), Flag("-t", "--time"), Flag("-p", "--pid"), Flag("-c", "--creator"),
    Flag("-l", "--limits"), Flag("-u", "--summary"), Flag("--human"), Flag("-b", "--bytes"),
    Flag("-h", "--help"), Flag("-V", "--version")])

COMMANDS = (DATE, UNAME, ID, WHOAMI, GROUPS, HOSTNAME, NPROC, UPTIME, ARCH, TTY, LOGNAME, PRINTENV,
            FREE, PS, LOCALE, GETCONF, LSCPU, PGREP, IFCONFIG, MOUNT, W, WHO, PSTREE, CLEAR,
            FINGER, ACPI, DFC, SYSTEMD_DELTA, IPCS)
CUSTOM = dict.fromkeys(("python", "python3", "python2", "pypy3", "node"), version_only)
