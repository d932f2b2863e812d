"""A stand-in for gmlab-server's upload endpoint, on 127.0.0.1 only.

It records every request (path, headers, raw and decompressed body, arrival
time), can fail the first K requests with 500 or with 429 + Retry-After, can
reject every upload with a 4xx, and can be stopped to look like a server that
is down. Accepted uploads are stored by submission_id, so that a repeated
submission gets the id it got the first time, as the real server does. Bodies
are decoded by their Content-Encoding (zstd or gzip); with refuse_zstd set, a
zstd body is answered 415, as a server without zstd does.
"""
import gzip
import http.server
import json
import os
import secrets
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
import zstd_codec  # noqa: E402


class FakeServer:
    def __init__(self):
        self.requests = []
        self.fail_first = 0          # how many of the next requests fail
        self.fail_status = 500
        self.retry_after = None      # Retry-After value sent with failures
        self.reject_status = None    # every upload answered with this 4xx
        self.refuse_zstd = False     # answer zstd bodies 415
        self.stored = {}             # submission_id -> id
        self._lock = threading.Lock()
        self._httpd = None
        self._thread = None
        self.port = None

    def start(self, port=0):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, status, body, headers=()):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                rec = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                       "raw": raw, "time": time.monotonic(), "doc": None}
                encoding = rec["headers"].get("content-encoding", "")
                if encoding == "zstd" and fake.refuse_zstd:
                    with fake._lock:
                        fake.requests.append(rec)
                    return self._answer(415, {"code": "unsupported_encoding", "message": "zstd is not supported"})
                try:
                    decode = zstd_codec.decompress if encoding == "zstd" else gzip.decompress
                    rec["doc"] = json.loads(decode(raw))
                except Exception as e:  # recorded as absent: the test checks it
                    rec["error"] = str(e)
                with fake._lock:
                    fake.requests.append(rec)
                    failing = fake.fail_first > 0
                    if failing:
                        fake.fail_first -= 1
                if failing:
                    extra = [("Retry-After", str(fake.retry_after))] if fake.retry_after is not None else []
                    return self._answer(fake.fail_status, {"code": "unavailable", "message": "try again"}, extra)
                if fake.reject_status:
                    return self._answer(fake.reject_status, {"code": "invalid", "message": "bandwidth above the device's bound"})
                if self.path != "/api/v1/results" or rec["doc"] is None:
                    return self._answer(400, {"code": "bad_request", "message": "not an upload"})
                sid = rec["doc"].get("submission_id", "")
                with fake._lock:
                    if sid and sid in fake.stored:
                        rid, token = fake.stored[sid], None
                        status = 200
                    else:
                        rid, token = secrets.token_hex(16), secrets.token_hex(16)
                        fake.stored[sid] = rid
                        status = 201
                body = {"id": rid, "url": "/results/" + rid, "gpu_url": "/gpu/fake%20model"}
                if token:
                    body["delete_token"] = token
                self._answer(status, body)

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def stop(self):
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def reset(self):
        with self._lock:
            self.requests = []
            self.fail_first = 0
            self.fail_status = 500
            self.retry_after = None
            self.reject_status = None
            self.refuse_zstd = False
