"""The sensitive-path tables: which files leak secrets, which plant code that runs later.

Sources and reasoning: ``research/anchors-destructive.md`` §8 (dcg ``sensitive.rs`` and
``credential_files``, karanb192 ``protect-secrets``/``config-guard``, sandbox-runtime
``DANGEROUS_FILES``, openmoat ``GIT_EXEC_VECTORS``, MITRE ATT&CK ids).

Pattern syntax (matching folds case, as dcg does: ``~/.SSH/id_rsa`` opens the key on macOS):

* ``~/…``  under a home directory: the context's HOME, and also ``/root``, ``/home/*`` and
  ``/Users/*`` (another user's key is as secret as one's own);
* ``/…``   an absolute path;
* otherwise anywhere in the tree (``.env`` matches ``./.env`` and ``/srv/app/.env``).

Segments are bash globs; ``**`` is any number of directories (zero included), ``{a,b}``
alternatives. ``exclude`` lists basename globs that are the benign look-alikes of an entry.

A LEAK entry is hit by any read or write (reading exposes the secret, writing replaces it). An
IMPLANT entry is hit by writes only (reading ``~/.bashrc`` is fine; writing it runs code at the
next shell). An entry may be both (``.git/config``: the CI token sits there; hooks run from it).

A LEAK entry with ``when`` is a secret only where the file's text holds a credential
(``paths/content.py`` reads it, failing closed on a file it cannot read): config files every run
of a tool reads, so that hiding them always would break the tool (git without ``~/.gitconfig``
commits as nobody), while one that carries a token must not be printed.
"""

from __future__ import annotations

from ..._record import record


@record
class PathRule:
    pattern: str
    leak: bool
    implant: bool
    why: str
    exclude: tuple[str, ...] = ()
    when: str = ""   # a content check of paths/content.py; "" for a secret whatever it holds


def _leak_when(pattern: str, when: str, why: str) -> PathRule:
    return PathRule(pattern, True, False, why, (), when)


def _leak(pattern: str, why: str, exclude: tuple[str, ...] = ()) -> PathRule:
    return PathRule(pattern, True, False, why, exclude)


def _implant(pattern: str, why: str, exclude: tuple[str, ...] = ()) -> PathRule:
    return PathRule(pattern, False, True, why, exclude)


def _both(pattern: str, why: str, exclude: tuple[str, ...] = ()) -> PathRule:
    return PathRule(pattern, True, True, why, exclude)


_PUB = ("*.pub",)
# Names under ~/.ssh that are not private keys (public keys, host lists, client config).
_SSH_PUBLIC = ("*.pub", "known_hosts", "known_hosts.old", "known_hosts2", "config", "authorized_keys",
               "authorized_keys2", "rc", "environment", "*.pub.*", "agent", "sockets")
# Certificates and bundles are public; the private-key `.pem`s are what is left.
_PEM_PUBLIC = ("cacert.pem", "ca.pem", "ca-*.pem", "*-ca.pem", "*_ca.pem", "*cert*.pem", "*chain*.pem",
               "*bundle*.pem", "*pub*.pem", "*.crt.pem", "dhparam*.pem", "*csr*.pem")
# Templates of env files are committed on purpose and hold no secrets.
_ENV_TEMPLATES = ("*.example", "*.sample", "*.template", "*.dist", "*.defaults", "*.schema",
                  "*.example.*", "*.sample.*", "*.template.*", "*.tmpl", "*.tpl", "*.md", "*.txt",
                  "*.py", "*.ts", "*.js", "*.rb", "*.go", "*.rs", "*.d.ts", "*.test.ts")

# The code and documents a source directory named secrets/ holds (a module of a secrets manager).
_SECRETS_DIR_CODE = ("*.py", "*.ts", "*.tsx", "*.js", "*.jsx", "*.rb", "*.go", "*.rs", "*.java", "*.kt",
                     "*.c", "*.h", "*.cc", "*.cpp", "*.hpp", "*.cs", "*.swift", "*.scala", "*.php", "*.ex",
                     "*.exs", "*.md", "*.rst", "README*", ".gitkeep", ".gitignore", "*.example", "*.sample",
                     "*.template", "*.example.*", "*.sample.*", "*.template.*")

