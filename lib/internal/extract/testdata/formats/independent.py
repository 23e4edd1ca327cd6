#!/usr/bin/env python3
"""An independent parser of the named formats, written from each format's
own documentation (not from the Go code): regular expressions, the
standard library's time parsing and json. Usage: independent.py FORMAT FILE.
Prints one JSON object a line of FILE:
  {"n": N, "header": true}                  a header line (no entry)
  {"n": N, "drop": REASON}                  not an entry of the format
  {"n": N, "time": NS, "fields": {...}}     every field as text; "num" holds
                                            the common names' numbers
"""
import calendar
import datetime
import json
import re
from decimal import Decimal
import sys

Q = r'((?:[^"\\]|\\.)*)'  # a quoted field: backslash escapes kept
T = r'(\S+)'              # a space-free token

def clf(s):
    return ns(datetime.datetime.strptime(s, "%d/%b/%Y:%H:%M:%S %z"), 0)

def ns(dt, frac):
    return calendar.timegm(dt.utctimetuple()) * 10**9 + frac

def frac_ns(f):
    return int((f + "000000000")[:9]) if f else 0

def rfc3339(s):
    m = re.fullmatch(r'(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z', s)
    if not m:
        raise ValueError(s)
    return ns(datetime.datetime.strptime(m[1], "%Y-%m-%dT%H:%M:%S"), frac_ns(m[2]))

def unix(s, unit=10**9):
    whole, _, f = s.partition(".")
    if unit == 10**9:
        return int(whole) * unit + frac_ns(f)
    return int(whole) * unit

def haproxy_time(s):
    m = re.fullmatch(r'(\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d)(?:\.(\d+))?', s)
    return ns(datetime.datetime.strptime(m[1], "%d/%b/%Y:%H:%M:%S"), frac_ns(m[2]))

def datetime_utc(date, clock):
    whole, _, f = clock.partition(".")
    return ns(datetime.datetime.strptime(date + " " + whole, "%Y-%m-%d %H:%M:%S"), frac_ns(f))

def status_ok(s):   # three digits, 0, or -1 (the rule docs/tally.md states)
    return re.fullmatch(r'\d{3}|0|-1', s) is not None

def size_ok(s):
    return s == "-" or (re.fullmatch(r'\d+', s) is not None and int(s) < 2**53)

def num_ok(s):
    return s == "-" or re.fullmatch(r'-?\d+(\.\d+)?', s) is not None

def request(r):
    """METHOD TARGET PROTO cut at the first and last space; "-" for parts
    that cannot be told (as docs/tally.md says for apache-combined)."""
    parts = r.split(" ")
    if len(parts) >= 3 and parts[0] and parts[-1] and " ".join(parts[1:-1]):
        return parts[0], " ".join(parts[1:-1]), parts[-1]
    if len(parts) == 2 and parts[0] and parts[1]:
        return parts[0], parts[1], "-"
    return "-", "-", "-"

# Each format: a regex over the whole line, its groups' names in order,
# the kinds of the checked ones, the time field and reader, and the
# common names (name: (field, divisor)).
APACHE_COMBINED = (r'(\S+) (\S+) (\S+) \[([^\]]+)\] "' + Q + r'" (\S+) (\S+) "' + Q + '" "' + Q + '"',
                   ["host", "ident", "user", "time", "@request", "status", "bytes", "referer", "agent"])
