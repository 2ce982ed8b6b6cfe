"""Block devices, mounts, modules, namespaces, locks, IPC, logins and memory statistics: the
util-linux and procps listers, which read /sys, /proc, /run/mount and wtmp and print.

Each was run under strace (tests/test_readers_strace.py): no exec, no file opened to write,
nothing made or removed, no socket but nscd's. What asks: ``last -d`` (looks the hosts up in
DNS); files named by an option (``--sysroot``, ``findmnt -F``, ``last -f``) are paths the
secret rules see. Not here: ``top`` (even ``-b`` makes ``~/.config/procps`` when it is missing),
``swapon`` (with a device it enables swap), ``modinfo`` (a module name is looked up under
/lib/modules, a path is opened: kept for a table of its own).
"""

from __future__ import annotations

from collections.abc import Iterable

from .spec import Call, Command, Finding, Flag, Parsed, Takes

V, P = Takes.VALUE, Takes.PATH
_HELP = [Flag("-h", "--help"), Flag("-V", "--version")]

# util-linux 2.38 lsblk: block devices from /sys (DEVICE operands are looked up there).
LSBLK = Command("lsblk", safe=[
    Flag("-A", "--noempty"), Flag("-D", "--discard"), Flag("-E", "--dedup", takes=V),
    Flag("-I", "--include", takes=V), Flag("-J", "--json"), Flag("-M", "--merge"),
    Flag("-O", "--output-all"), Flag("-P", "--pairs"), Flag("-S", "--scsi"),
    Flag("-T", "--tree", takes=V, optional=True), Flag("-a", "--all"), Flag("-b", "--bytes"),
    Flag("-d", "--nodeps"), Flag("-e", "--exclude", takes=V), Flag("-f", "--fs"), Flag("-i", "--ascii"),
    Flag("-l", "--list"), Flag("-m", "--perms"), Flag("-n", "--noheadings"), Flag("-o", "--output", takes=V),
    Flag("-p", "--paths"), Flag("-r", "--raw"), Flag("-s", "--inverse"), Flag("-t", "--topology"),
    Flag("-w", "--width", takes=V), Flag("-x", "--sort", takes=V), Flag("-y", "--shell"),
    Flag("-z", "--zoned"), Flag("--sysroot", takes=P), *_HELP])
# findmnt: the mount table (/proc/self/mountinfo, fstab with -s, FILE with -F); --poll waits
# for changes and prints them. A tag (UUID=…, LABEL=…) resolved through libblkid writes its
# cache, /run/blkid/blkid.tab (strace, as root): a tag as the source, the tag columns of a
# table whose sources are tags (-s, -F), the SOURCES column, --output-all, and -e/-x, which
# evaluate every tag.
_BLKID = "resolves UUID=/LABEL= tags through libblkid, which writes its cache (/run/blkid/blkid.tab)"
_TAG_COLUMNS = frozenset({"UUID", "PARTUUID", "LABEL", "PARTLABEL", "SOURCES"})


def _findmnt_tags(p: Parsed, call: Call) -> Iterable[Finding]:
    for o in p.opts:
        v, name = o.value, o.flag.names[0]
        if v is None or name not in ("-o", "-S"):
            continue
        tags = _TAG_COLUMNS & set(v.text.upper().lstrip("+").split(",")) if name == "-o" else "=" in v.text
        if tags or not v.static:
            yield Finding(f"findmnt {o.spelled} {v.text} {_BLKID}", v.span, "readonly.flag")
    for w in p.operands:
        if "=" in w.text or not w.static:
            yield Finding(f"findmnt {w.text} {_BLKID}", w.span, "readonly.operand")