LEAK_RULES: tuple[PathRule, ...] = (
    # --- SSH (T1552.004) ---
    _leak("~/.ssh/**", "SSH private keys live here, whatever their name", _SSH_PUBLIC),
    _leak("id_{rsa,dsa,ecdsa,ed25519,ecdsa_sk,ed25519_sk}", "an SSH private key outside ~/.ssh", _PUB),
    _leak("/etc/ssh/ssh_host_*_key", "the host's SSH private keys", _PUB),
    # --- Cloud credentials (T1552.001) ---
    _leak("~/.aws/credentials", "AWS access keys"),
    _leak(".aws/credentials", "AWS access keys (a copy in a project is as live as HOME's)"),
    _leak("~/.aws/{sso,cli,login}/cache/**", "cached AWS session tokens"),
    _leak("~/.config/gcloud/**", "gcloud OAuth tokens, application-default and legacy credentials"),
    _leak("~/.azure/**", "Azure CLI tokens and service-principal secrets (msal_token_cache.*, "
          "service_principal_entries.*, Azure DevOps PATs), whatever a CLI version names them"),
    _leak("~/.oci/**", "Oracle Cloud API keys"),
    _leak("~/.s3cfg", "s3cmd access keys"),
    _leak(".boto", "boto/gsutil credentials"),
    _leak("~/.terraform.d/credentials.tfrc.json", "Terraform Cloud API token"),
    _leak("~/.config/rclone/rclone.conf", "rclone remotes with their tokens"),
    _leak("~/.config/doctl/config.yaml", "DigitalOcean API token"),
    _leak("~/.config/hcloud/cli.toml", "Hetzner Cloud API token"),
    _leak("~/.databrickscfg", "Databricks personal access tokens"),
    _leak("~/.terraformrc", "Terraform CLI config: credentials blocks hold API tokens"),
    _leak("~/.config/containers/auth.json", "podman/buildah/skopeo registry auth"),
    _leak("/run/user/*/containers/auth.json", "podman/buildah/skopeo registry auth (the default place)"),
    _leak("~/.config/helm/{repositories.yaml,registry/config.json}",
          "Helm repository passwords, OCI registry auth"),
    _leak("~/.talos/config", "Talos client certificate and key"),
    _leak("~/.tsh/keys/**", "Teleport private keys and certificates"),
    _leak("~/.pulumi/credentials.json", "Pulumi access tokens"),
    _leak("~/.config/openstack/{clouds,secure}.yaml", "OpenStack passwords and application credentials"),
    _leak("/etc/openstack/{clouds,secure}.yaml", "OpenStack passwords (system-wide clouds.yaml)"),
    _leak("~/.config/linode-cli", "Linode API token"),
    _leak("~/.config/scw/config.yaml", "Scaleway secret key"),
    _leak("~/.aliyun/config.json", "Alibaba Cloud access keys"),
    _leak("~/.bluemix/config.json", "IBM Cloud IAM and refresh tokens"),
    _leak("~/.{mc,mcli}/config.json", "MinIO client access and secret keys"),
    _leak("{~/.passwd-s3fs,/etc/passwd-s3fs}", "s3fs access keys"),
    _leak("~/.cloudflared/{cert.pem,*.json}", "cloudflared origin certificate token and tunnel secrets"),
    # --- Developer-tool tokens ---
    _leak("~/.config/gh/hosts.yml", "GitHub CLI OAuth token"),
    _leak("~/.config/hub", "hub GitHub token"),
    _leak("~/.config/glab-cli/config.yml", "GitLab CLI token"),
    _leak("~/.{config/composer,composer}/auth.json", "Composer registry and GitHub tokens"),
    _leak("~/.{cache/huggingface,huggingface}/token", "Hugging Face access token"),
    _leak("~/.{config/ngrok,ngrok2}/ngrok.yml", "ngrok authtoken"),
    _leak("~/.config/sops/age/keys.txt", "age private keys that decrypt SOPS files"),
    _leak("~/.fly/config.yml", "Fly.io access token"),
    _leak("~/.circleci/cli.yml", "CircleCI API token"),
    _leak("~/.{config/.wrangler,wrangler}/config/*.toml", "Cloudflare wrangler OAuth token"),
    _leak("~/.{config/netlify,netlify}/config.json", "Netlify access token"),
    _leak("~/.{local/share/com.vercel.cli,vercel,now}/auth.json", "Vercel access token"),
    _leak("~/.railway/config.json", "Railway access token"),
    _leak("~/.twilio-cli/config.json", "Twilio API keys"),
    _leak("~/.config/stripe/config.toml", "Stripe API keys"),
    _leak(".sentryclirc", "Sentry auth token (sentry-cli reads it in the project too)"),
    _leak("~/.config/tea/config.yml", "Gitea CLI token"),
    _leak("~/.config/configstore/*.json", "tokens node CLIs keep there (firebase-tools, snyk …)"),
    _leak("~/.jfrog/jfrog-cli.conf*", "JFrog access tokens"),
    _leak("~/.subversion/auth/**", "Subversion's cached passwords (plain text on Linux)"),
    _leak("~/.supabase/access-token", "Supabase access token"),
    _leak("~/.config/github-copilot/{hosts,apps}.json", "GitHub Copilot tokens"),
    _leak("{.netrc,_netrc}", "login/password pairs for curl, git, ftp"),
    _leak(".git-credentials", "git credential-store passwords in plain text (any --file copy)"),
    _leak(".authinfo{,.gpg}", "Emacs/Gnus auth-source and git-credential-netrc passwords"),
    _leak("~/.config/git/credentials", "git credential-store (XDG location)"),
    # --- Credentials inside a config file its tool reads at every run (when: paths/content.py) ---
    _leak_when("{~/.gitconfig,~/.config/git/config,/etc/gitconfig}", "git-config",
               "git config holding a credential: a token in a remote or url.<base>.insteadOf URL, "
               "an http.extraHeader, a password key"),
    _leak_when(".git/{config.worktree,worktrees/*/config.worktree,modules/**/config,modules/**/config.worktree}",
               "git-config", "a repository's other config files holding a credential, as .git/config "
               "may: per-worktree config, a linked worktree's, a submodule's (its remote URL)"),
    _leak_when(".{npmrc,yarnrc,yarnrc.yml}", "npm-config",
               "a project's npm/Yarn config holding a registry token (_authToken, _auth, _password, "
               "npmAuthToken, npmAuthIdent) or a URL with user:password: npm and Yarn read it as HOME's"),
    _leak_when("bunfig.toml", "bunfig",
               "a project's Bun config holding a registry token or password ([install] registry, "
               "[install.scopes]) or a URL with user:password: Bun reads it as ~/.bunfig.toml"),
    _leak_when(".bundle/config", "bundle-config",
               "a project's Bundler config holding gem-server credentials (BUNDLE_<HOST>: user:password, "
               "which `bundle config set --local` writes there)"),
    _leak(".pypirc", "PyPI upload token (twine --config-file takes a project copy)"),
    _leak("~/.config/pypoetry/auth.toml", "Poetry repository passwords (without a keyring)"),
    _leak("~/.local/share/uv/credentials/**", "uv index credentials"),
    _leak("~/.gem/credentials", "RubyGems API key"),
    _leak("~/.bundle/config", "Bundler gem-server credentials (BUNDLE_<HOST>=user:password)"),
    _leak("~/.m2/settings-security.xml", "Maven master password (decrypts settings.xml passwords)"),
    _leak("~/.{sbt,ivy2}/.credentials", "sbt/Ivy publishing credentials"),
    _leak("~/.{nuget/NuGet,config/NuGet}/NuGet.Config",
          "NuGet feed passwords (ClearTextPassword) and API keys"),
    _leak("~/.{config/dart/pub-credentials.json,pub-cache/credentials.json}", "pub.dev OAuth tokens"),
    _leak("~/.hex/hex.config", "Hex API keys"),
    _leak("~/.pause", "PAUSE (CPAN upload) password"),
    _leak("~/.Renviron", "R's environment file (GITHUB_PAT and API keys)"),
    _leak("~/.android/adbkey", "the ADB private key every paired device trusts"),
    _leak("{~/.cargo,.cargo}/credentials{,.toml}", "crates.io token (a project's .cargo is CARGO_HOME "
          "in many CI set-ups)"),
    _leak(".vault-token", "HashiCorp Vault token"),
    _leak(".dev.vars{,.*}", "Cloudflare wrangler's local secrets (its .env)", _ENV_TEMPLATES),
    _leak("~/.config/solana/*.json", "Solana keypairs (id.json signs transactions)"),
    _leak("~/.ethereum/keystore/**", "Ethereum account keys"),
    _leak("~/.age/**", "age identities (key.txt)"),
    _leak("~/.config/op/**", "1Password CLI session"),
    _leak("~/.password-store/**", "pass(1) password store"),
    _leak("~/.local/share/keyrings/**", "GNOME keyring"),
    _leak("~/.local/share/kwalletd/**", "KDE wallet"),
    _leak("~/.config/JetBrains/*/c.{kdbx,pwd}", "JetBrains IDE credential store without a keyring"),
    _leak("~/.pki/nssdb/**", "the NSS database Chrome keeps client-certificate keys in"),
    _leak("~/.config/{Code,Code - Insiders,Code - OSS,VSCodium,Cursor,Windsurf}/User/globalStorage/"
          "state.vscdb{,.backup}",
          "the editor's secret storage (extension tokens; Cursor's access token in plain text)"),
    _leak("~/.local/share/jupyter/runtime/*.json", "Jupyter kernel keys and server tokens (run code there)"),
    _leak("~/Library/Keychains/**", "macOS keychain (T1555.001)"),
    # --- Databases ---
    _leak(".pgpass", "PostgreSQL passwords"),
    _leak(".my.cnf", "MySQL client password"),
    _leak("~/.mylogin.cnf", "MySQL login paths (obfuscated passwords)"),
    _leak("/etc/mysql/debian.cnf", "the MySQL maintenance account's password"),
    # --- Environment files (dcg lists these names anywhere in the tree) ---
    _leak(".env", "application secrets loaded into the environment"),
    _leak(".env.*", "per-stage application secrets", _ENV_TEMPLATES),
    _leak("*.env", "application secrets (name.env convention)", _ENV_TEMPLATES + (".env",)),
    # --- GnuPG ---
    _leak("~/.gnupg/**", "GnuPG private keys and trust database"),
    # --- Keys and service accounts anywhere ---
    _leak("*.pem", "PEM files are often private keys (EC2 key pairs: name.pem)", _PEM_PUBLIC),
    _leak("*.{key,p12,pfx,jks,keystore,ppk,p8}", "private keys and key stores",
          ("*.pub",)),
    _leak("{*service*account*,*serviceaccount*,*-sa-key,client_secret*,credentials,secrets}.json",
          "cloud service-account keys and OAuth client secrets"),
    _leak("secrets.{yml,yaml,toml,ini,env}", "application secrets files"),
    _leak(".secrets{,.*}", "application secrets files", _ENV_TEMPLATES),
    _leak("*.tfstate{,.backup}", "Terraform state holds every generated secret in plain text"),
    _leak("secrets/**", "a secrets directory (Docker Compose file secrets: secrets/db_password.txt)",
          _SECRETS_DIR_CODE),
    _leak("/{,var/}run/secrets/**", "Docker secrets and the Kubernetes service-account token live here"),
    # --- System and process secrets ---
    _leak("/etc/{shadow,gshadow,shadow-,gshadow-}", "password hashes"),
    _leak("/etc/security/opasswd", "old password hashes"),
    _leak("/etc/ssl/private/**", "the host's TLS private keys"),
    _leak("/etc/letsencrypt/accounts/**", "ACME account keys"),
    _leak("{*.keytab,/etc/krb5.keytab}", "Kerberos keys (the host's, spelled out for the sandbox)"),
    _leak("/tmp/krb5cc_*", "Kerberos ticket caches: whoever reads one acts as the user"),
    _leak("*.ovpn", "OpenVPN profiles embed the client's private key"),
    _leak("/etc/wireguard/**", "WireGuard private keys"),
    _leak("/etc/NetworkManager/system-connections/**", "Wi-Fi and VPN passwords"),
    _leak("/etc/ppp/{chap,pap}-secrets", "PPP passwords"),
    _leak("/etc/sssd/sssd.conf", "LDAP bind password"),
    _leak("~/.{fetchmailrc,msmtprc}", "mail account passwords"),
    _leak("/dev/{sd*,hd*,vd*,xvd*,nvme*,mmcblk*,dm-*,md*,loop*,nbd*,sr*,zram*,ram*}",
          "a raw block device: every file on the disk, secrets included"),
    _leak("/dev/{disk,mapper,block}/**", "raw block devices by id, label or mapping"),
    _leak("/dev/{mem,kmem,port}", "physical and kernel memory"),
    _leak("/proc/kcore", "the kernel's memory"),
    _leak("/proc/*/environ", "another process's environment (tokens in env vars)"),
    _leak("/proc/*/{mem,maps}", "another process's memory"),
    _leak("/proc/*/task/*/{environ,mem,maps}", "a thread's environment and memory (its process's)"),
    _leak("~/.{bash,zsh,sh,python,psql,mysql,node_repl,sqlite,rediscli,irb,lesshst}_history",
          "shell and REPL history holds typed passwords and tokens"),
    _leak("~/.local/share/fish/fish_history", "fish history"),
    _leak("~/.zhistory", "zsh history (alternative name)"),
    _leak("~/.histfile", "zsh history (alternative name)"),
    # --- Browser profiles (T1555.003, T1539) ---
    _leak("~/.config/{google-chrome,chromium,BraveSoftware,microsoft-edge}/**/{Login Data,Cookies,Web Data}",
          "saved browser passwords and cookies"),
    _leak("~/Library/Application Support/{Google/Chrome,Chromium,BraveSoftware}/**/{Login Data,Cookies}",
          "saved browser passwords and cookies (macOS)"),
    _leak("~/.mozilla/firefox/**/{logins.json,key4.db,key3.db,cookies.sqlite}", "Firefox passwords"),
    _leak("~/.thunderbird/**/{logins.json,key4.db,key3.db,cookies.sqlite}", "Thunderbird passwords"),
    _leak("~/Library/Application Support/Firefox/**/{logins.json,key4.db,cookies.sqlite}",
          "Firefox passwords (macOS)"),
    # --- Agent credentials (the Nx s1ngularity malware hunted these) ---
    _leak("~/.claude/.credentials.json", "Claude Code OAuth token (Linux)"),
    _leak("~/.codex/auth.json", "Codex CLI API key / tokens"),
    _leak("~/.gemini/{oauth_creds.json,google_accounts.json}", "Gemini CLI OAuth tokens"),
    _leak("~/.qwen/oauth_creds.json", "Qwen Code OAuth tokens"),
    _leak("~/.local/share/opencode/auth.json", "opencode provider API keys and tokens"),
    _leak("~/.config/io.datasette.llm/keys.json", "llm's provider API keys"),
)