FORMATS = {
    "combined": dict(re=APACHE_COMBINED[0], names=APACHE_COMBINED[1], time=("time", clf), common={}),
    "varnishncsa": dict(re=APACHE_COMBINED[0], names=APACHE_COMBINED[1], time=("time", clf), common={}),
    "common": dict(re=r'(\S+) (\S+) (\S+) \[([^\]]+)\] "' + Q + r'" (\S+) (\S+)',
                   names=APACHE_COMBINED[1][:7], time=("time", clf), common={}),
    "vcombined": dict(re=r'([^:]+):(\S+) ' + APACHE_COMBINED[0],
                      names=["vhost", "port"] + ["host", "ident", "user", "time", "@request", "status", "bytes_out", "referer", "agent"],
                      time=("time", clf), common={"bytes": ("bytes_out", 1)}),
    "vcommon": dict(re=r'([^:]+):(\S+) (\S+) (\S+) (\S+) \[([^\]]+)\] "' + Q + r'" (\S+) (\S+)',
                    names=["vhost", "port"] + APACHE_COMBINED[1][:7], time=("time", clf), common={}),
    "traefikclf": dict(re=r'(\S+) - (\S+) \[([^\]]+)\] "' + Q + r'" (\S+) (\S+) "' + Q + '" "' + Q + r'" (\S+) "' + Q + '" "' + Q + r'" (\S+)ms',
                       names=["client_host", "client_username", "start_local", "@request", "downstream_status", "downstream_content_size",
                              "request_referer", "request_user_agent", "request_count", "router_name", "service_url", "duration_ms"],
                       time=("start_local", clf),
                       common={"time": ("start_local", 1), "status": ("downstream_status", 1), "bytes": ("downstream_content_size", 1), "duration": ("duration_ms", 1000)}),
    "awselb": dict(re=r'(\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) "' + Q + '" "' + Q + r'" (\S+) (\S+)',
                   names=["timestamp", "elb", "client_port", "backend_port", "request_processing_time", "backend_processing_time",
                          "response_processing_time", "elb_status_code", "backend_status_code", "received_bytes", "sent_bytes",
                          "@request", "user_agent", "ssl_cipher", "ssl_protocol"],
                   time=("timestamp", rfc3339), common={"time": ("timestamp", 1), "status": ("elb_status_code", 1), "bytes": ("sent_bytes", 1),
                                                            "duration": (("request_processing_time", "backend_processing_time", "response_processing_time"), "sum")}),
    "squid": dict(re=r'(\S+) +(\S+) (\S+) ([^/ ]+)/(\S+) (\S+) (\S+) (\S+) (\S+) ([^/ ]+)/(\S+) (\S+)',
                  names=["time", "elapsed", "remotehost", "code", "status", "bytes", "method", "url", "rfc931", "peerstatus", "peerhost", "type"],
                  time=("time", unix), common={"path": ("url", 1), "duration": ("elapsed", 1000)}),
    "cloudstorage": dict(re=",".join(['"([^"]*)"'] * 17),
                         names=["time_micros", "c_ip", "c_ip_type", "c_ip_region", "cs_method", "cs_uri", "sc_status", "cs_bytes", "sc_bytes",
                                "time_taken_micros", "cs_host", "cs_referer", "cs_user_agent", "s_request_id", "cs_operation", "cs_bucket", "cs_object"],
                         time=("time_micros", lambda s: unix(s, 1000)), header='"time_micros"',
                         common={"time": ("time_micros", 1), "status": ("sc_status", 1), "bytes": ("sc_bytes", 1), "method": ("cs_method", 1),
                                 "path": ("cs_uri", 1), "duration": ("time_taken_micros", 10**6)}),
}

ALB_NAMES = ["type", "time", "elb", "client_port", "target_port", "request_processing_time", "target_processing_time", "response_processing_time",
             "elb_status_code", "target_status_code", "received_bytes", "sent_bytes", "@request", "user_agent", "ssl_cipher", "ssl_protocol",
             "target_group_arn", "trace_id", "domain_name", "chosen_cert_arn", "matched_rule_priority", "request_creation_time",
             "actions_executed", "redirect_url", "error_reason", "target_port_list", "target_status_code_list", "classification",
             "classification_reason", "conn_trace_id"]
ALB_QUOTED = {"@request", "user_agent", "trace_id", "domain_name", "chosen_cert_arn", "actions_executed", "redirect_url", "error_reason",
              "target_port_list", "target_status_code_list", "classification", "classification_reason"}

