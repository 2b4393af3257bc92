"""Evidence about running without CUDA: what a file or a README shows, where, in the words a
message cites it with. Plain data, shared by the index that finds it (index.py), the beliefs
built from it (beliefs.py, inference.py) and their store, without the readers that find it.
"""

from __future__ import annotations

from dataclasses import dataclass

# Kinds of evidence, with the words a message uses for them.
FALLBACK = "falls back to the CPU"
CPU_LOAD = "loads onto the CPU"
CPU_OPTION = "has a CPU option"
CPU_DEFAULT = "defaults to the CPU"
SKIPS_WITHOUT_CUDA = "skips its CUDA tests without a GPU"
STOPS_WITHOUT_CUDA = "stops without CUDA"
# A stop in a distributed set-up (``init_distributed``): that mode needs GPUs, not the package.
DISTRIBUTED_STOPS_WITHOUT_CUDA = "stops its distributed mode without CUDA"
NCCL_ONLY = "sets up NCCL, which needs GPUs"
# The program's own code (not a function its callers may skip) sets it up: the file runs only on
# GPUs, whatever its package's other files do (RIFE's train.py beside its CPU-capable inference).
NCCL_PROGRAM = "sets up NCCL whenever it runs"
# ``Trainer(accelerator="gpu")``, ``LightningLite(accelerator="cuda")``, ``Trainer(gpus=2)``:
# Lightning refuses to start without one ("GPUAccelerator can not run on your system since the
# accelerator is not available", lightning 1.6 to 2.x).
TRAINS_ON_GPUS = "trains on GPUs only"
# ``faiss.StandardGpuResources()``, ``faiss.Kmeans(d, k, gpu=True)`` outside any check.
CALLS_A_GPU_ONLY_API = "calls a GPU-only API"
CUDA_ONLY_IMPORT = "imports a CUDA-only library"
CUDA_EXTENSION = "builds CUDA kernels"
# ``load("op", sources=["op_kernel.cu"])`` at a module's top: importing it needs CUDA (the build
# needs CUDA's compiler), and so does importing a module that imports it.
KERNELS_ON_IMPORT = "builds CUDA kernels when imported"
IMPORTS_A_CUDA_ONLY_MODULE = "imports a module of the project that needs CUDA"
# Cited at the importer: in an application, a module that only files needing CUDA import runs
# only where CUDA is (KAIR's face detector, used by its CUDA-kernel face enhancer alone).
IMPORTED_ONLY_WHERE_CUDA_IS = "imports it, and needs CUDA"
IMPORTS_KERNELS = "imports a package of the project that builds CUDA kernels"
SAYS_IT_NEEDS_CUDA = "says it needs CUDA"
NAMED_FOR_THE_GPU = "is named for the GPU"
# A notebook whose metadata asks its host for a GPU runtime (Colab's ``"accelerator": "GPU"``).
ASKS_FOR_A_GPU = "asks its notebook host for a GPU"
# A benchmark (by its path) that measures the GPU it runs on, outside any check and with no CPU
# fallback of its own: its GPU's name, its peak memory, CUDA events' timings (pdearena's
# ``benchmark/fwdbench.py``). Its CUDA uses are what it measures.
BENCHMARKS_THE_GPU = "benchmarks the GPU"
# Neither: a file's first hard-coded CUDA use outside any check. Many files of a package with such
# uses and not one check, fallback or CPU option anywhere are how a GPU-only project is written.
UNCHECKED_CUDA = "uses CUDA without a check"
# Neither: a ``--device`` option whose default is not the CPU. The user picks the device, so hard-
# coded CUDA elsewhere in the package is not how the whole of it is written (LLaVA's workers).
DEVICE_OPTION = "lets its user choose the device"

# Neither: where the project's own checkpoints come from. A ``torch.save`` of what the code
# shows to be copied to the CPU first (``torch.save(x.cpu(), path)``), or of anything else.
SAVES_CPU_TENSORS = "saves CPU tensors"
SAVES_TENSORS = "saves tensors"
# ``torch.save(optimizer.state_dict(), path)``: what a resume reads back into an optimizer, not a
# model's weights. Its tensors are wherever the optimizer kept them.
SAVES_OPTIMIZER_STATE = "saves an optimizer's state"
# A file the index could not read (too large, does not parse): what it saves is not known.
NOT_READ = "could not be read"
# Evidence about checkpoints, not about running without CUDA: no belief about CPU support weighs it.
CHECKPOINT_EVIDENCE = frozenset({SAVES_CPU_TENSORS, SAVES_TENSORS, SAVES_OPTIMIZER_STATE, NOT_READ})

SUPPORTS = frozenset({FALLBACK, CPU_LOAD, CPU_OPTION, CPU_DEFAULT, SKIPS_WITHOUT_CUDA})
REQUIRES = frozenset(
    {
        STOPS_WITHOUT_CUDA,
        DISTRIBUTED_STOPS_WITHOUT_CUDA,
        NCCL_ONLY,
        NCCL_PROGRAM,
        TRAINS_ON_GPUS,
        CALLS_A_GPU_ONLY_API,
        CUDA_ONLY_IMPORT,
        CUDA_EXTENSION,
        KERNELS_ON_IMPORT,
        IMPORTS_A_CUDA_ONLY_MODULE,
        IMPORTED_ONLY_WHERE_CUDA_IS,
        SAYS_IT_NEEDS_CUDA,
        NAMED_FOR_THE_GPU,
        ASKS_FOR_A_GPU,
        BENCHMARKS_THE_GPU,
    }
)


@dataclass(frozen=True)
class Evidence:
    kind: str  # one of SUPPORTS or REQUIRES, or UNCHECKED_CUDA, DEVICE_OPTION or a SAVES_ kind
    path: str  # relative to the project root, with forward slashes
    line: int

    def cited(self) -> str:
        """``train.py:12 falls back to the CPU``."""
        return f"{self.path}:{self.line} {self.kind}"
