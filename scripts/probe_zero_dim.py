"""Which torch operations let a 0-dim CPU tensor meet a tensor on an accelerator?

PyTorch treats a 0-dim CPU tensor as a scalar in the operations that TensorIterator checks
itself (arithmetic, comparisons); operations whose generated wrapper checks every argument's
device raise instead (``torch.clamp(x, max=torch.tensor(1.0))`` on CUDA). The simulated meta
device does not check either way, so this only means something on real hardware:

    python scripts/probe_zero_dim.py --device cuda --json zero_dim.json

Prints one line per operation: ``accepts`` or ``raises``, with the error's first line. The
analysis's list of operations that accept a CPU scalar (knowledge/api.py) is checked against a
run of this script and proven by tests/fixtures/semantics.
"""

from __future__ import annotations

import argparse
import json

import torch
import torch.nn.functional as F


def operations(x, s, mask, ints, int_scalar):
    """(name, thunk) pairs: ``x`` on the device, ``s`` a 0-dim CPU float tensor."""
    return [
        ("operator +", lambda: x + s),
        ("operator * (scalar first)", lambda: s * x),
        ("operator >", lambda: x > s),
        ("operator **", lambda: x**s),
        ("operator @ is not defined for 0-dim", lambda: x @ s),
        ("torch.add", lambda: torch.add(x, s)),
        ("torch.add (scalar first)", lambda: torch.add(s, x)),
        ("torch.sub", lambda: torch.sub(x, s)),
        ("torch.sub (scalar first)", lambda: torch.sub(s, x)),
        ("torch.mul", lambda: torch.mul(x, s)),
        ("torch.div", lambda: torch.div(x, s)),
        ("torch.div (scalar first)", lambda: torch.div(s, x)),
        ("torch.true_divide", lambda: torch.true_divide(x, s)),
        ("torch.floor_divide", lambda: torch.floor_divide(x, s)),
        ("torch.remainder", lambda: torch.remainder(x, s)),
        ("torch.fmod", lambda: torch.fmod(x, s)),
        ("torch.pow", lambda: torch.pow(x, s)),
        ("torch.pow (scalar base)", lambda: torch.pow(s, x)),
        ("torch.atan2", lambda: torch.atan2(x, s)),
        ("torch.hypot", lambda: torch.hypot(x, s)),
        ("torch.copysign", lambda: torch.copysign(x, s)),
        ("torch.xlogy", lambda: torch.xlogy(x, s)),
        ("torch.maximum", lambda: torch.maximum(x, s)),
        ("torch.minimum", lambda: torch.minimum(x, s)),
        ("torch.fmax", lambda: torch.fmax(x, s)),
        ("torch.fmin", lambda: torch.fmin(x, s)),
        ("torch.eq", lambda: torch.eq(x, s)),
        ("torch.ne", lambda: torch.ne(x, s)),
        ("torch.lt", lambda: torch.lt(x, s)),
        ("torch.ge", lambda: torch.ge(x, s)),
        ("torch.logical_and", lambda: torch.logical_and(x, s)),
        ("torch.bitwise_and", lambda: torch.bitwise_and(ints, int_scalar)),
        ("torch.heaviside", lambda: torch.heaviside(x, s)),
        ("torch.lerp weight", lambda: torch.lerp(x, x, s)),
        ("torch.lerp end", lambda: torch.lerp(x, s, 0.5)),
        ("torch.where other", lambda: torch.where(mask, x, s)),
        ("torch.where input", lambda: torch.where(mask, s, x)),
        ("torch.clamp max", lambda: torch.clamp(x, max=s)),
        ("torch.clamp min", lambda: torch.clamp(x, min=s)),
        ("torch.clip max", lambda: torch.clip(x, max=s)),
        ("torch.clamp_min", lambda: torch.clamp_min(x, s)),
        ("torch.clamp_max", lambda: torch.clamp_max(x, s)),
        ("torch.isclose", lambda: torch.isclose(x, s)),
        ("torch.allclose", lambda: torch.allclose(x, s.expand_as(x))),
        ("torch.dist", lambda: torch.dist(x, s)),
        ("torch.stack of 0-dim", lambda: torch.stack([x.sum(), s])),
        ("torch.cat", lambda: torch.cat([x, s.reshape(1, 1).expand(1, x.size(1))])),
        ("torch.addcmul value tensor", lambda: torch.addcmul(x, x, s)),
        ("torch.mv", lambda: torch.mv(x, s.expand(x.size(1)))),
        ("F.mse_loss", lambda: F.mse_loss(x, s.expand_as(x))),
        ("F.mse_loss 0-dim target", lambda: F.mse_loss(x.sum(), s)),
        ("F.l1_loss 0-dim target", lambda: F.l1_loss(x.sum(), s)),
        ("F.binary_cross_entropy_with_logits 0-dim target", lambda: F.binary_cross_entropy_with_logits(x.sum(), s)),
        ("method x.add", lambda: x.add(s)),
        ("method x.mul", lambda: x.mul(s)),
        ("method x.div", lambda: x.div(s)),
        ("method x.sub", lambda: x.sub(s)),
        ("method x.pow", lambda: x.pow(s)),
        ("method x.eq", lambda: x.eq(s)),
        ("method x.lt", lambda: x.lt(s)),
        ("method x.maximum", lambda: x.maximum(s)),
        ("method x.clamp max", lambda: x.clamp(max=s)),
        ("method x.clamp_max", lambda: x.clamp_max(s)),
        ("method x.masked_fill", lambda: x.masked_fill(mask, s)),
        ("method x.where", lambda: x.where(mask, s)),
        ("method x.lerp", lambda: x.lerp(x, s)),
        ("method x.expand_as(s)", lambda: s.expand_as(x)),
        ("method x.index_fill", lambda: x.index_fill(1, torch.tensor([0], device=x.device), s)),
        ("in place x.add_", lambda: x.clone().add_(s)),
        ("in place x.mul_", lambda: x.clone().mul_(s)),
        ("in place x.div_", lambda: x.clone().div_(s)),
        ("in place x.clamp_ max", lambda: x.clone().clamp_(max=s)),
        ("in place x.masked_fill_", lambda: x.clone().masked_fill_(mask, s)),
        ("in place x.fill_", lambda: x.clone().fill_(s)),
        ("in place x.copy_", lambda: x.clone().copy_(s)),
        ("in place operator +=", lambda: _iadd(x.clone(), s)),
        ("1-dim CPU: operator + (control)", lambda: x + s.reshape(1)),
    ]


def _iadd(target, other):
    target += other
    return target


def probe(device: str) -> dict[str, str]:
    x = torch.randn(4, 3, device=device)
    s = torch.tensor(0.5)
    mask = x > 0
    ints = torch.randint(0, 7, (4, 3), device=device)
    int_scalar = torch.tensor(3)
    results = {}
    for name, thunk in operations(x, s, mask, ints, int_scalar):
        try:
            thunk()
            if device == "cuda":
                torch.cuda.synchronize()  # a kernel's own error surfaces here, not at launch
            results[name] = "accepts"
        except Exception as error:  # whichever error it raises is the answer
            first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
            results[name] = f"raises {type(error).__name__}: {first_line[:160]}"
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "meta")
    parser.add_argument("--json")
    arguments = parser.parse_args()
    results = probe(arguments.device)
    for name, verdict in results.items():
        print(f"{name:52} {verdict}")
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump({"torch": torch.__version__, "device": arguments.device, "results": results}, file, indent=1)


if __name__ == "__main__":
    main()