FINDMNT = Command("findmnt", check=_findmnt_tags, safe=[
    Flag("-s", "--fstab"), Flag("-m", "--mtab"), Flag("-k", "--kernel"),
    Flag("-p", "--poll", takes=V, optional=True), Flag("-w", "--timeout", takes=V), Flag("-A", "--all"),
    Flag("-a", "--ascii"), Flag("-b", "--bytes"), Flag("-C", "--nocanonicalize"),
    Flag("-c", "--canonicalize"), Flag("-D", "--df"), Flag("-d", "--direction", takes=V),
    Flag("-F", "--tab-file", takes=P), Flag("-f", "--first-only"),
    Flag("-i", "--invert"), Flag("-J", "--json"), Flag("-l", "--list"), Flag("-N", "--task", takes=V),
    Flag("-n", "--noheadings"),
    Flag("-O", "--options", takes=V), Flag("-o", "--output", takes=V),
    Flag("-P", "--pairs"), Flag("--pseudo"), Flag("--shadowed"), Flag("-R", "--submounts"),
    Flag("-r", "--raw"), Flag("--real"), Flag("-S", "--source", takes=V), Flag("-T", "--target", takes=P),
    Flag("--tree"),
    Flag("-M", "--mountpoint", takes=P), Flag("-t", "--types", takes=V), Flag("-U", "--uniq"),
    Flag("-u", "--notruncate"), Flag("-v", "--nofsroot"), Flag("-y", "--shell"),
    Flag("--verbose"), Flag("--vfs-all"), *_HELP],
    unsafe={Flag("-e", "--evaluate"): _BLKID, Flag("-x", "--verify"): _BLKID, Flag("--output-all"): _BLKID})
# kmod lsmod: /proc/modules; it takes no option and no operand, and -- is an operand to it.
LSMOD = Command("lsmod", reads=False, max_operands=0, dashdash=False, safe=[])
LSLOCKS = Command("lslocks", reads=False, max_operands=0, safe=[
    Flag("-b", "--bytes"), Flag("-J", "--json"), Flag("-i", "--noinaccessible"), Flag("-n", "--noheadings"),
    Flag("-o", "--output", takes=V), Flag("--output-all"), Flag("-p", "--pid", takes=V), Flag("-r", "--raw"),
    Flag("-u", "--notruncate"), *_HELP])
LSNS = Command("lsns", reads=False, max_operands=1, safe=[
    Flag("-J", "--json"), Flag("-l", "--list"), Flag("-n", "--noheadings"), Flag("-o", "--output", takes=V),
    Flag("--output-all"), Flag("-p", "--task", takes=V), Flag("-r", "--raw"), Flag("-u", "--notruncate"),
    Flag("-W", "--nowrap"), Flag("-t", "--type", takes=V), Flag("-T", "--tree", takes=V, optional=True),
    *_HELP])
LSIPC = Command("lsipc", reads=False, max_operands=0, safe=[
    Flag("-m", "--shmems"), Flag("-q", "--queues"), Flag("-s", "--semaphores"), Flag("-g", "--global"),
    Flag("-i", "--id", takes=V), Flag("--noheadings"), Flag("--notruncate"), Flag("--time-format", takes=V),
    Flag("-b", "--bytes"), Flag("-c", "--creator"), Flag("-e", "--export"), Flag("-J", "--json"),
    Flag("-n", "--newline"), Flag("-l", "--list"), Flag("-o", "--output", takes=V),
    Flag("-P", "--numeric-perms"), Flag("-r", "--raw"), Flag("-t", "--time"), Flag("-y", "--shell"), *_HELP])
# util-linux last: wtmp (or -f FILE); operands are user names and ttys to match.
LAST = Command("last", reads=False, numeric=True, safe=[
    Flag("-a", "--hostlast"), Flag("-f", "--file", takes=P), Flag("-F", "--fulltimes"), Flag("-i", "--ip"),
    Flag("-n", "--limit", takes=V), Flag("-R", "--nohostname"), Flag("-s", "--since", takes=V),
    Flag("-t", "--until", takes=V), Flag("-p", "--present", takes=V), Flag("-w", "--fullnames"),
    Flag("-x", "--system"), Flag("--time-format", takes=V), *_HELP],
    unsafe={Flag("-d", "--dns"): "looks the hosts up in DNS (network)"})
# procps vmstat: [delay [count]] from /proc.
VMSTAT = Command("vmstat", reads=False, max_operands=2, safe=[
    Flag("-a", "--active"), Flag("-f", "--forks"), Flag("-m", "--slabs"), Flag("-n", "--one-header"),
    Flag("-s", "--stats"), Flag("-d", "--disk"), Flag("-D", "--disk-sum"), Flag("-p", "--partition", takes=V),
    Flag("-S", "--unit", takes=V), Flag("-w", "--wide"), Flag("-t", "--timestamp"), Flag("-y", "--no-first"),
    *_HELP])

COMMANDS = (LSBLK, FINDMNT, LSMOD, LSLOCKS, LSNS, LSIPC, LAST, VMSTAT)
