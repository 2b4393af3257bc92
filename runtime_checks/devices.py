"""Which devices this machine offers, learnt from torch in a subprocess.

The runner process never imports torch: a broken CUDA install may crash on import, and the
linter's own tests must not pay for it. A CPU-only machine still exercises the accelerator path
on ``meta``, torch's data-less device, reported everywhere as simulated: it proves that mixing
devices raises, never that a real GPU works.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from . import child

KNOWN_DEVICES = ("cpu", "cuda", "mps", "meta")


class DeviceError(ValueError):
    """A requested device that this machine does not offer."""


@dataclass(frozen=True)
class Device:
    name: str  # what torch.device() takes
    hardware: str = ""  # the GPU's name for cuda; empty where torch does not name it

    @property
    def simulated(self) -> bool:
        """meta tensors have a shape and a device but no data: an accelerator stand-in."""
        return self.name == "meta"

    @property
    def is_accelerator(self) -> bool:
        return self.name != "cpu"

    @property
    def label(self) -> str:
        return f"{self.name} (simulated)" if self.simulated else self.name


@dataclass(frozen=True)
class Machine:
    torch_version: str
    cuda_usable: bool  # torch.cuda.is_available(): decides where `cpu-only` and `cuda` failures apply
    cuda_name: str
    mps_usable: bool

    def default_devices(self) -> tuple[Device, ...]:
        """cpu and every real accelerator; cpu and the simulated meta when there is none."""
        accelerators = []
        if self.cuda_usable:
            accelerators.append(Device("cuda", self.cuda_name))
        if self.mps_usable:
            accelerators.append(Device("mps"))
        return (Device("cpu"), *(accelerators or [Device("meta")]))

    def choose(self, names: Sequence[str]) -> tuple[Device, ...]:
        """The requested devices; meta is always on offer, a missing real one is an error."""
        if not names:
            return self.default_devices()
        offered = {device.name: device for device in self.default_devices()}
        offered.setdefault("meta", Device("meta"))
        missing = [name for name in names if name not in offered]
        if missing:
            raise DeviceError(f"not available on this machine: {', '.join(missing)} (available: {', '.join(offered)})")
        return tuple(offered[name] for name in names)


def probe_machine(timeout: float = 120) -> Machine:
    completed = subprocess.run(
        [sys.executable, child.__file__, "probe"], capture_output=True, text=True, timeout=timeout
    )
    if completed.returncode != 0:
        raise RuntimeError(f"could not probe torch in a subprocess:\n{completed.stderr}")
    facts = json.loads(completed.stdout)
    return Machine(facts["torch"], facts["cuda"], facts["cuda_name"], facts["mps"])