S3_NAMES = ["bucket_owner", "bucket", "time", "remote_ip", "requester", "request_id", "operation", "key", "@request_uri", "http_status",
            "error_code", "bytes_sent", "object_size", "total_time", "turn_around_time", "referer", "user_agent", "version_id", "host_id",
            "signature_version", "cipher_suite", "authentication_type", "host_header", "tls_version", "access_point_arn", "acl_required"]

def columns_regex(names, quoted, brackets=(), bare=()):
    parts = []
    for n in names:
        if n in bare:
            parts.append(r'(-)')
        elif n in quoted:
            parts.append('"' + Q + '"')
        elif n in brackets:
            parts.append(r'\[([^\]]+)\]')
        else:
            parts.append(r'(\S+)')
    return " ".join(parts)

def aws_variants(names, quoted, ends, brackets=(), bare=()):
    """AWS adds fields at the end over the years: a line may end after
    any of ends (each an older form); the fields it lacks are "-". The
    bare fields may instead all be a "-" without its quotes (S3 writes
    so a batch delete's, which has no Request-URI, Referer or
    User-Agent)."""
    forms = [(columns_regex(names[:names.index(e) + 1], quoted, brackets), names[:names.index(e) + 1]) for e in ends]
    if bare:
        forms += [(columns_regex(names[:names.index(e) + 1], quoted, brackets, bare), names[:names.index(e) + 1]) for e in ends]
    return forms

FORMATS["awsalb"] = dict(variants=aws_variants(ALB_NAMES, ALB_QUOTED, ["conn_trace_id", "error_reason", "target_status_code_list", "classification_reason"]),
                         names=ALB_NAMES, time=("time", rfc3339), common={"status": ("elb_status_code", 1), "bytes": ("sent_bytes", 1),
                                                                           "duration": (("request_processing_time", "target_processing_time", "response_processing_time"), "sum")})
FORMATS["awss3"] = dict(variants=aws_variants(S3_NAMES, {"@request_uri", "referer", "user_agent"},
                                              ["acl_required", "turn_around_time", "version_id", "host_header", "tls_version", "access_point_arn"], {"time"},
                                              bare={"@request_uri", "referer", "user_agent"}),
                        names=S3_NAMES, time=("time", clf),
                        common={"status": ("http_status", 1), "bytes": ("bytes_sent", 1), "duration": ("total_time", 1000)})

CHECK = {  # the checked fields of each format: status, size or number
    "status": {"status", "downstream_status", "elb_status_code", "sc_status", "http_status", "status_code", "response_code"},
    "size": {"bytes", "bytes_out", "downstream_content_size", "received_bytes", "sent_bytes", "cs_bytes", "sc_bytes", "bytes_sent", "object_size"},
    "number": {"duration_ms", "request_count", "request_processing_time", "target_processing_time", "response_processing_time",
               "backend_processing_time", "elapsed", "time_taken_micros", "total_time", "turn_around_time", "TR", "Tw", "Tc",
               "Tr", "Ta", "Tt", "bytes_read", "actconn", "feconn", "beconn", "srv_conn", "srv_queue", "backend_queue",
               "bytes_received", "duration_ms"},
}
APACHE = {"combined", "common", "vcombined", "vcommon", "varnishncsa"}
NO_CHECK = {"awselb": {"elb_status_code"}, "vcombined": set(), "vcommon": set()}
PORT_NUMBER = {"vcombined", "vcommon"}  # Apache's %p is a number

def check(fmt, fields, order):
    for n in order:
        v = fields[n]
        if n in NO_CHECK.get(fmt, set()):
            continue
        if n in CHECK["status"] and not status_ok(v):
            return "status"
        if n in CHECK["size"] and not size_ok(v):
            return "bytes"
        if (n in CHECK["number"] or (n == "port" and fmt in PORT_NUMBER) or (n == "client_port" and fmt.startswith("haproxy"))) and not num_ok(v):
            return "number"
    return None

