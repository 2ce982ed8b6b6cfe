"""The destructive-command table: which command forms earn a warning, in which words.

Each :class:`Rule` reads: "``<command> <sub…>`` with one of ``any_of`` (and all of ``all_of``),
unless one of ``unless`` (the dry-run forms), warns ``message``". Messages are short noun
phrases shown on the approval prompt (SPEC §3 "Destructive warnings"); the rule id given to
the user is ``warn.<family>``. Forms that need more than words and flags (``rm`` operands,
``git push +ref``, SQL text, ``curl | sh``) are handled in ``destructive.py``; their messages
are the constants below so that every phrase lives in this file.

Coverage follows ``research/anchors-destructive.md`` (dcg packs, cc-safety-net rules, §9
lessons and the policy table): broad by default, because a warning never changes a decision.
"""

from __future__ import annotations

import re

from ..._record import record
from ..commands.gitglobal import VALUED as GIT_GLOBAL_VALUED

# --------------------------------------------------------------------------- messages

RECURSIVE_DELETE = "deletes files recursively"
DELETES_MATCHED = "deletes files found by find"
DELETES_LISTED = "deletes files named at run time"
DELETES_ROOT = "deletes from the filesystem root"
DELETES_HOME = "deletes the home directory"
DELETES_HOME_ALL = "deletes everything in the home directory"
DELETES_HOME_GLOB = "deletes files in the home directory"
DELETES_SYSTEM = "deletes system files"
DELETES_CWD = "deletes the current directory"
DELETES_PARENT = "deletes the parent directory"
DELETES_CWD_ALL = "deletes everything in the current directory"
DELETES_SECRET = "deletes a credential file"
TRUNCATES = "truncates a file"
SHREDS = "destroys file contents"
OVERWRITES_FILE = "overwrites a file"
OVERWRITES_DISK = "overwrites a disk"
WORLD_WRITABLE = "makes files world-writable"
SETUID = "sets the setuid or setgid bit"
PERMS_SYSTEM = "changes permissions of system files"
CHOWN_RECURSIVE = "changes ownership recursively"
DISCARD_CHANGES = "may discard uncommitted changes"
REWRITES_REMOTE = "rewrites remote history"
DELETES_REMOTE_BRANCH = "deletes a remote branch"
DROPS_TABLE = "drops a database table"
DROPS_DATABASE = "drops a database"
DROPS_OBJECT = "drops a database object"
TRUNCATES_TABLE = "empties a database table"
DELETES_ALL_ROWS = "deletes every row of a table"
UPDATES_ALL_ROWS = "updates every row of a table"
ALTER_DROP = "drops a column or constraint"
MONGO_DROP = "drops a MongoDB database or collection"
MONGO_DELETE_ALL = "deletes every MongoDB document in a collection"
REDIS_FLUSH = "deletes every Redis key"
RUNS_DOWNLOAD = "runs a downloaded script"
RUNS_DECODED = "runs a decoded (obfuscated) script"
ELEVATED = "runs with elevated privileges"
DYNAMIC_NAME = "runs a command whose name is only known at run time"
DYNAMIC_CODE = "runs code built at run time"
SIGNALS_ALL = "signals every process"
SIGNALS_INIT = "signals the init process"
SIGNALS_GROUP = "signals the whole process group"
KILLS_BY_NAME = "kills processes by name"
FORK_BOMB = "starts a fork bomb"
PY_DELETES = "deletes files (from Python)"


@record
class Rule:
    family: str
    commands: tuple[str, ...]       # command names (basenames) the rule applies to
    sub: tuple[str, ...]            # leading positional words, fnmatch patterns (``delete-*``)
    message: str
    any_of: tuple[str, ...] = ()    # needs one of these options (``--x=v``: with that value)
    all_of: tuple[str, ...] = ()    # needs all of these options
    unless: tuple[str, ...] = ()    # never with one of these (dry runs, list forms)
    anywhere: bool = False          # ``sub`` words may appear anywhere, in order (gcloud … delete)
    nocase: bool = False            # positional words compared case-insensitively (redis-cli)
    group: str = ""                 # only the first matching rule of a group warns


