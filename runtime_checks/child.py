"""The code that runs inside the subprocesses: the only place torch is imported.

It runs as a script (``python child.py ...``), outside the package, so it uses the standard
library and torch only. The first argument chooses the entry point:

    probe                        print the machine's torch facts as one JSON object
    run FIXTURE DEVICE RESULT [observe]
                                 run one fixture in this fresh interpreter (start method "spawn");
                                 with "observe", seeded, reporting the state it leaves (equivalence.py)
    serve                        the fork server (start method "forkserver"): import torch once,
                                 then fork one fresh process per job read from stdin

Importing torch costs seconds; a fixture runs in milliseconds. The fork server pays the import
once, and every fixture still gets a process of its own, forked before any fixture code ran, so
no state leaks from one run to the next. The server never touches CUDA: a process that
initialised CUDA cannot hand it to a forked child.

A run reports on a dedicated channel, a JSON result file written when the fixture returns or
raises, never on stdout, which belongs to the fixture. No result file means the process died
(timeout, os._exit, a signal): the parent tells those apart by the exit status.

An observed run (the fix equivalence check) starts from seeded random number generators and
reports, besides what it raised, the state the program left: each global name's value described
(a tensor by class, dtype, shape, device, requires_grad, leafness, grad_fn, gradient and a digest
of its values; a module by its parameters and buffers; a generator by its state) and the random
number generators' states.
A program that raised is described as it stood when the exception left it.
"""

import contextlib
import faulthandler
import hashlib
import json
import os
import random
import runpy
import select
import signal
import sys
import time
import traceback

# How often the fork server checks whether its child has exited; bounds the timeout's precision.
_POLL_SECONDS = 0.01


def probe() -> dict:
    import torch

    cuda = torch.cuda.is_available()
    return {
        "torch": torch.__version__,
        "cuda": cuda,
        "cuda_name": torch.cuda.get_device_name() if cuda else "",
        "mps": torch.backends.mps.is_available(),
    }


def run_fixture(fixture: str, device_name: str, result_path: str, observe: bool = False) -> None:
    """Run ``fixture`` as ``__main__`` with ``device`` bound, as ``python fixture.py`` would."""
    import torch

    faulthandler.enable()  # a segfault leaves its Python traceback in the output tail
    sys.argv = [fixture]
    sys.path[0] = os.path.dirname(fixture)
    device = torch.device(device_name)
    if observe:
        _seed_everything()
    try:
        namespace = runpy.run_path(fixture, init_globals={"device": device}, run_name="__main__")
        raised = None
    except BaseException as error:  # SystemExit and KeyboardInterrupt are outcomes too
        traceback.print_exc()
        # The whole class hierarchy: a declared RuntimeError also matches torch.AcceleratorError.
        raised = {"types": [cls.__name__ for cls in type(error).__mro__], "message": str(error)}
        namespace = _namespace_at(error.__traceback__, fixture)
    result: dict = {"raised": raised}
    if observe:
        result["state"] = {"names": _described_names(namespace), "rng": _generator_states(device)}
    _write_atomically(result_path, json.dumps(result))


# --- observed runs ------------------------------------------------------------------------------

SEED = 0
# How deep lists, tuples and dicts are described: a fixture's data is shallow.
_DEPTH = 3


def _seed_everything() -> None:
    import torch

    torch.manual_seed(SEED)  # every device's default generator
    random.seed(SEED)
    with contextlib.suppress(ImportError):
        import numpy

        numpy.random.seed(SEED)


def _namespace_at(trace, fixture: str) -> dict:
    """The fixture's globals when the exception left its module code (empty if it never ran)."""
    while trace is not None:
        code = trace.tb_frame.f_code
        if code.co_name == "<module>" and code.co_filename == fixture:
            return dict(trace.tb_frame.f_globals)
        trace = trace.tb_next
    return {}


def _described_names(namespace: dict) -> dict:
    return {name: _described(value) for name, value in sorted(namespace.items()) if not name.startswith("__")}


def _described(value, depth: int = 0):
    """A JSON description of a value: equal descriptions for values a program cannot tell apart."""
    import torch

    try:
        if isinstance(value, torch.Tensor):
            return _tensor(value)
        if isinstance(value, torch.nn.Module):
            return {
                "module": type(value).__qualname__,
                "training": value.training,
                "parameters": {name: _tensor(tensor) for name, tensor in value.named_parameters()},
                "buffers": {name: _tensor(tensor) for name, tensor in value.named_buffers()},
            }
        if isinstance(value, torch.Generator):
            return {"generator": str(value.device), "state": _digest(value.get_state().tolist())}
        if isinstance(value, (torch.device, torch.dtype, bool, int, float, complex, str, bytes, type(None))):
            return repr(value)
        if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
            return {"array": str(value.dtype), "shape": list(value.shape), "values": _digest(value.tolist())}
        if isinstance(value, (list, tuple)) and depth < _DEPTH:
            return {type(value).__name__: [_described(item, depth + 1) for item in value]}
        if isinstance(value, dict) and depth < _DEPTH:
            return {"dict": {repr(key): _described(item, depth + 1) for key, item in value.items()}}
    except Exception as error:  # a value that cannot be looked at is described by what stopped us
        return {"unobservable": type(value).__qualname__, "because": type(error).__name__}
    return {"object": type(value).__qualname__}


