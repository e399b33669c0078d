#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""A dependency-free Python 3 client for `rtmb serve` (wire format: docs/protocol.md).

It says hello on the TCP control channel (asking for wire version 2, whose inputs are signed with
a per-session key), prints the model schema, subscribes its own UDP socket to the state stream,
decodes and prints a few state datagrams, sends one signed input datagram and waits for the server
to echo it back, then unsubscribes and exits.

`python3 rtmb_client.py --self-check` encodes the version 2 example datagram of docs/protocol.md
("Wire version 2", "Example"), prints it as hex and compares it with the dump there.

Exit codes: 0 success; 1 protocol failure (error reply, no states, input not echoed in time);
2 cannot connect to the control port.
"""

import argparse
import hashlib
import hmac
import json
import math
import socket
import ssl
import struct
import sys
import time

# --- wire format (docs/protocol.md, "Datagrams") -----------------------------------------------
MAGIC = 0x424D5452            # bytes 52 54 4D 42, "RTMB"
WIRE_VERSION = 1                # states, and the unsigned inputs of loopback
WIRE_VERSION_AUTHENTICATED = 2  # signed inputs ("Wire version 2")
KIND_STATE = 1
KIND_INPUT = 2
HEADER = struct.Struct("<IHHHHIQQdq")      # 48 bytes
STATE_FIXED = struct.Struct("<IHHdddQqQ")  # 56 bytes
INPUT_FIXED = struct.Struct("<HH")         # 4 bytes
SAMPLE = struct.Struct("<Hd")              # 10 bytes
SESSION = struct.Struct("<Q")              # the version 2 trailer's first field, 8 bytes
TAG_BYTES = 16                             # the trailer's MAC, after the session id
TRAILER_BYTES = SESSION.size + TAG_BYTES   # 24
KEY_BYTES = 32
MAX_PAYLOAD = 644
MAX_DATAGRAM = HEADER.size + MAX_PAYLOAD   # 692
MAX_CHANNELS = 64
FLAG_ECHO_VALID = 0x0001
FLAG_PAUSED = 0x0002
FLAG_RESTARTED = 0x0004
STATE_FLAGS = FLAG_ECHO_VALID | FLAG_PAUSED | FLAG_RESTARTED
SEQ_WINDOW = 64

assert HEADER.size == 48 and STATE_FIXED.size == 56 and INPUT_FIXED.size == 4 and SAMPLE.size == 10


class ClientError(Exception):
    """A failure that ends the run with exit code 1."""


class ErrorReply(ClientError):
    """The server answered a request with "ok":false; `error` is its message."""

    def __init__(self, command, error):
        super().__init__("%s: server replied with an error: %s" % (command, error))
        self.error = str(error)


def decode_state(data):
    """Checks a datagram against the rejection rules 1-12 of docs/protocol.md, in order.

    Returns (status, state): status is "ok" or the name of the first rule that failed; state is a
    dict only when status is "ok". Nothing after the first 16 bytes is read before the length is
    known to be right.
    """
    n = len(data)
    if n < HEADER.size:
        return "too_short", None
    magic, version = struct.unpack_from("<IH", data, 0)
    if magic != MAGIC:
        return "bad_magic", None
    if version != WIRE_VERSION:
        return "bad_version", None
    (payload_bytes,) = struct.unpack_from("<I", data, 12)
    if payload_bytes > MAX_PAYLOAD or payload_bytes != n - HEADER.size:
        return "bad_length", None
    (_, _, kind, flags, reserved, _, sequence, step, sim_time, sender_time) = \
        HEADER.unpack_from(data, 0)
    if kind != KIND_STATE:
        return "bad_kind", None
    if reserved != 0 or flags & ~STATE_FLAGS:
        return "bad_reserved", None
    if not math.isfinite(sim_time):
        return "non_finite", None
    if payload_bytes < STATE_FIXED.size:
        return "bad_length", None
    (step_flags, channel_count, p_reserved, position_drift, velocity_drift, energy,
     echo_sequence, echo_sender_time, echo_step) = STATE_FIXED.unpack_from(data, HEADER.size)
    if p_reserved != 0:
        return "bad_reserved", None
    if channel_count > MAX_CHANNELS:
        return "bad_count", None
    if payload_bytes != STATE_FIXED.size + 8 * channel_count:
        return "bad_length", None
    channels = struct.unpack_from("<%dd" % channel_count, data, HEADER.size + STATE_FIXED.size)
    if not all(math.isfinite(v) for v in channels):
        return "non_finite", None
    return "ok", {
        "flags": flags, "sequence": sequence, "step": step, "sim_time": sim_time,
        "sender_time": sender_time, "step_flags": step_flags,
        "position_drift": position_drift, "velocity_drift": velocity_drift, "energy": energy,
        "echo_valid": bool(flags & FLAG_ECHO_VALID), "echo_sequence": echo_sequence,
        "echo_sender_time": echo_sender_time, "echo_step": echo_step,
        "channels": list(channels),
    }


def input_tag(signed_bytes, key):
    """The MAC of a version 2 input: the first 16 bytes of HMAC-SHA-512-256 (libsodium
    crypto_auth, which is HMAC-SHA-512 as in RFC 2104 truncated to 32 bytes) under the session
    key, over every byte before the tag (docs/protocol.md, "Wire version 2", "MAC")."""
    return hmac.new(key, signed_bytes, hashlib.sha512).digest()[:TAG_BYTES]


def encode_input(sequence, samples, step=0, sim_time=0.0, sender_time=None, session=None,
                 key=None):
    """An input datagram (kind 2) carrying [(channel, value), ...]; docs/protocol.md.

    Without a session it is version 1 (unsigned, loopback only). With the session id and key
    from a version 2 hello it is version 2: the version 1 datagram with version = 2 and a 24-byte
    trailer (u64 session, 16-byte tag) that payload_bytes counts."""
    if not 1 <= len(samples) <= MAX_CHANNELS:
        raise ValueError("an input datagram carries 1 to 64 samples")
    if (session is None) != (key is None):
        raise ValueError("a signed input needs both the session id and the key")
    if key is not None and len(key) != KEY_BYTES:
        raise ValueError("a session key has %d bytes" % KEY_BYTES)
    if sender_time is None:
        sender_time = time.monotonic_ns()  # CLOCK_MONOTONIC on Linux, like the server's clock
    payload = INPUT_FIXED.pack(len(samples), 0) + b"".join(SAMPLE.pack(c, v) for c, v in samples)
    version, trailer = WIRE_VERSION, 0
    if session is not None:
        version, trailer = WIRE_VERSION_AUTHENTICATED, TRAILER_BYTES
    header = HEADER.pack(MAGIC, version, KIND_INPUT, 0, 0, len(payload) + trailer, sequence,
                         step, sim_time, sender_time)
    if session is None:
        return header + payload
    signed = header + payload + SESSION.pack(session)
    return signed + input_tag(signed, key)


# docs/protocol.md, "Wire version 2", "Example": sequence 7, sender_time 1000, channel 0 = 0.5,
# session 0102030405060708, key 00 01 .. 1f; the dump there, tag included.
EXAMPLE_V2_HEX = "".join((
    "52 54 4d 42 02 00 02 00 00 00 00 00 26 00 00 00",
    "07 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
    "00 00 00 00 00 00 00 00 e8 03 00 00 00 00 00 00",
    "01 00 00 00 00 00 00 00 00 00 00 00 e0 3f 08 07",
    "06 05 04 03 02 01 3b 46 5a 9f 03 ff 1a 3b bd ac",
    "6a f3 66 09 84 d9")).replace(" ", "")


def self_check(out):
    """Encodes the protocol.md version 2 example, prints it as hex; True if it is the dump."""
    got = encode_input(7, [(0, 0.5)], step=0, sim_time=0.0, sender_time=1000,
                       session=0x0102030405060708, key=bytes(range(KEY_BYTES)))
    print(got.hex(), file=out)
    return got.hex() == EXAMPLE_V2_HEX


def parse_session(reply):
    """(session id, key) from a version 2 hello reply: "session" 1-16 hex digits (nonzero),
    "key" 64 hex digits; a ClientError otherwise."""
    session, key = reply.get("session"), reply.get("key")
    hexdigits = set("0123456789abcdefABCDEF")
    if (not isinstance(session, str) or not 1 <= len(session) <= 16
            or not set(session) <= hexdigits or int(session, 16) == 0
            or not isinstance(key, str) or len(key) != 2 * KEY_BYTES
            or not set(key) <= hexdigits):
        raise ClientError("hello reply with a malformed \"session\" or \"key\"")
    return int(session, 16), bytes.fromhex(key)


class SequenceWindow:
    """Rule 13: accept only numbers larger than every one accepted before (64-entry window)."""

    def __init__(self):
        self.newest = None
        self.mask = 0  # bit i: newest - i was accepted

    def check(self, seq):
        if self.newest is None or seq > self.newest:
            if self.newest is None or seq - self.newest >= SEQ_WINDOW:
                self.mask = 1
            else:
                self.mask = ((self.mask << (seq - self.newest)) | 1) & ((1 << SEQ_WINDOW) - 1)
            self.newest = seq
            return "ok"
        behind = self.newest - seq
        if behind < SEQ_WINDOW and self.mask >> behind & 1:
            return "duplicate"
        return "out_of_order"


class Control:
    """The TCP control channel: one JSON object per line each way."""

    def __init__(self, sock, timeout):
        self.sock = sock
        self.timeout = timeout
        self.buf = b""
        self.next_id = 1

    def request(self, command, **keys):
        req = {"command": command, "id": self.next_id}
        req.update(keys)
        self.next_id += 1
        self.sock.sendall((json.dumps(req, separators=(",", ":")) + "\n").encode("utf-8"))
        deadline = time.monotonic() + self.timeout
        while True:
            reply = json.loads(self._read_line(deadline))
            if reply.get("id") == req["id"] or reply.get("id") is None:
                if not reply.get("ok"):
                    raise ErrorReply(command, reply.get("error"))
                return reply

    def _read_line(self, deadline):
        while b"\n" not in self.buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ClientError("no reply from the server within %.1f s" % self.timeout)
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                continue
            if not chunk:
                raise ClientError("the server closed the control connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8")


def fmt(x):
    return "nan" if math.isnan(x) else "%.6g" % x


def wrap_tls(tcp, args):
    """TLS on the control connection (`rtmb serve --tls-cert`, docs/protocol.md "TLS"): the
    server's certificate is trusted through --tls-ca (or the system's store with --tls) and must
    name the host, or it is pinned by its SHA-256 (--tls-fingerprint)."""
    if args.tls_fingerprint:
        pinned = args.tls_fingerprint.replace(":", "").lower()
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE  # the pin below is the check
    else:
        pinned = None
        ctx = ssl.create_default_context(cafile=args.tls_ca)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    tls = ctx.wrap_socket(tcp, server_hostname=args.host)
    if pinned is not None:
        got = hashlib.sha256(tls.getpeercert(binary_form=True)).hexdigest()
        if got != pinned:
            tls.close()
            raise ssl.SSLError("the server's certificate (SHA-256 %s) is not the pinned one" % got)
    return tls


def run(args, out):
    try:
        tcp = socket.create_connection((args.host, args.port), timeout=args.timeout)
        if args.tls or args.tls_ca or args.tls_fingerprint:
            tcp = wrap_tls(tcp, args)
    except OSError as e:  # ssl.SSLError included
        print("rtmb_client: cannot connect to %s:%d: %s (is `rtmb serve` running?)"
              % (args.host, args.port, e.strerror or e), file=sys.stderr)
        return 2
    summary = {"states_received": 0, "invalid": 0, "input_echoed": False, "last_step": None}
    try:
        with tcp:
            ctl = Control(tcp, args.timeout)
            hello = say_hello(ctl, args)
            session = key = None
            if hello.get("version") == WIRE_VERSION_AUTHENTICATED:
                session, key = parse_session(hello)
            elif hello.get("version") != WIRE_VERSION:
                raise ClientError("hello reply with an unknown \"version\": %r"
                                  % (hello.get("version"),))
            outputs = [s for s in str(hello.get("outputs", "")).split(",") if s]
            output_units = str(hello.get("output_units", "")).split(",")
            inputs = [s for s in str(hello.get("inputs", "")).split(",") if s]
            input_units = str(hello.get("input_units", "")).split(",")
            udp_port = int(hello["udp_port"])
            print("schema: model %s, rate %s Hz, dt %s s, substeps %s, udp port %d"
                  % (hello.get("model"), hello.get("rate_hz"), hello.get("dt"),
                     hello.get("substeps"), udp_port), file=out)
            if session is None:
                print("  wire version 1: inputs unsigned (loopback only)", file=out)
            else:
                print("  wire version 2: inputs signed, session %016x" % session, file=out)
            print("  outputs: " + ", ".join("%s [%s]" % (n, u) for n, u in
                                            zip(outputs, output_units)), file=out)
            print("  inputs:  " + ", ".join("%s [%s]" % (n, u) for n, u in
                                            zip(inputs, input_units)), file=out)
            if not 0 <= args.input_channel < max(len(inputs), 1) or not inputs:
                raise ClientError("input channel %d does not exist (the model has %d)"
                                  % (args.input_channel, len(inputs)))

            # Our own UDP socket, on the address the server sees us at (subscribe without
            # "address" uses the TCP peer address).
            local_ip = tcp.getsockname()[0]
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            with udp:
                udp.bind((local_ip, 0))
                server_udp = (tcp.getpeername()[0], udp_port)
                sub = ctl.request("subscribe", port=udp.getsockname()[1],
                                  decimation=args.decimation)
                print("subscribed %s:%s, decimation %s"
                      % (sub.get("address"), sub.get("port"), sub.get("decimation")), file=out)
                try:
                    receive(args, udp, server_udp, outputs, summary, out, session, key)
                finally:
                    try:
                        reply = ctl.request("unsubscribe")
                        print("unsubscribed (%s removed)" % reply.get("removed"), file=out)
                    except (ClientError, OSError) as e:
                        print("rtmb_client: unsubscribe failed: %s" % e, file=sys.stderr)
        code = 0
        if summary["states_received"] < args.count:
            raise ClientError("received %d valid states, wanted %d"
                              % (summary["states_received"], args.count))
        if not summary["input_echoed"]:
            raise ClientError("the input was not echoed within %.1f s" % args.timeout)
    except ClientError as e:
        print("rtmb_client: %s" % e, file=sys.stderr)
        code = 1
    except (OSError, ValueError, KeyError) as e:
        print("rtmb_client: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        code = 1
    if args.json:
        print(json.dumps(summary, separators=(",", ":")))
    return code


def say_hello(ctl, args):
    """hello asking for wire version 2 (--wire-version 2, the default). A server from before
    version 2 refuses it as "protocol version 2 is not supported"; only then is hello repeated
    without a version (version 1, which such a server accepts on loopback), as rtmb::Client::hello
    does. Any other refusal (a wrong token, say) ends the run."""
    keys = {"token": args.token} if args.token else {}
    if args.wire_version == WIRE_VERSION:
        return ctl.request("hello", version=WIRE_VERSION, **keys)
    try:
        return ctl.request("hello", version=WIRE_VERSION_AUTHENTICATED, **keys)
    except ErrorReply as e:
        if "is not supported" not in e.error:
            raise
    return ctl.request("hello", **keys)


def receive(args, udp, server_udp, outputs, summary, out, session=None, key=None):
    """Prints --count states, sends one input (signed when there is a session), and waits for its
    echo (bounded by --timeout)."""
    window = SequenceWindow()
    rejected = {}
    printed = 0
    input_seq = 0
    input_sent_at = None   # monotonic ns of the latest input datagram sent
    input_sender_time = None
    resend_after_ns = 250_000_000
    deadline = time.monotonic() + args.timeout
    newest = None
    while printed < args.count or not summary["input_echoed"]:
        now_ns = time.monotonic_ns()
        # Send the input once we know the newest state; resend (new sequence number) if lost.
        if newest is not None and not summary["input_echoed"] and (
                input_sent_at is None or now_ns - input_sent_at > resend_after_ns):
            input_seq += 1
            input_sender_time = time.monotonic_ns()
            udp.sendto(encode_input(input_seq, [(args.input_channel, args.input_value)],
                                    newest["step"], newest["sim_time"], input_sender_time,
                                    session, key),
                       server_udp)
            input_sent_at = input_sender_time
            print("sent input #%d: channel %d = %s at step %d"
                  % (input_seq, args.input_channel, fmt(args.input_value), newest["step"]),
                  file=out)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        udp.settimeout(min(remaining, 0.05))
        try:
            data, source = udp.recvfrom(MAX_DATAGRAM + 1)
        except socket.timeout:
            continue
        status, state = decode_state(data)
        if status == "ok" and source[0] != server_udp[0]:
            status = "foreign_sender"
        if status == "ok":
            status = window.check(state["sequence"])
        if status != "ok":
            summary["invalid"] += 1
            rejected[status] = rejected.get(status, 0) + 1
            continue
        newest = state
        summary["states_received"] += 1
        summary["last_step"] = state["step"]
        echo = ""
        if state["echo_valid"]:
            echo = "  echo seq %d step %d" % (state["echo_sequence"], state["echo_step"])
        if (state["echo_valid"] and input_seq and state["echo_sequence"] == input_seq
                and state["echo_sender_time"] == input_sender_time
                and not summary["input_echoed"]):
            summary["input_echoed"] = True
            latency_us = (time.monotonic_ns() - state["echo_sender_time"]) / 1000.0
            print("echo: input #%d applied in step %d, input->state %.0f us"
                  % (state["echo_sequence"], state["echo_step"], latency_us), file=out)
        if printed < args.count:
            printed += 1
            names = outputs if len(outputs) == len(state["channels"]) else \
                ["ch%d" % i for i in range(len(state["channels"]))]
            values = " ".join("%s=%s" % (n, fmt(v)) for n, v in zip(names, state["channels"]))
            flags = "".join(f for bit, f in ((FLAG_PAUSED, " paused"),
                                             (FLAG_RESTARTED, " restarted"))
                            if state["flags"] & bit)
            print("state #%d step %d t %.6f  %s  drift %s/%s  energy %s%s%s"
                  % (state["sequence"], state["step"], state["sim_time"], values,
                     fmt(state["position_drift"]), fmt(state["velocity_drift"]),
                     fmt(state["energy"]), echo, flags), file=out)
    if rejected:
        print("skipped invalid datagrams: " +
              ", ".join("%s %d" % kv for kv in sorted(rejected.items())), file=out)


def main(argv=None):
    p = argparse.ArgumentParser(description="Minimal Python client for `rtmb serve` "
                                            "(docs/protocol.md).")
    p.add_argument("--host", default="127.0.0.1", help="server address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None,
                   help="the server's TCP control port (required)")
    p.add_argument("--token", default=None,
                   help="shared token, if the server has --token (it must, beyond loopback)")
    p.add_argument("--wire-version", type=int, choices=(1, 2), default=2,
                   help="2 (default): signed inputs, falling back to 1 only with a server from "
                        "before version 2; 1: unsigned inputs, which only a loopback server "
                        "takes")
    p.add_argument("--self-check", action="store_true",
                   help="encode the version 2 example datagram of docs/protocol.md, print it as "
                        "hex, exit 0 if it matches the dump there and 1 if not; no server needed")
    p.add_argument("--tls", action="store_true",
                   help="TLS on the control channel (rtmb serve --tls-cert), the certificate "
                        "checked against the system's CAs")
    p.add_argument("--tls-ca", default=None,
                   help="TLS, trusting the certificates in this PEM file (e.g. the server's "
                        "self-signed certificate)")
    p.add_argument("--tls-fingerprint", default=None,
                   help="TLS, pinned to the certificate with this SHA-256 (as rtmb serve logs it)")
    p.add_argument("--count", type=int, default=5, help="states to print (default 5)")
    p.add_argument("--decimation", type=int, default=1,
                   help="one state every N steps (default 1)")
    p.add_argument("--input-channel", type=int, default=0, help="input channel index (default 0)")
    p.add_argument("--input-value", type=float, default=0.0,
                   help="value of the input sample (default 0.0)")
    p.add_argument("--timeout", type=float, default=5.0,
                   help="seconds to wait for the connection, each reply, and the states and "
                        "echo (default 5)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON summary line on stdout at the end (the rest goes to "
                        "stderr)")
    args = p.parse_args(argv)
    if args.self_check:
        if self_check(sys.stdout):
            return 0
        print("rtmb_client: self-check failed: the encoded example is not docs/protocol.md's "
              + EXAMPLE_V2_HEX, file=sys.stderr)
        return 1
    if args.port is None:
        p.error("the following arguments are required: --port")
    if args.count < 0 or args.timeout <= 0 or not math.isfinite(args.input_value):
        p.error("--count must be >= 0, --timeout > 0, --input-value finite")
    try:
        return run(args, sys.stderr if args.json else sys.stdout)
    except KeyboardInterrupt:
        print("rtmb_client: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
