#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""toast-overlay beside mako, under one headless sway (issue #41).

Prints a Markdown table: time to pixels (p50, p99), PSS and anonymous memory
(idle and with 10 cards), wakeups a minute at rest, and CPU while one toast
counts down for 10 s. Time to pixels is measured the same way for both: from
just before a shell of the user starts the client (`toastctl add`,
`notify-send`; bash's $EPOCHREALTIME) to the `wl_surface.commit` that follows
the first buffer attached after it, read from WAYLAND_DEBUG's timestamps
(CLOCK_REALTIME, microseconds mod 2^32).

    python3 bench/overlay/overlay-bench.py --toastd BIN --overlay BIN --toastctl BIN [--quick]

As root, sway and every client run as uid 1000 (sway refuses root).
"""
import argparse, glob, os, re, shutil, signal, statistics, subprocess, sys, tempfile, time

parser = argparse.ArgumentParser()
parser.add_argument("--toastd", required=True)
parser.add_argument("--overlay", required=True)
parser.add_argument("--toastctl", required=True)
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()
samples = 10 if args.quick else 30
rest = 10 if args.quick else 30

uid = 1000 if os.getuid() == 0 else os.getuid()
work = tempfile.mkdtemp(prefix="toast-overlay-bench-")
os.chown(work, uid, uid)
os.chmod(work, 0o700)
for binary in (args.toastd, args.overlay, args.toastctl):
    os.chmod(binary, 0o755)
children = []


def user_command(command, extra=None):
    env = {"HOME": work, "XDG_RUNTIME_DIR": work, "WAYLAND_DISPLAY": "wayland-1", "PATH": "/usr/bin:/bin",
           "TOASTD_SOCKET": work + "/toastd.sock", "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + work + "/bus"}
    env.update(extra or {})
    prefix = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"] if os.getuid() == 0 else []
    return prefix + ["env", "-i"] + [f"{k}={v}" for k, v in env.items()] + command


def spawn(command, extra=None, stderr=subprocess.DEVNULL):
    process = subprocess.Popen(user_command(command, extra), stdout=subprocess.DEVNULL, stderr=stderr)
    children.append(process)
    return process


def run(command, extra=None):
    return subprocess.run(user_command(command, extra), capture_output=True, text=True, timeout=20)


def wait_for(condition, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def cleanup():
    for process in reversed(children):
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
    shutil.rmtree(work, ignore_errors=True)


LINE = re.compile(r"^\[\s*(\d+)\.(\d{3})\]\s+->\s+wl_surface@(\d+)\.(attach|commit)\((.*)\)")


def frame_after(log, offset, start_us):
    """The first commit after a buffer attached, in `log` from `offset`: its delay from start_us, in ms."""
    with open(log, "rb") as handle:
        handle.seek(offset)
        text = handle.read().decode("utf-8", "replace")
    attached = set()
    for line in text.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        stamp = int(match.group(1)) * 1000 + int(match.group(2))
        surface, request, arguments = match.group(3), match.group(4), match.group(5)
        if request == "attach" and "wl_buffer@" in arguments:
            attached.add(surface)
        elif request == "commit" and surface in attached:
            return ((stamp - start_us) % (1 << 32)) / 1000.0
    return None


class Shell:
    """A bash of the desktop's user that runs each command line it is sent and
    answers with $EPOCHREALTIME taken just before it started the command (a
    builtin: no fork), so the start of a sample is the client's own exec,
    with no Python, setpriv or env in front of it."""

    def __init__(self):
        loop = 'while IFS= read -r line; do t=$EPOCHREALTIME; eval "$line" >/dev/null 2>&1; echo "$t"; done'
        self.process = subprocess.Popen(user_command(["bash", "-c", loop]), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        children.append(self.process)

    def run(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        seconds, micros = self.process.stdout.readline().strip().split(".")
        return int(seconds) * 1_000_000 + int(micros)


def time_to_pixels(log, client, clear):
    shell = Shell()
    delays = []
    for index in range(samples):
        offset = os.path.getsize(log)
        start = shell.run(client(index)) % (1 << 32)
        found = []
        wait_for(lambda: found.append(frame_after(log, offset, start)) or found[-1] is not None, 5)
        if found and found[-1] is not None:
            delays.append(found[-1])
        clear()
        time.sleep(0.3)
    return delays


def memory(pid):
    values = {}
    with open(f"/proc/{pid}/smaps_rollup") as handle:
        for line in handle:
            parts = line.split()
            if parts[0] in ("Pss:", "Anonymous:", "Rss:"):
                values[parts[0][:-1]] = int(parts[1]) / 1024
    return values


def switches(pid):
    total = 0
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        with open(status) as handle:
            for line in handle:
                if "ctxt_switches" in line:
                    total += int(line.split()[1])
    return total


def cpu_ns(pid):
    total = 0
    for stat in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        with open(stat) as handle:
            total += int(handle.read().split()[0])
    return total


def wakeups_per_minute(pid):
    before = switches(pid)
    time.sleep(rest)
    return (switches(pid) - before) * 60 / rest


def countdown_cpu(pid, show):
    before = cpu_ns(pid)
    show()
    time.sleep(10)
    return (cpu_ns(pid) - before) / 1e9 / 10 * 100


def percentile(values, share):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


try:
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "session-bus.conf.in")) as template:
        configuration = template.read().replace("@BUS@", work + "/bus").replace("@SERVICES@", work + "/services")
    with open(work + "/bus.conf", "w") as handle:
        handle.write(configuration)
    # Ten cards on screen at once: toastd's top stack and mako both allow 10.
    with open(work + "/config.toml", "w") as handle:
        handle.write("[max_visible]\ntop = 10\n[overlay]\ntransition = \"none\"\n")
    with open(work + "/mako.conf", "w") as handle:
        handle.write("max-visible=10\n")
    for name in ("bus.conf", "config.toml", "mako.conf"):
        os.chown(f"{work}/{name}", uid, uid)
    spawn(["dbus-daemon", "--config-file=" + work + "/bus.conf", "--nofork"])
    wait_for(lambda: os.path.exists(work + "/bus"))
    spawn(["sway", "-c", "/dev/null"], {"WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"})
    if not wait_for(lambda: os.path.exists(work + "/wayland-1")):
        sys.exit("sway did not start")
    toastd = spawn([args.toastd, "--socket", work + "/toastd.sock", "--ephemeral", "--config", work + "/config.toml"])
    wait_for(lambda: os.path.exists(work + "/toastd.sock"))
    toastctl = lambda *a: run([args.toastctl] + list(a))

    def overlay_through_cards(name, extra=None):
        """A toast-overlay started under WAYLAND_DEBUG, its time to pixels
        over `samples` cards, then idle for 2 s: the process and the delays."""
        log = f"{work}/{name}.wl"
        process = spawn([args.overlay, "--config", work + "/config.toml"], {"WAYLAND_DEBUG": "1", **(extra or {})},
                        stderr=open(log, "wb"))
        time.sleep(1)
        delays = time_to_pixels(log, lambda i: f"{args.toastctl} add 'Build {i} finished' --role success --duration indefinite",
                                lambda: toastctl("clear"))
        time.sleep(2)
        return process, delays

    # toast-overlay
    overlay, ours = overlay_through_cards("overlay")
    ours_idle = memory(overlay.pid)
    ours_wakeups = wakeups_per_minute(overlay.pid)
    for index in range(10):
        toastctl("add", f"Card {index}: a message long enough to wrap onto a second line of the card", "--title", "CI",
                 "--role", "info", "--duration", "indefinite")
    time.sleep(2)
    ours_ten = memory(overlay.pid)
    toastctl("clear")
    time.sleep(1)
    ours_cpu = countdown_cpu(overlay.pid, lambda: toastctl("add", "Counting down", "--duration", "10"))
    overlay.terminate()
    overlay.wait(timeout=5)

    # The same overlay keeping the code pages only its start and first card
    # ran (TOAST_OVERLAY_KEEP_CODE_PAGES): what letting go of them saves, and
    # whether the cards after it pay for it.
    kept, kept_delays = overlay_through_cards("kept", {"TOAST_OVERLAY_KEEP_CODE_PAGES": "1"})
    kept_idle = memory(kept.pid)
    kept.terminate()
    kept.wait(timeout=5)

    # mako
    mako_log = work + "/mako.wl"
    mako = spawn(["mako", "-c", work + "/mako.conf"], {"WAYLAND_DEBUG": "1"}, stderr=open(mako_log, "wb"))
    wait_for(lambda: run(["makoctl", "list"]).returncode == 0)
    time.sleep(1)
    theirs = time_to_pixels(mako_log, lambda i: f"notify-send -t 0 'Build {i} finished'",
                            lambda: run(["makoctl", "dismiss", "--all"]))
    time.sleep(2)
    theirs_idle = memory(mako.pid)
    theirs_wakeups = wakeups_per_minute(mako.pid)
    for index in range(10):
        run(["notify-send", "-t", "0", "CI", f"Card {index}: a message long enough to wrap onto a second line of the card"])
    time.sleep(2)
    theirs_ten = memory(mako.pid)
    run(["makoctl", "dismiss", "--all"])
    time.sleep(1)
    theirs_cpu = countdown_cpu(mako.pid, lambda: run(["notify-send", "-t", "10000", "Counting down"]))

    def ratio(a, b):
        return f"{a / b:.2f}×" if b else "–"

    p50, p99 = percentile(ours, 0.5), percentile(ours, 0.99)
    m50, m99 = percentile(theirs, 0.5), percentile(theirs, 0.99)
    print(f"### toast-overlay beside mako (one headless sway, {len(ours)}/{len(theirs)} samples, {rest} s at rest)")
    print()
    print("| measure | toast-overlay | mako | ratio | target |")
    print("|---|---|---|---|---|")
    print(f"| time to pixels p50 (ms) | {p50:.2f} | {m50:.2f} | {ratio(p50, m50)} | ≤ 0.5× |")
    print(f"| time to pixels p99 (ms) | {p99:.2f} | {m99:.2f} | {ratio(p99, m99)} | |")
    print(f"| PSS idle (MiB) | {ours_idle['Pss']:.1f} | {theirs_idle['Pss']:.1f} | {ratio(ours_idle['Pss'], theirs_idle['Pss'])} | printed |")
    kept50 = percentile(kept_delays, 0.5)
    print(f"| PSS idle, start-up code pages kept (MiB) | {kept_idle['Pss']:.1f} | | {ratio(ours_idle['Pss'], kept_idle['Pss'])} as shipped | printed |")
    print(f"| time to pixels p50, start-up code pages kept (ms) | {kept50:.2f} | | {ratio(p50, kept50)} as shipped | printed |")
    print(f"| anonymous idle (MiB) | {ours_idle['Anonymous']:.1f} | {theirs_idle['Anonymous']:.1f} | {ratio(ours_idle['Anonymous'], theirs_idle['Anonymous'])} | ≤ 2× |")
    print(f"| PSS, 10 cards (MiB) | {ours_ten['Pss']:.1f} | {theirs_ten['Pss']:.1f} | {ratio(ours_ten['Pss'], theirs_ten['Pss'])} | printed |")
    print(f"| anonymous, 10 cards (MiB) | {ours_ten['Anonymous']:.1f} | {theirs_ten['Anonymous']:.1f} | {ratio(ours_ten['Anonymous'], theirs_ten['Anonymous'])} | ≤ 2× |")
    print(f"| wakeups a minute, nothing shown | {ours_wakeups:.0f} | {theirs_wakeups:.0f} | | 0 |")
    print(f"| CPU, one toast counting down 10 s (% of a core) | {ours_cpu:.2f} | {theirs_cpu:.2f} (no countdown) | | ≤ 2 |")
finally:
    cleanup()
