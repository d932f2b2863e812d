#!/usr/bin/env python3
"""deploy/README.md, run: every `sh` block of it, in order, with bash -e,
against a throwaway PostgreSQL cluster (--db), with its files under a
scratch root and its ports moved to free ones. Where a CI machine cannot do
what the file says (no systemd running, no network, no DNS name, no
certificate authority), a stand-in first in PATH plays the part as the
README's last section lists; the stand-ins are this script itself, called
under the command's name by the interpreter that runs the test (not
whichever python3 PATH finds first). Then: the unit passes systemd-analyze verify, both
replicas serve through nginx over HTTPS, the backups were made and restored,
a forced logrotate leaves the next request's line in a new file, and every
replica stops with exit status 0.

    deploy_test.py --server BUILD/tools/server/gmlab-server --nginx /usr/sbin/nginx --db postgresql://...
        --document D --workdir W"""
import argparse
import fnmatch
import glob
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
from harness import Checks, free_port  # noqa: E402

STANDINS = ("apt-get", "sudo", "systemctl", "systemd-analyze", "ldconfig", "nginx", "curl", "cmake", "logrotate",
            "build.sh")
HOST = "gmlab.example.org"


def state():
    with open(os.environ["GMLAB_DEPLOY_STATE"]) as f:
        return json.load(f)


def save(st):
    path = os.environ["GMLAB_DEPLOY_STATE"]
    with open(path + ".new", "w") as f:
        json.dump(st, f, indent=1)
    os.replace(path + ".new", path)


def mapper(st):
    """The README's paths and ports to the scratch root's and free ones, in
    one pass (a replacement is never replaced again)."""
    table = dict(st["map"])
    pattern = re.compile("|".join(re.escape(k) for k in sorted(table, key=len, reverse=True)))
    return lambda text: pattern.sub(lambda m: table[m.group(0)], text)


def real(name):
    """The command itself, not its stand-in."""
    fakebin = state()["fakebin"]
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if os.path.abspath(p) != fakebin)
    found = shutil.which(name, path=path)
    if not found:
        sys.exit("%s is not installed" % name)
    return found


def pg_env(st):
    env = dict(os.environ)
    env.update(PGHOST=st["pg"]["host"], PGPORT=str(st["pg"]["port"]), PGUSER=st["pg"]["user"],
               PGPASSWORD=st["pg"]["password"], PGDATABASE="postgres")
    return env


# --- stand-ins -------------------------------------------------------------

def apt_get(args):
    if args[:1] == ["update"]:
        print("apt-get update: skipped (no network); scripts/install-deps.sh installed the packages")
        return 0
    if args[:1] != ["install"]:
        sys.exit("apt-get %s: not a command of deploy/README.md" % " ".join(args))
    missing = [p for p in args[1:] if not p.startswith("-") and subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True).stdout != "install ok installed"]
    if missing:
        sys.exit("apt-get install: not installed here: %s (add them to scripts/install-deps.sh)" % " ".join(missing))
    print("apt-get install: every package is installed")
    return 0


def sudo(args):
    if args[:2] != ["-u", "postgres"]:
        sys.exit("sudo %s: only sudo -u postgres is played" % " ".join(args))
    return subprocess.run(args[2:], env=pg_env(state())).returncode


def build_sh(args):
    st = state()
    binary = os.path.join(st["build"], "tools", "server", "gmlab-server")
    if not os.path.exists(binary):
        sys.exit("scripts/build.sh: the build has no gmlab-server")
    print("scripts/build.sh: built already by CI (%s)" % binary)
    return 0


def cmake(args):
    st = state()
    if args[:2] == ["--install", "build"]:
        args = ["--install", st["build"]] + args[2:]
    return subprocess.run([real("cmake")] + args).returncode


def ldconfig(args):
    print("ldconfig: skipped; LD_LIBRARY_PATH names the scratch root's lib")
    return 0


