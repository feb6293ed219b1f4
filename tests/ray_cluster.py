"""A real two-node Ray cluster on loopback for the tests: `ray start --head` and a second `ray start --address`
node, each with its own temporary folder and ports, Ray's token authentication on (RAY_AUTH_MODE=token, the token in
a file named by RAY_AUTH_TOKEN_PATH, as Ray documents it; nothing is written to ~/.ray).

Both nodes are at `LOOPBACK`, 127.0.0.2: Ray replaces a --node-ip-address of 127.0.0.1 or localhost by the address
of the machine's outward interface (`ray._private.services.resolve_ip_for_localhost`), so that the cluster would be
reachable from the network; another address of the loopback interface is kept as given.

Each node is one `ray start --block` in a new process group under `timeout` (a watchdog that ends it even if the
test process dies); `stop()` ends exactly those process groups (SIGINT, then SIGKILL), never Ray processes
started by anyone else.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
LOOPBACK = "127.0.0.2"


def _free_ports(n: int) -> list[int]:
    """`n` ports free now on `LOOPBACK`, spaced so that Ray's worker port ranges fit after them."""
    out: list[int] = []
    while len(out) < n:
        with socket.socket() as s:
            s.bind((LOOPBACK, 0))
            port = s.getsockname()[1]
        if port < 60000 and all(abs(port - p) > 200 for p in out):
            out.append(port)
    return out


class RayCluster:
    def __init__(self, folder: Path, watchdog: int = 600):
        self.folder = Path(folder)
        self.watchdog = watchdog
        self.temp = Path(tempfile.mkdtemp(prefix="rc-", dir="/tmp"))  # Ray's sockets: paths under 108 bytes
        self.procs: list[subprocess.Popen] = []
        token = self.folder / "auth_token"
        self.folder.mkdir(parents=True, exist_ok=True)
        token.write_text(secrets.token_hex(32))
        token.chmod(0o600)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        self.env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token), RAY_USAGE_STATS_ENABLED="0")
        self.port = None

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def client_env(self) -> dict[str, str]:
        """The environment of a driver: the cluster's address and its token."""
        return {**self.env, "RAY_ADDRESS": self.address}

    def _node(self, name: str, base: int, head: bool) -> None:
        args = [RAY, "start", "--block", f"--node-ip-address={LOOPBACK}", "--num-cpus=1", "--disable-usage-stats",
                f"--temp-dir={self.temp / name}", f"--node-manager-port={base + 1}",
                f"--object-manager-port={base + 2}", f"--dashboard-agent-listen-port={base + 3}",
                f"--dashboard-agent-grpc-port={base + 4}", f"--runtime-env-agent-port={base + 5}",
                f"--metrics-export-port={base + 6}", f"--min-worker-port={base + 10}",
                f"--max-worker-port={base + 60}"]
        if head:
            args += ["--head", f"--port={base}", "--include-dashboard=false"]
        else:
            args.append(f"--address={self.address}")
        log = open(self.folder / f"{name}.log", "wb")
        self.procs.append(subprocess.Popen(["timeout", "-s", "INT", str(self.watchdog), *args], env=self.env,
                                           stdout=log, stderr=subprocess.STDOUT, start_new_session=True))

    def start(self, timeout: float = 120) -> RayCluster:
        head, node = _free_ports(2)
        self.port = head
        self._node("head", head, True)
        self._wait(lambda: _listening(head), timeout, "the head node")
        self._node("node2", node, False)
        self._wait(lambda: self.alive_nodes() == 2, timeout, "the second node")
        return self

    def alive_nodes(self) -> int:
        code = ("import ray; ray.init(address='auto', log_to_driver=False); "
                "print(sum(n['Alive'] for n in ray.nodes()))")
        out = subprocess.run([sys.executable, "-c", code], env=self.client_env(), capture_output=True, text=True,
                             timeout=120)
        return int(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 and out.stdout.strip() else 0

    def _wait(self, ready, timeout: float, what: str) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(p.poll() is not None for p in self.procs):
                break
            if ready():
                return
            time.sleep(1)
        logs = "; ".join(f"{p.name}: {p.read_text(errors='replace')[-400:]}" for p in self.folder.glob("*.log"))
        raise RuntimeError(f"Ray cluster: {what} did not start: {logs}")

    def stop(self) -> None:
        """End the nodes' process groups: SIGINT (ray start's own shutdown), then SIGKILL what is left."""
        for sig, wait in ((signal.SIGINT, 15), (signal.SIGKILL, 5)):
            for p in self.procs:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, sig)
            end = time.monotonic() + wait
            while time.monotonic() < end and any(_group_alive(p.pid) for p in self.procs):
                time.sleep(0.5)
        for p in self.procs:
            with contextlib.suppress(Exception):
                p.wait(timeout=5)
        self.procs = []
        shutil.rmtree(self.temp, ignore_errors=True)

    def __enter__(self) -> RayCluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex((LOOPBACK, port)) == 0


def _group_alive(pgid: int) -> bool:
    """Whether a process of group `pgid` is still running (zombies do not count)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
    return False