BOTH_RULES: tuple[PathRule, ...] = (
    # Files that hold a secret *and* name programs to run.
    _both(".git/config", "CI checkouts leave the job token here; core.fsmonitor/hooksPath/pager run code"),
    _both("~/.aws/config", "credential_process runs a program; may hold keys"),
    _both("~/.kube/config{,.*}", "cluster tokens; exec credential plugins run programs"),
    _both("{~/.docker,.docker}/config.json", "registry auth (base64 user:password); credential helpers "
          "run programs (a project's .docker is DOCKER_CONFIG in CI set-ups)"),
    _both("~/.npmrc", "registry auth tokens; script-shell/node-options run code"),
    _both("~/.{yarnrc,yarnrc.yml}", "registry auth (npmAuthToken, _authToken); yarnPath runs a program"),
    _both("~/{.bunfig.toml,.config/.bunfig.toml}", "registry tokens; preload scripts run at every bun run "
          "(Bun reads $XDG_CONFIG_HOME/.bunfig.toml too)"),
    _both("pip.conf", "index-url with user:password; index-url and global.python re-point pip "
          "(osec.com write-up)"),
    # pip's own places, spelled out: the sandbox hides an anywhere name only at HOME's top and
    # in the workspace (sandbox/locations.masked_paths).
    _both("{~/.config/pip,~/.pip,/etc,/etc/xdg/pip}/pip.conf", "pip's user and system config: "
          "index-url with user:password"),
    _both("~/.m2/settings.xml", "Maven server passwords; mirrors and plugins"),
    _both("~/.gradle/gradle.properties", "signing and publishing credentials; org.gradle.jvmargs runs "
          "with every build"),
    _both("~/.claude.json", "Claude Code user state: primaryApiKey and MCP servers' env hold keys; "
          "MCP servers are programs it starts"),
    _both(".envrc", "direnv executes it on cd; usually exports secrets"),
    _both("/etc/sudoers{,.d/**}", "who may become root"),
    _both("~/.config/shellgate/**", "the gate's own user config: rules and stored approvals"),
    _both(".shellgate/**", "the gate's own project config: rules and stored approvals"),
    _both("~/.local/state/shellgate/**", "the gate's own audit log and session state"),
    _both("~/.cache/shellgate/**", "the gate's own caches: the sandbox probe and its seccomp filter"),
)