def cut(fmt, spec, line):
    variants = spec.get("variants") or [(spec["re"], spec["names"])]
    for rx, names in variants:
        m = re.fullmatch(rx, line)
        if not m:
            continue
        fields, order = {}, []
        for n, v in zip(names, m.groups()):
            if n.startswith("@"):
                if fmt not in APACHE:  # Apache's %r is its parts only
                    fields[n[1:]] = v
                fields["method"], fields["path"], fields["proto"] = request(v)
            else:
                fields[n] = v
                order.append(n)
        for n in spec["names"]:
            if not n.startswith("@"):
                fields.setdefault(n, "-")
            elif fmt not in APACHE:
                fields.setdefault(n[1:], "-")
        return fields, order
    return None, None

def syslog(line):
    # RFC 5424 (section 6): <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID
    # STRUCTURED-DATA, SD "-" or [SD-ID PARAM="VALUE" ...] elements, '"',
    # '\\' and ']' escaped in a VALUE.
    m = re.match(r'<\d{1,3}>1 (?:\S+ ){5}(?:-|(?:\[[^ =\]"]+(?: [^ =\]"]+="(?:[^"\\\]]|\\.)*")*\])+) ', line)
    # Else <PRI>, then a time (RFC 3164's, a fraction or not, or RFC 3339's)
    # with an optional HOST before the TAG, or no TAG (HAProxy's timed and
    # iso formats); or a name[pid] TAG alone; or <PRI> alone (HAProxy's
    # priority and short formats).
    m = (m or re.match(r'(?:<\d{1,3}>)?(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\dT\S+) (?:[^ :]+: |\S+ [^ :]+: )?', line)
         or re.match(r'(?:<\d{1,3}>)?[^ :\[]+\[\d+\]: ', line)
         or re.match(r'<\d{1,3}>', line))
    # rsyslog's msg property keeps the space after an RFC 3164 TAG (its
    # templates' sp-if-no-1st-sp): a "%msg%" template's line starts with
    # it; HAProxy reads fields as delimited by any number of spaces.
    return (line[m.end():] if m else line).lstrip(" ")

def haproxy(line, tcp, https=False):
    line = syslog(line)
    if tcp:
        rx = r'(\S+):(\S+) \[([^\]]+)\] (\S+) ([^/ ]+)/(\S+) (\S+)/(\S+)/(\S+) (\S+) (\S+) (\S+)/(\S+)/(\S+)/(\S+)/(\S+) (\S+)/(\S+)'
        names = ["client_ip", "client_port", "accept_date", "frontend_name_transport", "backend_name", "server_name", "Tw", "Tc", "Tt",
                 "bytes_read", "termination_state", "actconn", "feconn", "beconn", "srv_conn", "retries", "srv_queue", "backend_queue"]
        m = re.fullmatch(rx, line)
        if not m:
            return None
        return dict(zip(names, m.groups())), names
    head = (r'(\S+):(\S+) \[([^\]]+)\] (\S+) ([^/ ]+)/(\S+) (\S+)/(\S+)/(\S+)/(\S+)/(\S+) (\S+) (\S+) (\S+) (\S+) (\S+) '
            r'(\S+)/(\S+)/(\S+)/(\S+)/(\S+) (\S+)/(\S+)')
    names = ["client_ip", "client_port", "request_date", "frontend_name_transport", "backend_name", "server_name", "TR", "Tw", "Tc", "Tr", "Ta",
             "status_code", "bytes_read", "captured_request_cookie", "captured_response_cookie", "termination_state", "actconn", "feconn",
             "beconn", "srv_conn", "retries", "srv_queue", "backend_queue"]
    # httpslog: the TLS connection's errors, resumption, SNI, version, ciphers
    tls = r' (\S+)/(\S+)/(\S+)/(\S+)/(\S+) ([^/ ]+)/([^/ ]+)/(\S+)' if https else ''
    tls_names = ["fc_err", "ssl_fc_err_hex", "ssl_c_err", "ssl_c_ca_err", "ssl_fc_is_resumed", "ssl_fc_sni", "ssl_version", "ssl_ciphers"] if https else []
    m = re.fullmatch(head + r'(?: \{([^}]*)\})?(?: \{([^}]*)\})? "' + Q + '"' + tls, line)
    if not m:
        return None
    g = m.groups()
    if https:
        tail = dict(zip(tls_names, g[-8:]))
        g = g[:-8]
    f = dict(zip(names, g[:len(names)]))
    f["captured_request_headers"] = g[len(names)] if g[len(names)] is not None else "-"
    f["captured_response_headers"] = g[len(names) + 1] if g[len(names) + 1] is not None else "-"
    f["http_request"] = g[-1]
    f["method"], f["path"], f["proto"] = request(g[-1])
    if https:
        f.update(tail)
    return f, names + ["http_request"] + tls_names