def _r(family: str, commands: str, sub: str, message: str, **kw: object) -> Rule:
    """Compact constructor: ``commands`` and ``sub`` are space-separated."""
    opts = {k: tuple(v.split()) if isinstance(v, str) and k in ("any_of", "all_of", "unless") else v
            for k, v in kw.items()}
    return Rule(family, tuple(commands.split()), tuple(sub.split()), message, **opts)  # type: ignore[arg-type]


def _each(family: str, commands: str, subs: str, message: str, **kw: object) -> tuple[Rule, ...]:
    """One :func:`_r` rule per ``|``-separated ``subs``: spellings of one form, in that order."""
    return tuple(_r(family, commands, sub, message, **kw) for sub in subs.split("|"))


K8S = "kubectl oc"
TF = "terraform tofu terragrunt"
DOCKER = "docker podman nerdctl"
COMPOSE = "docker-compose podman-compose"
DRY = "--dry-run -n"
K8S_DRY = "--dry-run --dry-run=client --dry-run=server"

RULES: tuple[Rule, ...] = (
    # --- git (dcg core.git, cc-safety-net rules-git; checkout/restore/push/branch in code) ---
    _r("git", "git", "reset", DISCARD_CHANGES, any_of="--hard --merge"),
    _r("git", "git", "clean", "deletes untracked files", any_of="-f --force", unless="-n --dry-run"),
    _r("git", "git", "stash drop", "discards stashed changes"),
    _r("git", "git", "stash clear", "discards all stashed changes"),
    _r("git", "git", "switch", DISCARD_CHANGES, any_of="-f --force --discard-changes"),
    _r("git", "git", "worktree remove", DISCARD_CHANGES, any_of="-f --force"),
    _r("git", "git", "rm", DISCARD_CHANGES, any_of="-f --force", unless="--cached -n --dry-run"),
    _r("git", "git", "filter-branch", "rewrites history"),
    _r("git", "git", "filter-repo", "rewrites history", unless="--dry-run --analyze"),
    _r("git", "git-filter-repo", "", "rewrites history", unless="--dry-run --analyze"),
    _r("git", "git", "reflog expire", "destroys the reflog (recovery data)", unless="-n --dry-run"),
    _r("git", "git", "reflog delete", "destroys reflog entries (recovery data)", unless="-n --dry-run"),
    _r("git", "git", "gc", "permanently removes unreachable commits", any_of="--prune=now --prune=all"),
    _r("git", "git", "prune", "permanently removes unreachable commits", unless="-n --dry-run"),
    _r("git", "git", "update-ref", "deletes a ref", any_of="-d"),
    _r("git", "git", "tag", "deletes a tag", any_of="-d --delete"),
    _r("git", "hg", "purge", "deletes untracked files"),
    _r("git", "hg", "strip", "rewrites history"),
    _r("git", "hg", "update", DISCARD_CHANGES, any_of="-C --clean"),
    _r("git", "hg", "revert", DISCARD_CHANGES, any_of="--all"),
    _r("git", "svn", "revert", DISCARD_CHANGES),
    # --- filesystem (rm, find, dd, truncation in code) ---
    _r("fs", "shred srm wipe", "", SHREDS),
    _r("fs", "rsync", "", "deletes files at the destination",
       any_of="--delete --delete-before --delete-during --delete-after --delete-delay --delete-excluded "
              "--remove-source-files", unless="-n --dry-run"),
    _r("fs", "tar", "", "deletes files after archiving", any_of="--remove-files"),
    # --- disks and filesystems (dcg system.disk) ---
    _r("disk", "mkfs mke2fs mkswap mkdosfs mkntfs mkfs.ext2 mkfs.ext3 mkfs.ext4 mkfs.xfs mkfs.btrfs "
               "mkfs.vfat mkfs.fat mkfs.ntfs mkfs.exfat mkfs.f2fs newfs", "", "formats a filesystem"),
    _r("disk", "fdisk sfdisk cfdisk gdisk sgdisk parted", "", "changes disk partitions",
       unless="-l --list -p --print -d --dump -v --version -h --help"),
    _r("disk", "wipefs", "", "erases filesystem signatures", any_of="-a --all -o --offset",
       unless="-n --no-act"),
    _r("disk", "blkdiscard", "", "discards all data on a device"),
    _r("disk", "hdparm", "", "erases a disk", any_of="--security-erase --security-erase-enhanced "
                                                      "--trim-sector-ranges"),
    _r("disk", "cryptsetup", "luksFormat", "erases a disk (new encrypted volume)"),
    _r("disk", "cryptsetup", "erase", "destroys an encrypted volume's keys"),
    _r("disk", "lvremove vgremove pvremove", "", "destroys a storage volume"),
    _r("disk", "zpool", "destroy", "destroys a ZFS pool"),
    _r("disk", "zfs", "destroy", "destroys a ZFS dataset", unless="-n"),
    _r("disk", "mdadm", "", "erases RAID metadata", any_of="--zero-superblock"),
    _r("disk", "diskutil", "erase*", "erases a disk"),
    _r("disk", "diskutil", "partitionDisk", "changes disk partitions"),
    # --- databases (SQL text in sql.py) ---
    _r("db", "dropdb", "", DROPS_DATABASE),
    _r("db", "mysqladmin", "drop", DROPS_DATABASE, anywhere=True),
    _r("db", "rails rake", "db:drop", DROPS_DATABASE, anywhere=True, group="rails"),
    *_each("db", "rails rake", "db:reset|db:schema:load", "resets the database", anywhere=True,
           group="rails"),
    _r("db", "manage.py django-admin", "flush", "deletes every database row", anywhere=True,
       unless="--help"),
    _r("db", "prisma", "migrate reset", "resets the database"),
    _r("db", "prisma", "db push", "resets the database", any_of="--force-reset"),
    *_each("db", "redis-cli", "flushall|flushdb", REDIS_FLUSH, anywhere=True, nocase=True),
    # --- Kubernetes ---
    *_each("k8s", K8S, "delete ns|delete namespace*", "deletes a Kubernetes namespace", anywhere=True,
           unless=K8S_DRY, group="k8s-del"),
    _r("k8s", K8S, "delete", "deletes Kubernetes resources", anywhere=True, unless=K8S_DRY, group="k8s-del"),
    _r("k8s", K8S, "drain", "evicts every pod from a node", anywhere=True, unless=K8S_DRY),
    _r("k8s", K8S, "replace", "deletes and recreates Kubernetes resources", any_of="--force",
       anywhere=True, unless=K8S_DRY),
    _r("k8s", K8S, "scale", "scales a workload to zero", any_of="--replicas=0", anywhere=True,
       unless=K8S_DRY),
    _r("k8s", K8S, "apply", "deletes resources missing from the manifest", any_of="--prune",
       anywhere=True, unless=K8S_DRY),
    # --- Helm ---
    *_each("helm", "helm", "uninstall|delete|del|un", "uninstalls a Helm release", unless="--dry-run"),
    _r("helm", "helm", "rollback", "rolls back a Helm release", unless="--dry-run"),
    # --- Terraform / OpenTofu / Pulumi / CDK ---
    _r("terraform", TF, "destroy", "destroys Terraform infrastructure", unless="-help --help"),
    *_each("terraform", TF, "run-all destroy|destroy-all", "destroys Terraform infrastructure"),
    _r("terraform", TF, "apply", "destroys Terraform infrastructure", any_of="-destroy", group="tf-apply"),
    _r("terraform", TF, "apply", "applies infrastructure changes without review", any_of="-auto-approve",
       group="tf-apply"),
    _r("terraform", TF, "state rm", "removes resources from Terraform state", unless="-dry-run"),
    _r("terraform", TF, "state push", "overwrites Terraform state"),
    _r("terraform", TF, "force-unlock", "force-unlocks Terraform state"),
    _r("terraform", TF, "workspace delete", "deletes a Terraform workspace"),
    _r("terraform", TF, "taint", "forces a resource to be destroyed and recreated"),
    _r("terraform", "pulumi", "destroy", "destroys Pulumi infrastructure", unless="--preview-only"),
    _r("terraform", "pulumi", "stack rm", "deletes a Pulumi stack"),
    _r("terraform", "cdk", "destroy", "destroys CDK infrastructure"),
    _r("terraform", "serverless sls", "remove", "deletes a deployed service"),
    _r("terraform", "sam", "delete", "deletes a deployed stack"),
    # --- cloud CLIs ---
    _r("cloud", "aws", "s3 rm", "deletes S3 objects recursively", any_of="--recursive", unless="--dryrun",
       group="s3rm"),
    _r("cloud", "aws", "s3 rm", "deletes an S3 object", unless="--dryrun", group="s3rm"),
    _r("cloud", "aws", "s3 rb", "deletes an S3 bucket"),
    _r("cloud", "aws", "s3 sync", "deletes S3 objects missing from the source", any_of="--delete",
       unless="--dryrun"),
    _r("cloud", "aws", "ec2 terminate-instances", "terminates EC2 instances", unless="--dry-run",
       group="aws"),
    *_each("cloud", "aws", "* delete-*|* terminate-*|* remove-*|* purge-*|* deregister-*",
           "deletes cloud resources", unless="--dry-run", group="aws"),
    _r("cloud", "gcloud", "projects delete", "deletes a cloud project", group="gcloud"),
    _r("cloud", "gcloud", "storage rm", "deletes cloud storage objects", group="gcloud"),
    _r("cloud", "gcloud", "delete", "deletes cloud resources", anywhere=True, group="gcloud"),
    _r("cloud", "gsutil", "rm", "deletes cloud storage objects", anywhere=True),
    _r("cloud", "gsutil", "rb", "deletes a cloud storage bucket", anywhere=True),
    _r("cloud", "az", "group delete", "deletes an Azure resource group", group="az"),
    _r("cloud", "az", "delete", "deletes cloud resources", anywhere=True, group="az"),
    _r("cloud", "doctl", "delete", "deletes cloud resources", anywhere=True),
    _r("cloud", "heroku", "apps:destroy", "deletes a Heroku app"),
    *_each("cloud", "fly flyctl", "apps destroy|destroy", "deletes a Fly app"),
    *_each("cloud", "vercel", "remove|rm", "deletes a Vercel deployment"),
    _r("cloud", "gh", "repo delete", "deletes a GitHub repository"),
    _r("cloud", "gh", "release delete", "deletes a GitHub release"),
    _r("cloud", "gh", "api", "sends a DELETE request to the GitHub API",
       any_of="-X=DELETE --method=DELETE"),
    # --- Docker / Podman ---
    _r("docker", DOCKER, "system prune", "deletes unused Docker data"),
    _r("docker", DOCKER, "* prune", "deletes unused Docker data"),
    *_each("docker", DOCKER, "volume rm|volume remove", "deletes Docker volumes"),
    *_each("docker", DOCKER, "rm|container rm", "force-removes running containers", any_of="-f --force"),
    *_each("docker", DOCKER, "rmi|image rm", "force-removes images", any_of="-f --force"),
    _r("docker", DOCKER, "compose down", "deletes Docker volumes", any_of="-v --volumes"),
    _r("docker", COMPOSE, "down", "deletes Docker volumes", any_of="-v --volumes"),
    _r("docker", DOCKER, "compose rm", "deletes Docker volumes", any_of="-v --volumes"),
    # --- publishing (irreversible external side effects) ---
    _r("publish", "npm pnpm", "publish", "publishes a package", unless=DRY),
    _r("publish", "npm", "unpublish", "removes a published package", unless=DRY),
    _r("publish", "npm", "deprecate", "deprecates a published package", unless=DRY),
    *_each("publish", "yarn", "publish|npm publish", "publishes a package", unless=DRY),
    _r("publish", "twine", "upload", "publishes a package"),
    _r("publish", "uv poetry flit hatch pdm", "publish", "publishes a package", unless="--dry-run"),
    _r("publish", "cargo", "publish", "publishes a crate", unless="--dry-run -n"),
    _r("publish", "cargo", "yank", "yanks a published crate"),
    _r("publish", "gem", "push", "publishes a gem"),
    _r("publish", "gem", "yank", "yanks a published gem"),
    *_each("publish", DOCKER, "push|image push", "publishes a container image"),
    _r("publish", "mvn", "deploy", "publishes a package", anywhere=True),
    _r("publish", "gradle gradlew", "publish*", "publishes a package", anywhere=True),
    _r("publish", "dotnet", "nuget push", "publishes a package"),
    _r("publish", "gh", "release create", "publishes a GitHub release"),
    _r("publish", "vsce ovsx", "publish", "publishes an extension"),
    _r("publish", "helm", "push", "publishes a chart"),
    _r("publish", "pod", "trunk push", "publishes a pod"),
    _r("publish", "mix", "hex.publish", "publishes a package"),
    _r("publish", "dart flutter", "pub publish", "publishes a package", unless="--dry-run -n"),
    # --- power ---
    _r("power", "shutdown", "", "shuts down or reboots the machine", unless="-c --help"),
    _r("power", "reboot poweroff halt", "", "shuts down or reboots the machine", unless="--help"),
    *_each("power", "systemctl loginctl", "poweroff|reboot", "shuts down or reboots the machine"),
    *_each("power", "systemctl", "halt|kexec", "shuts down or reboots the machine"),
    *_each("service", "systemctl", "stop|disable|mask|kill", "stops or disables a service"),
    *_each("power", "systemctl loginctl", "suspend|hibernate", "suspends the machine"),
    *_each("power", "systemctl", "rescue|emergency", "switches the machine to rescue mode"),
    *_each("power", "init telinit", "0|6", "shuts down or reboots the machine"),
    # --- cron ---
    _r("cron", "crontab", "", "removes every cron job", any_of="-r", group="cron"),
    _r("cron", "crontab", "", "edits the crontab", any_of="-e", group="cron"),
    _r("cron", "crontab", "*", "replaces the crontab", unless="-l", group="cron"),
    # --- processes (kill in code) ---
    _r("process", "pkill killall", "", KILLS_BY_NAME, unless="-l --list -V --version --help"),
    _r("process", "killall5", "", SIGNALS_ALL),
    # --- system administration ---
    _r("system", "iptables ip6tables", "", "flushes firewall rules", any_of="-F --flush -X --delete-chain"),
    _r("system", "nft", "flush ruleset", "flushes firewall rules"),
    _r("system", "ufw", "disable", "disables the firewall", unless="--dry-run"),
    _r("system", "ufw", "reset", "flushes firewall rules", unless="--dry-run"),
    _r("system", "userdel deluser", "", "deletes a user account"),
    _r("system", "passwd", "", "removes a password", any_of="-d --delete"),
)