IMPLANT_RULES: tuple[PathRule, ...] = (
    # --- Shell startup files (T1546.004) ---
    _implant("~/.{bashrc,bash_profile,bash_login,bash_logout,profile,zshrc,zshenv,zprofile,zlogin,zlogout}",
             "runs at every shell start"),
    _implant("~/.{kshrc,mkshrc,cshrc,tcshrc,login,xprofile,xinitrc,xsession,xsessionrc,pam_environment}",
             "runs (or sets the environment) at login"),
    _implant("~/.{bashrc,zshrc,profile}.d/**", "sourced by the rc file"),
    _implant("~/.config/fish/**", "fish config and conf.d run at shell start"),
    _implant("~/.config/environment.d/**", "sets the environment of the user session"),
    _implant("~/.oh-my-zsh/custom/**", "sourced by every zsh"),
    _implant("~/.zsh/**", "commonly sourced by .zshrc"),
    _implant("/etc/{profile,bash.bashrc,bashrc,zshrc,zshenv,zprofile,environment}", "system-wide rc"),
    _implant("/etc/{profile.d,zsh}/**", "system-wide rc"),
    # --- Tools whose config names a program ---
    _implant("~/.ripgreprc", "rg --pre runs a program (sandbox-runtime DANGEROUS_FILES)"),
    _implant("~/.{vimrc,exrc,gvimrc}", "the editor runs it; `:!cmd` in it runs code"),
    _implant("~/.{vim,config/nvim}/**", "editor plugins run code"),
    _implant("~/.{emacs,emacs.el}", "Emacs Lisp runs at start"),
    _implant("~/.emacs.d/**", "Emacs Lisp runs at start"),
    _implant("~/.{inputrc,screenrc,tmux.conf}", "can bind keys to shell commands"),
    _implant("~/.config/tmux/**", "can bind keys to shell commands"),
    _implant("~/.{wgetrc,curlrc}", "changes where downloads come from and go"),
    _implant("~/.config/pip/**", "pip user config"),
    _implant("~/.pip/**", "pip user config (legacy)"),
    _implant("**/{site,dist}-packages/*.pth", "import lines in .pth files run at every Python start"),
    _implant("**/{site,dist}-packages/{sitecustomize,usercustomize}.py", "runs at every Python start"),
    _implant("**/bin/{activate,activate.csh,activate.fish,activate.nu,activate.ps1,activate_this.py}",
             "a virtualenv's activate script runs in the user's own shell (IDE terminals source it)"),
    _implant("~/.gradle/{init.gradle,init.d/**}", "Gradle init scripts run code"),
    _implant("~/.cargo/config{,.toml}", "cargo runner/rustc wrappers run programs"),
    _implant(".cargo/config{,.toml}", "cargo runner/rustc wrappers run programs"),
    # --- Git (hooks and program-valued config keys) ---
    _implant(".git/hooks/**", "git runs hooks on commit, checkout, push …"),
    _implant(".git/{config.worktree,info/attributes}", "worktree config and attribute drivers"),
    _implant(".git/commondir", "re-points git at another repository's config (core.fsmonitor …)"),
    _implant(".git/worktrees/*/{config*,hooks/**}", "linked-worktree config (openmoat GIT_EXEC_VECTORS)"),
    _implant(".git/modules/**/{hooks/**,config}", "submodule hooks and config"),
    _implant("~/.{config/wireshark,wireshark,local/lib/wireshark}/**",
             "tshark runs init.lua and Lua plug-ins from there at every start"),
    _implant("/usr/lib/*/wireshark/plugins/**", "tshark loads every plug-in there at every start"),
    _implant("~/.dpkg.cfg", "dpkg reads options from it at every run (admindir, root, pre-invoke hooks)"),
    _implant("/etc/dpkg/{dpkg.cfg,dpkg.cfg.d/**}", "dpkg's options: pre-invoke/post-invoke hooks run code"),
    _implant("/etc/apt/{apt.conf,apt.conf.d/**}", "APT::Update::Pre-Invoke and DPkg::Pre-Invoke run code"),
    _implant("/etc/nsswitch.conf", "names the NSS modules (libnss_NAME.so) every user or host lookup loads"),
    _implant("/usr/{,local/}lib/bfd-plugins/**", "nm, ar and objdump load every plug-in there"),
    _implant("~/.gitconfig", "user git config: aliases, pager, fsmonitor, hooksPath"),
    _implant("~/.config/git/{config,attributes,hooks/**}", "user git config (XDG location)"),
    _implant("/etc/gitconfig", "system git config"),
    _implant(".gitmodules", "submodule URLs and update commands (sandbox-runtime)"),
    _implant(".husky/**", "husky points core.hooksPath here"),
    _implant(".pre-commit-config.yaml", "pre-commit runs the hooks it names at every commit"),
    # --- CI and dev environments that run what the repository says ---
    _implant(".github/workflows/**", "CI runs these with the repository's secrets"),
    _implant(".devcontainer/**", "the editor builds and runs this container, with its commands"),
    _implant("~/.local/bin/**", "on PATH before the system: a planted `git` or `bwrap` runs later"),
    # --- Agent configuration (CVE-2025-59536, CVE-2026-21852, CVE-2026-33068) ---
    _implant(".mcp.json", "MCP servers are programs the agent starts"),
    _implant(".claude/settings*.json", "hooks, permissions, env of the agent"),
    _implant(".claude/{commands,agents,hooks,skills}/**", "agent commands, hooks and skills"),
    _implant("~/.claude/settings*.json", "user agent settings: hooks, permissions"),
    _implant("~/.claude/{commands,agents,hooks,skills,plugins}/**", "user agent commands, hooks, skills"),
    _implant("{.gemini,~/.gemini}/{settings.json,commands/**,extensions/**,policies/**}",
             "Gemini CLI settings, custom commands (!{…} runs shell), extensions, policy rules"),
    _implant("{.cursor,~/.cursor}/mcp.json", "Cursor MCP servers"),
    _implant("{.codex,~/.codex}/{config.toml,hooks.json,rules/**,prompts/**}",
             "Codex CLI config (MCP servers, sandbox mode), hooks, execpolicy rules, prompts"),
    _implant("/etc/claude-code/**", "managed agent settings"),
    # --- IDE configuration ---
    _implant(".vscode/{tasks,launch,settings}.json", "tasks run on folder open; settings name programs"),
    _implant("*.code-workspace", "workspace tasks and settings"),
    _implant(".idea/**", "run configurations and startup tasks (sandbox-runtime denies the directory)"),
    # --- SSH access (T1098.004) ---
    _implant("~/.ssh/{authorized_keys,authorized_keys2}", "grants login to whoever holds the key"),
    _implant("~/.ssh/{config,rc,environment}", "ProxyCommand/LocalCommand and rc run programs"),
    _implant("/etc/ssh/**", "sshd configuration", ("ssh_host_*",)),
    # --- OS persistence (T1053.003, T1543.002, T1547.013, T1543.001) ---
    _implant("/var/spool/cron/**", "crontabs"),
    _implant("/etc/{crontab,anacrontab}", "system crontab"),
    _implant("/etc/cron.*/**", "system cron jobs"),
    _implant("~/.config/systemd/user/**", "systemd user units run at login"),
    _implant("/{etc,lib,usr/lib}/systemd/**", "system units"),
    _implant("~/.config/autostart/**", "XDG autostart entries run at login"),
    _implant("/etc/xdg/autostart/**", "system XDG autostart"),
    _implant("~/Library/LaunchAgents/**", "macOS launch agents"),
    _implant("/Library/{LaunchAgents,LaunchDaemons}/**", "macOS launch agents and daemons"),
    _implant("/etc/{rc.local,init.d/**,pam.d/**,ld.so.preload,ld.so.conf,ld.so.conf.d/**}",
             "boot scripts, PAM modules, preloaded libraries"),
    _implant("/etc/{passwd,group}", "accounts and group membership"),
)