def systemd_analyze(args):
    if args[:1] != ["verify"] or len(args) != 2:
        sys.exit("systemd-analyze %s: not a command of deploy/README.md" % " ".join(args))
    st = state()
    with open(args[1]) as f:
        unit = f.read()
    # The binary where this test installed it; everything else as written.
    unit = unit.replace("/usr/local/bin/gmlab-server", os.path.join(st["root"], "usr/local/bin/gmlab-server"))
    folder = os.path.join(st["work"], "verify")
    os.makedirs(folder, exist_ok=True)
    copy = os.path.join(folder, os.path.basename(args[1]))
    with open(copy, "w") as f:
        f.write(unit)
    r = subprocess.run([real("systemd-analyze"), "verify", copy], capture_output=True, text=True)
    print(r.stdout + r.stderr, end="")
    if r.returncode != 0 or (r.stdout + r.stderr).strip():
        sys.exit("systemd-analyze verify: not clean")
    print("systemd-analyze verify: clean")
    return 0


def unit_file(st, name):
    base = name[:-len(".service")] if name.endswith(".service") else name
    template, _, instance = base.partition("@")
    path = os.path.join(st["root"], "etc/systemd/system", template + ("@" if _ else "") + ".service")
    with open(path) as f:
        text = mapper(st)(f.read())
    keys = []
    for line in text.replace("\\\n", " ").splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "[")) and "=" in line:
            k, v = line.split("=", 1)
            keys.append((k.strip(), v.strip()))
    return base, instance, keys