ENVOY = ['start_time', 'req_method', 'req_path', 'protocol', 'response_code', 'response_flags', 'bytes_received', 'bytes_sent', 'duration_ms',
         'resp_x_envoy_upstream_service_time', 'req_x_forwarded_for', 'req_user_agent', 'req_x_request_id', 'req_authority', 'upstream_host']

def envoy(line):
    rx = r'\[([^\]]+)\] "(\S+) (\S+) (\S+)" (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) "' + Q + '" "' + Q + '" "' + Q + '" "' + Q + '" "' + Q + '"'
    m = re.fullmatch(rx, line)
    if not m:
        return None
    return dict(zip(ENVOY, m.groups())), ENVOY

CADDY_KEYS = {"ts": "ts", "level": "level", "logger": "logger", "msg": "msg", "status": "status", "size": "size", "duration": "duration",
              "bytes_read": "bytes_read", "user_id": "user_id", "remote_ip": "request.remote_ip", "remote_port": "request.remote_port",
              "client_ip": "request.client_ip", "proto": "request.proto", "method": "request.method", "host": "request.host",
              "uri": "request.uri", "user_agent": "request.headers.User-Agent.0", "referer": "request.headers.Referer.0"}

def caddy(line):
    obj = json.loads(line, parse_float=str, parse_int=str)
    f = {}
    for name, path in CADDY_KEYS.items():
        v = obj
        for seg in path.split("."):
            if isinstance(v, list) and seg.isdigit() and int(seg) < len(v):
                v = v[int(seg)]
            elif isinstance(v, dict) and seg in v:
                v = v[seg]
            else:
                v = None
                break
        f[name] = "" if v is None else (v if isinstance(v, str) else json.dumps(v))
    return f

COMMON = {
    "haproxy httplog": {"time": ("request_date", 1), "status": ("status_code", 1), "bytes": ("bytes_read", 1), "duration": ("Ta", 1000)},
    "haproxy httpslog": {"time": ("request_date", 1), "status": ("status_code", 1), "bytes": ("bytes_read", 1), "duration": ("Ta", 1000)},
    "haproxy tcplog": {"time": ("accept_date", 1), "bytes": ("bytes_read", 1), "duration": ("Tt", 1000)},
    "envoy": {"time": ("start_time", 1), "status": ("response_code", 1), "bytes": ("bytes_sent", 1), "method": ("req_method", 1),
              "path": ("req_path", 1), "duration": ("duration_ms", 1000)},
    "caddy": {"time": ("ts", 1), "bytes": ("size", 1), "path": ("uri", 1)},
    "w3c": {"status": ("sc_status", 1), "bytes": ("sc_bytes", 1), "method": ("cs_method", 1), "path": ("cs_uri_stem", 1), "duration": ("time_taken", 1000)},
    "cloudfront": {"status": ("sc_status", 1), "bytes": ("sc_bytes", 1), "method": ("cs_method", 1), "path": ("cs_uri_stem", 1), "duration": ("time_taken", 1)},
}