RULES: tuple[PathRule, ...] = LEAK_RULES + BOTH_RULES + IMPLANT_RULES

# Environment variables whose purpose is to point at one of the files above (dcg
# VARIABLE_ROOTS). Replaced by their usual value; any other variable makes a word dynamic.
VARIABLE_ROOTS: dict[str, str] = {
    "HOME": "~",
    "PWD": ".",
    "XDG_CONFIG_HOME": "~/.config",
    "XDG_DATA_HOME": "~/.local/share",
    "ZDOTDIR": "~",
    "GNUPGHOME": "~/.gnupg",
    "GH_CONFIG_DIR": "~/.config/gh",
    "DOCKER_CONFIG": "~/.docker",
    "KUBECONFIG": "~/.kube/config",
    "AWS_SHARED_CREDENTIALS_FILE": "~/.aws/credentials",
    "AWS_CONFIG_FILE": "~/.aws/config",
    "NPM_CONFIG_USERCONFIG": "~/.npmrc",
    "CLAUDE_CONFIG_DIR": "~/.claude",
    "CODEX_HOME": "~/.codex",
    "CARGO_HOME": "~/.cargo",
    "GIT_DIR": ".git",
}

# The variables whose value the gate *knows* rather than guesses: HOME (the context's home) and
# PWD (the directory the command runs in). Where a path decides a boundary (inside the
# workspace or not, a "never" target) only these are replaced; any other variable leaves the
# path unknown, and an unknown path counts as outside the workspace.
KNOWN_VARIABLES: dict[str, str] = {"HOME": "~", "PWD": "."}