# Options that take a separate value, per tool, so that the value is not read as a subcommand
# (``kubectl -n prod delete pod x``: ``prod`` is not the subcommand).
VALUED: dict[str, frozenset[str]] = {
    "git": GIT_GLOBAL_VALUED,  # declared once, as git's global options (commands/gitglobal.py)
    "kubectl": frozenset({"-n", "--namespace", "--context", "--cluster", "--user", "-s", "--server",
                          "--kubeconfig", "--token", "--as", "--as-group", "--request-timeout", "-l",
                          "--selector", "-f", "--filename", "-o", "--output", "-c", "--container",
                          "--replicas",
                          "--timeout", "--grace-period"}),
    "helm": frozenset({"-n", "--namespace", "--kube-context", "--kubeconfig", "--repository-config",
                       "--registry-config", "--timeout"}),
    "docker": frozenset({"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "-f", "--file",
                         "-p", "--project-name", "--profile", "--env-file", "--project-directory",
                         "--filter", "-t", "--time"}),
    "aws": frozenset({"--profile", "--region", "--output", "--endpoint-url", "--query", "--color",
                      "--cli-read-timeout", "--cli-connect-timeout", "--ca-bundle"}),
    "gcloud": frozenset({"--project", "--account", "--configuration", "--format", "--zone", "--region",
                         "--verbosity", "--impersonate-service-account"}),
    "az": frozenset({"-g", "--resource-group", "-n", "--name", "-o", "--output", "--subscription",
                     "--query"}),
    "npm": frozenset({"--registry", "--tag", "--otp", "--access", "-w", "--workspace", "--prefix"}),
    "cargo": frozenset({"--registry", "--token", "-p", "--package", "--manifest-path", "--index",
                        "--config", "-Z"}),
    "redis-cli": frozenset({"-h", "-p", "-a", "-n", "-u", "-s", "--user", "--pass", "-r", "-i"}),
    "systemctl": frozenset({"-H", "--host", "-M", "--machine", "-t", "--type", "--state"}),
    "gh": frozenset({"-R", "--repo", "-X", "--method", "-H", "--header", "-f", "--field", "-F",
                     "--raw-field", "--hostname", "--jq", "-q", "--template", "-t"}),
    "parallel": frozenset({"-j", "--jobs", "-S", "--sshlogin", "--joblog", "-a", "--arg-file",
                           "-d", "--delimiter", "-I", "--timeout", "--results", "--tmpdir"}),
    "gsutil": frozenset({"-o", "-h", "-u"}),
    "helmfile": frozenset({"-f", "--file", "-e", "--environment"}),
    "terraform": frozenset(),
}
VALUED["oc"] = VALUED["kubectl"]
VALUED["podman"] = VALUED["nerdctl"] = VALUED["docker"]
VALUED["pnpm"] = VALUED["yarn"] = VALUED["npm"]