def add_common(fields, common):
    num = {}
    for name, (field, div) in common.items():
        if div == "sum":  # AWS's time taken in parts: their exact sum, "-" when one is -1 or not a number
            if all(re.fullmatch(r'\d+(\.\d+)?', fields.get(p, "")) for p in field):
                num[name] = float(sum(Decimal(fields[p]) for p in field))
            else:
                fields[name] = "-"
            continue
        if name in fields or field not in fields:
            continue
        v = fields[field]
        if div == 1:
            fields[name] = v
        elif re.fullmatch(r'-?\d+(\.\d+)?', v):
            num[name] = float(v) / div   # IEEE division, as a float64 reader would
        else:
            fields[name] = v
    return num

def w3c_columns(ident):
    ident = ident.lower()
    return "time" if ident == "date" else ident.replace("-", "_").replace("(", "_").replace(")", "")

def main():
    fmt, path = sys.argv[1], sys.argv[2]
    cols = None
    for n, raw in enumerate(open(path, encoding="latin-1").read().split("\n")[:-1], 1):
        line = raw[:-1] if raw.endswith("\r") else raw
        out = {"n": n}
        try:
            if fmt in ("w3c", "cloudfront"):
                sep = " " if fmt == "w3c" else "\t"
                if line.startswith("#"):
                    if line.startswith("#Fields:"):
                        cols = line[len("#Fields:"):].split()
                    print(json.dumps({"n": n, "header": True}))
                    continue
                vals = line.split(sep)
                if len(vals) != len(cols):
                    raise Drop("format")
                f = {}
                for ident, v in zip(cols, vals):
                    f[w3c_columns(ident)] = v
                f["time"] = line[:len(vals[0]) + 1 + len(vals[1])]
                for name, v in list(f.items()):
                    if name == "sc_status" and not status_ok(v):
                        raise Drop("status")
                    if name in ("sc_bytes", "cs_bytes", "sc_content_len") and not size_ok(v):
                        raise Drop("bytes")
                    if name in ("time_taken", "time_to_first_byte", "s_port", "c_port", "sc_substatus", "sc_win32_status") and not num_ok(v):
                        raise Drop("number")
                t = datetime_utc(vals[0], vals[1])
                common = COMMON[fmt]
            elif fmt.startswith("haproxy"):
                r = haproxy(line, fmt.endswith("tcplog"), fmt.endswith("httpslog"))
                if r is None:
                    raise Drop("format")
                f, order = r
                if (why := check(fmt, f, order)) is not None:
                    raise Drop(why)
                common = COMMON[fmt]
                t = haproxy_time(f[common["time"][0]])
            elif fmt == "envoy":
                r = envoy(line)
                if r is None:
                    raise Drop("format")
                f, order = r
                if (why := check(fmt, f, order)) is not None:
                    raise Drop(why)
                common = COMMON[fmt]
                t = rfc3339(f["start_time"])
            elif fmt == "caddy":
                f = caddy(line)
                common = COMMON[fmt]
                t = unix(f["ts"])
            else:
                spec = FORMATS[fmt]
                if spec.get("header") and line.startswith(spec["header"]):
                    print(json.dumps({"n": n, "header": True}))
                    continue
                f, order = cut(fmt, spec, line)
                if f is None:
                    raise Drop("format")
                if (why := check(fmt, f, order)) is not None:
                    raise Drop(why)
                common = spec["common"]
                name, reader = spec["time"]
                try:
                    t = reader(f[name])
                except ValueError:
                    raise Drop("time")
        except Drop as d:
            print(json.dumps({"n": n, "drop": d.reason}))
            continue
        num = add_common(f, common)
        print(json.dumps({"n": n, "time": t, "fields": f, "num": num}))

class Drop(Exception):
    def __init__(self, reason):
        self.reason = reason

main()
