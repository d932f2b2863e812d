#!/usr/bin/env python3
"""gmlab-server behind nginx with TLS, as deploy/nginx/gmlab-server.conf sets
it up: uploads go through the proxy over HTTPS, the server keys its rate limit
on the address nginx forwards (and only because the proxy is trusted), a
client's forged X-Forwarded-For changes nothing, and the same header sent to
the server directly by an untrusted peer is ignored."""
import argparse
import http.client
import json
import os
import re
import socket
import ssl
import subprocess
import time

from harness import Checks, Server, free_port, fresh_workdir, load_document, trimmed

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_certificate(workdir):
    cert, key = os.path.join(workdir, "cert.pem"), os.path.join(workdir, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return cert, key


def start_nginx(nginx, workdir, upstream_ports, cert, key):
    """nginx with deploy/nginx/gmlab-server.conf in front of the replicas on
    upstream_ports (one port: both of the site's replicas are that one)."""
    port = free_port()
    with open(os.path.join(REPO, "deploy", "nginx", "gmlab-server.conf")) as f:
        site = f.read()
    ports = list(upstream_ports) * (2 if len(upstream_ports) == 1 else 1)
    for k, v in {"@REPLICA_1@": "127.0.0.1:%d" % ports[0], "@REPLICA_2@": "127.0.0.1:%d" % ports[1],
                 "@LISTEN@": "127.0.0.1:%d" % port,
                 "@SERVER_NAME@": "localhost", "@CERTIFICATE@": cert, "@CERTIFICATE_KEY@": key}.items():
        site = site.replace(k, v)
    left = re.findall(r"@[A-Z_]+@", site)
    assert not left, "placeholders left in the site file: %s" % left
    with open(os.path.join(workdir, "gmlab-server.conf"), "w") as f:
        f.write(site)
    tmp = os.path.join(workdir, "nginx-tmp")
    os.makedirs(tmp, exist_ok=True)
    main = f"""daemon off;
master_process off;
worker_processes 1;
pid {workdir}/nginx.pid;
error_log {workdir}/nginx-error.log info;
events {{ worker_connections 1024; }}
http {{
    access_log {workdir}/nginx-access.log;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {workdir}/gmlab-server.conf;
}}
"""
    conf = os.path.join(workdir, "nginx.conf")
    with open(conf, "w") as f:
        f.write(main)
    log = open(os.path.join(workdir, "nginx.log"), "ab")
    proc = subprocess.Popen([nginx, "-p", workdir, "-c", conf], stdout=log, stderr=log)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("nginx did not start: " + open(os.path.join(workdir, "nginx-error.log")).read())


def json_body(body, headers):
    """Uploads go with Content-Type: application/json, as gmlab-upload sends them."""
    headers = dict(headers or {})
    if body is not None:
        headers.setdefault("Content-Type", "application/json")
    return headers


def https(port, cert, source, method, path, body=None, headers=None):
    headers = json_body(body, headers)
    ctx = ssl.create_default_context(cafile=cert)
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=ctx, source_address=(source, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        try:
            return r.status, json.loads(data)
        except ValueError:
            return r.status, data
    finally:
        conn.close()


def direct(port, source, method, path, body=None, headers=None):
    headers = json_body(body, headers)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"null")
    finally:
        conn.close()


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--server", required=True)
    p.add_argument("--nginx", required=True)
    p.add_argument("--document", required=True)
    p.add_argument("--workdir", required=True)
    args = p.parse_args()
    workdir = fresh_workdir(os.path.abspath(args.workdir))
    c = Checks()
    cert, key = make_certificate(workdir)
    doc = json.dumps(trimmed(load_document(args.document)))
    # Two writes per client address and hardly any refill: the third is 429.
    srv = Server(args.server, "sqlite:" + os.path.join(workdir, "r.sqlite"), workdir,
                 ["--trusted-proxy", "127.0.0.1", "--write-rate", "0.001", "--write-burst", "2",
                  "--public-url", "https://localhost"])
    nginx = None
    try:
        nginx, port = start_nginx(args.nginx, workdir, [srv.port], cert, key)
        st, body = https(port, cert, "127.0.0.2", "POST", "/api/v1/results", doc, {"Content-Type": "application/json"})
        c.check("an upload through nginx over TLS is stored", st == 201 and isinstance(body, dict) and "id" in body,
                (st, body))
        rid = body.get("id", "") if isinstance(body, dict) else ""
        c.check("its URL is the public HTTPS one", isinstance(body, dict) and body.get("url", "").startswith("https://localhost/result/"),
                body)
        st, got = https(port, cert, "127.0.0.2", "GET", "/api/v1/results/" + rid)
        c.check("the result reads back through the proxy", st == 200 and got.get("id") == rid, st)
        st, page = https(port, cert, "127.0.0.2", "GET", "/result/" + rid)
        c.check("its page is served through the proxy", st == 200 and b"<html" in page[:200].lower(), st)

        # The second write of 127.0.0.2 passes, the third is refused, and the
        # refusal names 127.0.0.2: the key is the forwarded address.
        st, _ = https(port, cert, "127.0.0.2", "POST", "/api/v1/results", "{}")
        c.check("127.0.0.2's second write passes the limiter (422 for its body)", st == 422, st)
        st, e = https(port, cert, "127.0.0.2", "POST", "/api/v1/results", "{}")
        c.check("127.0.0.2's third write is 429 naming 127.0.0.2", st == 429 and "127.0.0.2" in e.get("message", ""),
                (st, e))
        st, e = https(port, cert, "127.0.0.2", "POST", "/api/v1/results", "{}", {"X-Forwarded-For": "203.0.113.9"})
        c.check("a forged X-Forwarded-For through the proxy does not escape the limit",
                st == 429 and "127.0.0.2" in e.get("message", "") and "203.0.113.9" not in e.get("message", ""),
                (st, e))
        st, _ = https(port, cert, "127.0.0.3", "POST", "/api/v1/results", "{}")
        c.check("another client behind the same proxy has its own limit", st == 422, st)

        # Straight to the server from an untrusted peer: its header is ignored.
        statuses, last = [], None
        for i in range(3):
            st, last = direct(srv.port, "127.0.0.5", "POST", "/api/v1/results", "{}",
                              {"X-Forwarded-For": "198.51.100.%d" % i})
            statuses.append(st)
        c.check("an untrusted peer's X-Forwarded-For is ignored: its third write is 429 naming the peer",
                statuses == [422, 422, 429] and "127.0.0.5" in last.get("message", ""), (statuses, last))
        # TLS is required on the proxy's port.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/api/v1/gpus")
        r = conn.getresponse()
        c.check("plain HTTP to the TLS port is refused (400)", r.status == 400, r.status)
        conn.close()
    finally:
        if nginx:
            nginx.terminate()
            try:
                nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                nginx.kill()
        srv.stop()
    return c.finish()


if __name__ == "__main__":
    raise SystemExit(main())