# --------------------------------------------------------------------------- name sets

PRIVILEGE = frozenset({"sudo", "doas", "pkexec", "run0", "su", "sudoedit"})
PYTHON = re.compile(r"python(3(\.\d+)?)?")  # interpreters whose -c code is read with ast
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox-sh", "csh", "tcsh"})
# Interpreters that run a script read from standard input when given no script operand.
INTERPRETERS = SHELLS | frozenset({"python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node",
                                   "nodejs", "php", "pwsh", "powershell", "lua", "Rscript", "osascript",
                                   "deno", "bun", "source", "."})
# Options whose value is the program text (so the interpreter does not read stdin).
PROGRAM_OPTS = frozenset({"-c", "-e", "-E", "--eval", "-p", "--print", "-r", "--command", "-Command"})
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "http", "https", "xh", "lwp-request", "GET", "nc", "ncat",
                         "socat", "ftp", "tftp", "aria2c", "httpie", "curlie", "iwr", "Invoke-WebRequest"})
DECODERS = frozenset({"base64", "base32", "xxd", "uudecode", "openssl", "gunzip", "zcat", "gzip", "bzip2",
                      "xz", "rev", "tr"})
DB_CLIENTS = frozenset({"psql", "mysql", "mariadb", "sqlite3", "sqlite", "duckdb", "clickhouse-client",
                        "clickhouse", "cockroach", "sqlcmd", "snowsql", "mongo", "mongosh", "bq", "usql",
                        "pgcli", "mycli", "litecli"})