def start_unit(st, name):
    base, instance, keys = unit_file(st, name)
    env = {"PATH": os.environ["PATH"], "LD_LIBRARY_PATH": os.environ.get("LD_LIBRARY_PATH", "")}
    creds = os.path.join(st["work"], "credentials", base)
    shutil.rmtree(creds, ignore_errors=True)
    os.makedirs(creds)
    spec = lambda v: v.replace("%i", instance).replace("%d", creds)
    for k, v in keys:
        if k == "EnvironmentFile":
            optional = v.startswith("-")
            path = spec(v.lstrip("-"))
            if not os.path.exists(path):
                if optional:
                    continue
                sys.exit("%s: EnvironmentFile %s is missing" % (name, path))
            for line in open(path):
                line = line.strip()
                if line and not line.startswith("#") and "=" in line:
                    ek, ev = line.split("=", 1)
                    env[ek] = ev
        elif k == "LoadCredential":
            cred, src = spec(v).split(":", 1)
            shutil.copy(src, os.path.join(creds, cred))
            os.chmod(os.path.join(creds, cred), 0o400)
        elif k in ("StateDirectory", "LogsDirectory"):
            top = "var/lib" if k == "StateDirectory" else "var/log"
            os.makedirs(os.path.join(st["root"], top, v), exist_ok=True)
    exec_start = spec(dict(keys)["ExecStart"])
    exec_start = re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), ""), exec_start)
    argv = shlex.split(exec_start)
    out = os.path.join(st["work"], "units", base + ".out")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    status = os.path.join(st["work"], "units", base + ".status")
    for p in (out, status):
        if os.path.exists(p):
            os.unlink(p)
    # A supervisor keeps the exit status, as systemd would.
    subprocess.Popen([sys.executable, os.path.realpath(__file__), "--supervise", status, out, "--"] + argv,
                     env=env, start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline:
        if os.path.exists(out) and "listening on" in open(out, errors="replace").read():
            break
        if os.path.exists(status):
            sys.exit("%s exited at start: %s" % (name, open(out + ".err", errors="replace").read()[-800:]))
        time.sleep(0.05)
    else:
        sys.exit("%s did not start" % name)
    pid = int(open(status + ".pid").read())
    st["units"][base] = pid
    print("systemctl: %s started (pid %d): %s" % (base, pid, " ".join(argv)))


def stop_unit(st, base):
    pid = st["units"].pop(base, None)
    if pid is None:
        return
    status = os.path.join(st["work"], "units", base + ".status")
    os.kill(pid, signal.SIGTERM)
    deadline = time.time() + 60
    while time.time() < deadline and not os.path.exists(status):
        time.sleep(0.05)
    code = open(status).read().strip() if os.path.exists(status) else "none"
    print("systemctl: %s stopped, exit status %s" % (base, code))
    if code != "0":
        sys.exit("%s did not exit 0 on SIGTERM" % base)


def nginx_conf(st):
    folder = os.path.join(st["work"], "nginx")
    os.makedirs(os.path.join(folder, "tmp"), exist_ok=True)
    conf = os.path.join(folder, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""daemon off;
pid %(d)s/nginx.pid;
error_log %(d)s/error.log info;
events { worker_connections 1024; }
http {
    access_log %(d)s/access.log;
    client_body_temp_path %(d)s/tmp/body;
    proxy_temp_path %(d)s/tmp/proxy;
    fastcgi_temp_path %(d)s/tmp/fastcgi;
    uwsgi_temp_path %(d)s/tmp/uwsgi;
    scgi_temp_path %(d)s/tmp/scgi;
    include %(root)s/etc/nginx/sites-enabled/*;
}
""" % {"d": folder, "root": st["root"]})
    return folder, conf


def nginx(args):
    st = state()
    folder, conf = nginx_conf(st)
    if args == ["-t"]:
        return subprocess.run([st["nginx"], "-t", "-p", folder, "-c", conf]).returncode
    sys.exit("nginx %s: not a command of deploy/README.md" % " ".join(args))


def reload_nginx(st):
    folder, conf = nginx_conf(st)
    pid = st.get("nginx_pid")
    if pid:
        os.kill(pid, signal.SIGHUP)
        time.sleep(0.5)
        print("systemctl: nginx reloaded")
        return
    log = open(os.path.join(folder, "nginx.out"), "ab")
    p = subprocess.Popen([st["nginx"], "-p", folder, "-c", conf], stdout=log, stderr=log, start_new_session=True)
    port = st["ports"]["443"]
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if p.poll() is not None:
                sys.exit("nginx did not start: " + open(os.path.join(folder, "error.log")).read()[-800:])
            time.sleep(0.05)
    st["nginx_pid"] = p.pid
    print("systemctl: nginx started (pid %d)" % p.pid)


def systemctl(args):
    st = state()
    verb, rest = args[0], [a for a in args[1:] if not a.startswith("--")]
    opts = [a for a in args[1:] if a.startswith("--")]
    norm = lambda u: u[:-len(".service")] if u.endswith(".service") else u
    if verb == "daemon-reload":
        print("systemctl daemon-reload: nothing to do without systemd")
    elif verb in ("enable", "start", "restart"):
        if verb == "enable" and "--now" not in opts:
            sys.exit("systemctl enable without --now: not a command of deploy/README.md")
        for u in map(norm, rest):
            if u == "nginx":
                reload_nginx(st)
                continue
            if verb == "restart":
                stop_unit(st, u)
            start_unit(st, u)
            save(st)
    elif verb == "stop":
        for u in map(norm, rest):
            stop_unit(st, u)
            save(st)
    elif verb == "reload":
        for u in map(norm, rest):
            if u == "nginx":
                reload_nginx(st)
            else:
                os.kill(st["units"][u], signal.SIGHUP)
    elif verb == "kill":
        sig = [o.split("=", 1)[1] for o in opts if o.startswith("--signal=")]
        for u, pid in st["units"].items():
            if any(fnmatch.fnmatch(u + ".service", pat) for pat in rest):
                os.kill(pid, getattr(signal, sig[0] if sig[0].startswith("SIG") else "SIG" + sig[0]))
                print("systemctl kill: %s to %s" % (sig[0], u))
    else:
        sys.exit("systemctl %s: not a command of deploy/README.md" % " ".join(args))
    save(st)
    return 0


def curl(args):
    st = state()
    port = st["ports"]["443"]
    out = []
    for a in args:
        if a.startswith("https://%s/" % HOST):
            a = a.replace("https://%s/" % HOST, "https://%s:%d/" % (HOST, port), 1)
            out += ["--resolve", "%s:%d:127.0.0.1" % (HOST, port),
                    "--cacert", os.path.join(st["root"], "etc/ssl/gmlab/fullchain.pem")]
        out.append(a)
    r = subprocess.run([real("curl")] + out)
    print()
    return r.returncode


def logrotate(args):
    st = state()
    if args[:1] != ["--debug"] or len(args) != 2:
        sys.exit("logrotate %s: not a command of deploy/README.md" % " ".join(args))
    return run_logrotate(st, args[1], ["--debug"])


def run_logrotate(st, conf, flags):
    with open(conf) as f:
        text = mapper(st)(f.read())
    folder = os.path.join(st["work"], "logrotate")
    os.makedirs(folder, exist_ok=True)
    mapped = os.path.join(folder, "gmlab-server")
    with open(mapped, "w") as f:
        f.write(text)
    os.chmod(mapped, 0o644)
    return subprocess.run([real("logrotate")] + flags + ["--state", os.path.join(folder, "state"), mapped]).returncode


def supervise(argv):
    """--supervise STATUS OUT -- CMD...: runs CMD, keeps its exit status."""
    status, out, cmd = argv[0], argv[1], argv[3:]
    with open(out, "ab") as o, open(out + ".err", "ab") as e:
        p = subprocess.Popen(cmd, stdout=o, stderr=e)
        with open(status + ".pid", "w") as f:
            f.write(str(p.pid))
        signal.signal(signal.SIGTERM, lambda *_: p.send_signal(signal.SIGTERM))
        code = p.wait()
    with open(status, "w") as f:
        f.write(str(code))
    return 0


# --- the test ------------------------------------------------------------

def blocks(readme):
    """The sh blocks of the README: (section, code)."""
    out, section = [], ""
    for m in re.finditer(r"^## ([^\n]*)$|^```sh\n(.*?)^```", readme, re.M | re.S):
        if m.group(1):
            section = m.group(1)
        else:
            out.append((section, m.group(2)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", required=True)
    p.add_argument("--nginx", required=True)
    p.add_argument("--db", required=True, help="postgresql://superuser:password@127.0.0.1:port/db")
    p.add_argument("--document", default="")
    p.add_argument("--workdir", required=True)
    args = p.parse_args()
    if os.geteuid() != 0:
        print("deploy_test: the README's commands are root's (install -o postgres, ...): skipped")
        return 77
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    root, fakebin, cwd = os.path.join(work, "root"), os.path.join(work, "bin"), os.path.join(work, "cwd")
    for d in (root, fakebin, cwd):
        os.makedirs(d)
    # What a Debian 12 host with the packages of section 1 has already.
    for d in ("usr/local/bin", "usr/local/lib", "etc/systemd/system", "etc/nginx/sites-available", "etc/nginx/sites-enabled",
              "etc/logrotate.d", "etc/cron.d", "var/backups", "var/lib", "var/log"):
        os.makedirs(os.path.join(root, d))
    with open(os.path.join(root, "etc/nginx/sites-available/default"), "w") as f:
        f.write("server { listen 127.0.0.1:%d default_server; return 404; }\n" % free_port())
    os.symlink(os.path.join(root, "etc/nginx/sites-available/default"), os.path.join(root, "etc/nginx/sites-enabled/default"))
    for name in STANDINS:
        path = os.path.join(fakebin, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\nexec %s %s --standin %s \"$@\"\n" %
                    (shlex.quote(sys.executable), shlex.quote(os.path.realpath(__file__)), name))
        os.chmod(path, 0o755)
    u = urllib.parse.urlsplit(args.db)
    ports = {k: free_port() for k in ("8081", "8082", "9101", "9102", "443")}
    table = {"/etc/": root + "/etc/", "/var/": root + "/var/", "/usr/local": root + "/usr/local",
             "/tmp/gmlab-server-stage": os.path.join(work, "stage"), "scripts/build.sh": os.path.join(fakebin, "build.sh"),
             "deploy/": REPO + "/deploy/", "s/@LISTEN@/443/": "s/@LISTEN@/127.0.0.1:%d/" % ports["443"]}
    for k in ("8081", "8082", "9101", "9102"):
        table["127.0.0.1:" + k] = "127.0.0.1:%d" % ports[k]
    st = {"work": work, "root": root, "fakebin": fakebin, "build": os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(args.server)))),
          "nginx": args.nginx, "ports": ports, "map": table, "units": {},
          "pg": {"host": u.hostname, "port": u.port, "user": urllib.parse.unquote(u.username),
                 "password": urllib.parse.unquote(u.password or "")}}
    state_path = os.path.join(work, "state.json")
    os.environ["GMLAB_DEPLOY_STATE"] = state_path
    save(st)
    env = dict(os.environ, PATH=fakebin + os.pathsep + os.path.join(root, "usr/local/bin") + os.pathsep + os.environ["PATH"],
               LD_LIBRARY_PATH=os.path.join(root, "usr/local/lib"), GMLAB_DEPLOY_STATE=state_path)
    os.environ.update(env)
    c = Checks()
    with open(os.path.join(REPO, "deploy", "README.md")) as f:
        readme = f.read()
    todo = blocks(readme)
    c.check("deploy/README.md has its command blocks", len(todo) >= 10, len(todo))
    db_rewritten = False
    ran = 0
    try:
        for n, (section, code) in enumerate(todo):
            mapped = mapper(st)(code)
            if "sqlite:" + root + "/var/lib/gmlab-server/results.sqlite" in mapped:
                # The SQLite part: a database there, as a host on SQLite has.
                db = os.path.join(root, "var/lib/gmlab-server/results.sqlite")
                os.makedirs(os.path.dirname(db), exist_ok=True)
                srv = subprocess.Popen([os.path.join(root, "usr/local/bin/gmlab-server"), "--db", "sqlite:" + db,
                                        "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, env=env)
                srv.stdout.readline()
                srv.send_signal(signal.SIGTERM)
                srv.wait()
            script = os.path.join(work, "block-%02d.sh" % n)
            with open(script, "w") as f:
                f.write(mapped)
            print("=== %s, block %d ===\n%s" % (section, n, mapped), flush=True)
            r = subprocess.run(["bash", "-e", script], cwd=cwd, env=env)
            if not c.check("README section '%s', block %d ran (exit %d)" % (section, n, r.returncode), r.returncode == 0):
                break
            ran += 1
            st = state()
            envfile = os.path.join(root, "etc/gmlab/server.env")
            if os.path.exists(envfile) and not db_rewritten:
                # Peer authentication over the socket is the host's; here a
                # password over TCP to the throwaway cluster.
                subprocess.run(["psql", "-X", "-q", "-c", "ALTER ROLE \"gmlab-server\" LOGIN PASSWORD 'deploy-test'"],
                               env=pg_env(st), check=True)
                text = open(envfile).read()
                url = "postgresql://gmlab-server:deploy-test@%s:%d/gmlab_results?connect_timeout=5" % (st["pg"]["host"], st["pg"]["port"])
                text = re.sub(r"^GMLAB_DB=.*$", "GMLAB_DB=" + url, text, flags=re.M)
                with open(envfile, "w") as f:
                    f.write(text)
                db_rewritten = True
                print("GMLAB_DB -> " + url.replace("deploy-test", "***"))
            cron = os.path.join(root, "etc/cron.d/gmlab-backup")
            if os.path.exists(cron) and not st.get("cron_ran"):
                line = [l for l in open(cron) if l.strip() and not l.startswith("#")][0].split(None, 6)
                c.check("the cron line runs as postgres", line[5] == "postgres", line)
                cmd = line[6].replace("\\%", "%")  # written by the mapped block already
                r = subprocess.run(["bash", "-c", cmd], env=pg_env(st))
                dumps = glob.glob(os.path.join(root, "var/backups/gmlab/*.pgdump"))
                c.check("the cron line's command makes the nightly dump", r.returncode == 0 and dumps, cmd)
                st["cron_ran"] = True
                save(st)

        st = state()
        if ran < len(todo):
            return c.finish()
        c.check("both replicas run", set(st["units"]) == {"gmlab-server@1", "gmlab-server@2"}, st["units"])
        for f, mode in (("etc/gmlab/server.env", 0o600), ("etc/gmlab/server.json", 0o600)):
            got = os.stat(os.path.join(root, f)).st_mode & 0o777
            c.check("/%s is mode %o" % (f, mode), got == mode, oct(got))
        restored = subprocess.run(["psql", "-X", "-A", "-t", "-d", "gmlab_restored", "-c", "SELECT count(*) FROM runs"],
                                  env=pg_env(st), capture_output=True, text=True)
        c.check("the nightly dump was restored into gmlab_restored", restored.returncode == 0, restored.stderr)
        sqlite_backups = glob.glob(os.path.join(root, "var/backups/gmlab/results-*.sqlite"))
        c.check("the SQLite backup and restore made their files", sqlite_backups and
                os.path.exists(os.path.join(root, "var/lib/gmlab-server/restored.sqlite")), sqlite_backups)

        # An upload through nginx over HTTPS, read back through it.
        doc = open(os.path.join(REPO, "results", "nvidia-h200.json")).read()
        https = ["curl", "-fsS", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-",
                 "https://%s/api/v1/results" % HOST]
        r = subprocess.run(https, input=doc, capture_output=True, text=True, env=env)
        body = json.loads(r.stdout) if r.returncode == 0 else {}
        c.check("an upload through nginx over HTTPS is stored, with the public URL",
                body.get("url", "").startswith("https://%s/result/" % HOST), (r.returncode, r.stderr, body))
        r = subprocess.run(["curl", "-fsS", "https://%s/api/v1/results/%s" % (HOST, body.get("id", "x"))], capture_output=True,
                           text=True, env=env)
        c.check("... and reads back through it", r.returncode == 0 and body.get("id", "?") in r.stdout, r.stderr)
        logs = os.path.join(root, "var/log/gmlab-server")
        lines = [json.loads(l) for f in glob.glob(os.path.join(logs, "access*.log")) for l in open(f) if l.strip()]
        c.check("the replicas' access logs have the upload, with the client's address from nginx",
                any(l["route"] == "/api/v1/results" and l["status"] == 201 and l["client"] == "127.0.0.1" for l in lines), lines[-3:])

        # A forced rotation: the next request's line lands in a new file.
        before = {f: sum(1 for _ in open(f)) for f in glob.glob(os.path.join(logs, "access*.log"))}
        r = run_logrotate(st, os.path.join(root, "etc/logrotate.d/gmlab-server"), ["--force"])
        time.sleep(0.5)
        for _ in range(6):
            subprocess.run(["curl", "-fsS", "-o", "/dev/null", "https://%s/api/v1/stats" % HOST], env=env)
        time.sleep(0.3)
        rotated = glob.glob(os.path.join(logs, "access*.log.1"))
        fresh = {f: sum(1 for _ in open(f)) for f in glob.glob(os.path.join(logs, "access*.log"))}
        c.check("logrotate --force moved the logs away and the replicas reopened new ones on SIGHUP",
                r == 0 and len(rotated) == len(before) == 2 and sum(fresh.values()) >= 6 and
                all(fresh[f] <= 6 for f in fresh), (r, rotated, before, fresh))
    finally:
        st = state()
        for base in list(st["units"]):
            try:
                stop_unit(st, base)
                c.check("%s stops with exit status 0" % base, True)
            except SystemExit as e:
                c.check("%s stops with exit status 0" % base, False, e)
        save(st)
        if st.get("nginx_pid"):
            os.kill(st["nginx_pid"], signal.SIGTERM)
    return c.finish()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--supervise":
        sys.exit(supervise(sys.argv[2:]))
    if len(sys.argv) > 2 and sys.argv[1] == "--standin" and sys.argv[2] in STANDINS:
        fn = {"apt-get": apt_get, "sudo": sudo, "systemctl": systemctl, "systemd-analyze": systemd_analyze,
              "ldconfig": ldconfig, "nginx": nginx, "curl": curl, "cmake": cmake, "logrotate": logrotate,
              "build.sh": build_sh}[sys.argv[2]]
        sys.exit(fn(sys.argv[3:]))
    sys.exit(main())