def _tensor(tensor) -> dict:
    """Values only where the device holds data: meta has a shape and a dtype, nothing more."""
    detached = tensor.detach()
    return {
        "dtype": str(tensor.dtype),
        "shape": list(tensor.shape),
        "device": str(tensor.device),
        "requires_grad": tensor.requires_grad,
        # A fix that makes a moved copy (a non-leaf with a ToCopyBackward) into a leaf, or a
        # parameter into a plain tensor, changes what an optimizer does with it.
        "class": type(tensor).__qualname__,
        "is_leaf": tensor.is_leaf,
        "grad_fn": None if tensor.grad_fn is None else type(tensor.grad_fn).__name__,
        "values": None if tensor.is_meta else _digest(detached.cpu().tolist()),
        "grad": None if tensor.grad is None else _tensor(tensor.grad),
    }


def _generator_states(device) -> dict:
    """The default generators a program on ``device`` can draw from, and Python's and NumPy's."""
    import torch

    states = {"torch cpu": _digest(torch.get_rng_state().tolist()), "python random": _digest(random.getstate())}
    if device.type == "cuda":
        states["torch cuda"] = _digest([state.tolist() for state in torch.cuda.get_rng_state_all()])
    if device.type == "mps":
        states["torch mps"] = _digest(torch.mps.get_rng_state().tolist())
    if "numpy" in sys.modules:
        state = sys.modules["numpy"].random.get_state()
        states["numpy"] = _digest([part.tolist() if hasattr(part, "tolist") else part for part in state])
    return states


def _digest(value) -> str:
    """A short fingerprint of a value's repr: equal for equal values (NaN included)."""
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def serve() -> None:
    """Fork a process per job line on stdin, several at once; answer each as it ends with one line
    ``{"id": ..., "returncode": ..., "timed_out": ...}`` on stdout.

    A closed stdin means the runner is done, or gone (Ctrl-C, killed): the children still running
    are killed, so none outlives it, and the server ends.
    """
    # Ctrl-C in the terminal reaches the server too: it keeps enforcing its children's timeouts
    # and ends when the runner closes its stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _warm_up()
    jobs = _JobReader(sys.stdin.fileno())
    running = {}  # pid -> (job, deadline)
    while jobs.open or running:
        for job in jobs.read(timeout=_POLL_SECONDS if running else None):
            running[_fork(job)] = (job, time.monotonic() + job["timeout"])
        if not jobs.open:
            for pid in running:
                kill_group(pid)
        for pid, (job, deadline) in list(running.items()):
            ended = _ended(pid, deadline)
            if ended is not None:
                del running[pid]
                returncode, timed_out = ended
                reply = {"id": job["id"], "returncode": returncode, "timed_out": timed_out}
                print(json.dumps(reply), flush=True)


class _JobReader:
    """Job lines from a pipe, read without blocking the server's loop for longer than a poll.

    Raw reads, not sys.stdin: select() cannot see lines that a buffered reader already holds.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.open = True
        self._partial = b""

    def read(self, timeout) -> list:
        if not self.open:
            time.sleep(timeout)
            return []
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return []
        chunk = os.read(self.fd, 65536)
        if not chunk:
            self.open = False
            return []
        *lines, self._partial = (self._partial + chunk).split(b"\n")
        return [json.loads(line) for line in lines]


def _warm_up() -> None:
    """Pay once, before any fork, the imports every run would otherwise pay on its own.

    torch takes seconds to import, and meta's kernels are written in Python: the first meta
    operation imports torch._dynamo and sympy, seconds more. Nothing runs on cpu here: a server
    that had started the CPU thread pool would fork children with a broken copy of it.
    """
    import torch

    torch.empty(0, device="meta") + 0


def _fork(job: dict) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _run_forked(job)  # never returns
    return pid


def _ended(pid: int, deadline: float):
    """(exit code, timed out) once the child has ended, None while it runs; past its deadline the
    child's whole session is killed, not just the child."""
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        return os.waitstatus_to_exitcode(status), False
    if time.monotonic() < deadline:
        return None
    kill_group(pid)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), True


def _run_forked(job: dict) -> None:
    """The forked child: isolate like a spawned one, run, and exit without returning to the server loop."""
    exit_code = 0
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a fresh interpreter
        _isolate(job["workdir"], job["log"])
        run_fixture(job["fixture"], job["device"], job["result"], job["observe"])
    except BaseException:
        traceback.print_exc()
        exit_code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(exit_code)


def _isolate(workdir: str, log: str) -> None:
    """What the spawn start method gets from Popen: own session, own cwd, output to a file, no stdin.

    stdin and stdout are the server's job and reply pipes; the fixture must not reach either.
    """
    os.setsid()
    os.chdir(workdir)
    output = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(output)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)


def kill_group(leader: int) -> None:
    """Kill the process group that a leader started with setsid."""
    with contextlib.suppress(ProcessLookupError):  # it exited between the check and the kill
        os.killpg(leader, signal.SIGKILL)


def _write_atomically(path: str, text: str) -> None:
    """A process killed mid-write must leave no result rather than half of one."""
    partial = path + ".partial"
    with open(partial, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(partial, path)


def main(argv: list) -> None:
    command, arguments = argv[0], argv[1:]
    if command == "probe":
        print(json.dumps(probe()))
    elif command == "run":
        fixture, device, result, *observe = arguments
        run_fixture(fixture, device, result, observe == ["observe"])
    elif command == "serve":
        serve()
    else:
        sys.exit(f"unknown command {command!r}: probe, run or serve")


if __name__ == "__main__":
    main(sys.argv[1:])