# Hosts of another command line: the words after them are a command that runs elsewhere.
EXEC_HOSTS = frozenset({"docker", "podman", "nerdctl", "kubectl", "oc"})


# --------------------------------------------------------------------------- database clients, ssh, docker


@record
class DbSpec:
    valued: frozenset[str]          # options that take a value (so it is not read as SQL)
    sql_opts: frozenset[str]        # options whose value is SQL / JS
    sql_from: int | None = None     # positionals from this index on are SQL (sqlite3 db 'SQL')


def _fs(*a: str) -> frozenset[str]:
    return frozenset(a)


DB_SPECS: dict[str, DbSpec] = {
    "psql": DbSpec(_fs("-d", "--dbname", "-h", "--host", "-U", "--username", "-p", "--port", "-f", "--file",
                        "-v", "--set", "--variable", "-o", "--output", "-F", "-R", "-P", "-T", "-L"),
                    _fs("-c", "--command")),
    "pgcli": DbSpec(_fs("-d", "-h", "-U", "-p"), _fs("-e", "--execute")),
    "mysql": DbSpec(_fs("-u", "--user", "-h", "--host", "-D", "--database", "-P", "--port", "-S",
                         "--socket"),
                     _fs("-e", "--execute")),
    "sqlite3": DbSpec(_fs("-separator", "-nullvalue", "-newline", "-init"), _fs("-cmd"), sql_from=1),
    "duckdb": DbSpec(_fs("-separator", "-nullvalue", "-init"), _fs("-c", "-s", "-cmd"), sql_from=1),
    "clickhouse-client": DbSpec(_fs("-h", "--host", "-u", "--user", "--password", "-d", "--database",
                                     "--port"), _fs("-q", "--query")),
    "cockroach": DbSpec(_fs("--url", "--host", "-u", "--user", "-d", "--database"), _fs("-e", "--execute")),
    "sqlcmd": DbSpec(_fs("-S", "-U", "-P", "-d", "-i", "-o"), _fs("-Q", "-q")),
    "snowsql": DbSpec(_fs("-a", "-u", "-d", "-s", "-w", "-r", "-f"), _fs("-q", "--query")),
    "mongosh": DbSpec(_fs("-u", "--username", "-p", "--password", "--host", "--port",
                           "--authenticationDatabase"), _fs("--eval")),
    "bq": DbSpec(_fs("--project_id", "--format", "--location"), _fs(), sql_from=1),
    "usql": DbSpec(_fs("-f", "--file", "-o"), _fs("-c", "--command")),
}
DB_SPECS["mariadb"] = DB_SPECS["mycli"] = DB_SPECS["mysql"]
DB_SPECS["sqlite"] = DB_SPECS["litecli"] = DB_SPECS["sqlite3"]
DB_SPECS["clickhouse"] = DB_SPECS["clickhouse-client"]
DB_SPECS["mongo"] = DB_SPECS["mongosh"]

SSH_VALUED = _fs("-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-e", "-m", "-O",
                  "-Q", "-S", "-W", "-w", "-B", "-I")
DOCKER_RUN_VALUED = _fs("-u", "--user", "-e", "--env", "-w", "--workdir", "--name", "-v", "--volume", "-p",
                         "--publish", "--entrypoint", "--network", "--net", "--env-file", "--platform", "-m",
                         "--memory", "--mount", "-l", "--label", "--cpus", "--gpus", "--restart", "-h",
                         "--hostname", "--add-host", "--device", "--cap-add", "--cap-drop", "--pull",
                         "--detach-keys", "--security-opt", "--ulimit", "--shm-size", "--tmpfs", "--ipc",
                         "--pid", "--dns", "--log-driver", "--log-opt", "--runtime", "--stop-signal",
                         "--index", "-c", "--cpu-shares")
